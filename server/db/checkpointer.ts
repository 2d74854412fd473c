import { Worker } from 'node:worker_threads';
import type { Db } from './connection.ts';

/**
 * WAL checkpoints on a thread of their own.
 *
 * With `synchronous = NORMAL` a commit writes the WAL without syncing it; the sync happens at a checkpoint.
 * SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages, on the request thread, and
 * its two fsyncs stalled the whole server for up to 200 ms on this kind of disk (a door queue feels that). At low
 * traffic nothing crossed 1,000 pages for hours, so accepted check-ins stayed unsynced that long: a power cut
 * could take back what kiosks had been told was stored (and had dropped from their outboxes).
 *
 * Here a worker thread with its own connection runs a PASSIVE checkpoint every `intervalMs` (500 ms; it never
 * blocks writers), so committed check-ins reach the synced database file within about that time. When the
 * thread has caught up, the next write restarts the WAL from its beginning, as SQLite always does. Under a
 * sustained write load it cannot catch up completely; then the request thread's own automatic checkpoint, moved
 * out to `backstopPages` (4,000 pages, 16 MB), still bounds the WAL, with little left to copy.
 */
export interface Checkpointer {
  /** WAL pages the thread has copied into the database so far. */
  readonly copied: () => number;
  stop: () => void;
}

export function startCheckpointer(
  db: Db,
  opts: { intervalMs?: number; backstopPages?: number; onError?: (error: string) => void } = {},
): Checkpointer {
  const worker = new Worker(new URL('./checkpoint-worker.cjs', import.meta.url), {
    workerData: { file: db.name, intervalMs: opts.intervalMs ?? 500 },
    execArgv: [],
  });
  let copied = 0;
  let stopped = false;
  const backstop = () => db.open && db.pragma('wal_autocheckpoint = 1000');
  worker.on('message', (m: { kind: string; checkpointed?: number; error?: string }) => {
    if (m.kind === 'checkpoint') copied += m.checkpointed ?? 0;
    else if (m.kind === 'error') opts.onError?.(m.error ?? 'checkpoint failed');
  });
  // A thread that cannot start or dies hands checkpoints back to the request thread's usual schedule.
  worker.on('error', (e) => {
    opts.onError?.(String(e?.stack ?? e));
    backstop();
  });
  worker.on('exit', () => {
    if (!stopped) backstop();
  });
  // The thread must never keep the process alive (after the listeners: adding one refs it again).
  worker.unref();
  db.pragma(`wal_autocheckpoint = ${opts.backstopPages ?? 4000}`);
  // After a restart the WAL file is cut back to this size instead of keeping its largest.
  db.pragma('journal_size_limit = 67108864');
  return {
    copied: () => copied,
    stop: () => {
      if (stopped) return;
      stopped = true;
      worker.postMessage('stop');
    },
  };
}
