'use strict';
// The checkpointer's thread (see checkpointer.ts). Plain CommonJS so the thread starts without a TypeScript
// loader. Its own connection copies committed WAL frames into the database file and syncs both, so that
// commits become durable soon after they are made, without the request thread waiting on the disk.
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');

// `data_version` moves whenever another connection commits: the thread sees writes without reading the WAL.
let seen = db.pragma('data_version', { simple: true });
// Commits made before this thread started (it starts beside the app, asynchronously) are in the WAL too and would
// show no data_version change to it: they count as pending from the start, so the first quiet tick checkpoints them.
let pendingSince = Date.now();

function checkpoint() {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ kind: 'checkpoint', checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ kind: 'error', error: String(e?.stack || e) });
  }
}

/** Checkpoints once writing pauses for a tick, or when writes have waited `maxDelayMs` under steady traffic. */
function tick() {
  const version = db.pragma('data_version', { simple: true });
  const now = Date.now();
  if (version !== seen) {
    seen = version;
    if (!pendingSince) pendingSince = now;
    if (now - pendingSince < workerData.maxDelayMs) return;
  } else if (!pendingSince) {
    return;
  }
  pendingSince = 0;
  checkpoint();
}

const timer = setInterval(tick, workerData.tickMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
