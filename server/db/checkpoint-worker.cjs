'use strict';
// The checkpointer's thread (see checkpointer.ts). Plain CommonJS so the thread starts without a TypeScript
// loader. Its own connection copies committed WAL frames into the database file and syncs both, so the
// request thread never waits on that disk work.
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');

function checkpoint() {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r.log > 0) parentPort.postMessage({ kind: 'checkpoint', busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ kind: 'error', error: String((e && e.stack) || e) });
  }
}

const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
