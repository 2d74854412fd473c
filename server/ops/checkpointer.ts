import { Worker } from 'node:worker_threads';
import { engineOf, type Db } from '../db/engine/types.ts';

declare module '../kernel/services.ts' {
  interface Services {
    /** The WAL checkpointer of a file database (null for an in-memory one). */
    checkpointer?: Checkpointer | null;
  }
}

/**
 * WAL checkpoints that make commits durable soon after they are made.
 *
 * With `synchronous = NORMAL` a commit writes the WAL without syncing it; the sync happens at a checkpoint, and
 * SQLite's automatic one runs only when the WAL crosses 1,000 pages. At a door's usual pace (a scan every few
 * seconds, about ten pages each) that took minutes to hours, so accepted check-ins stayed unsynced that long: a
 * power cut could take back what kiosks had been told was stored and had dropped from their outboxes. Each of
 * those automatic checkpoints also stalled the request thread on two fsyncs.
 *
 * A worker thread with its own connection watches `data_version` every `tickMs` (250 ms) and runs a PASSIVE
 * checkpoint (it never blocks writers) once writing pauses for a tick, or after `maxDelayMs` (2 s) of unbroken
 * writing. So a committed check-in is in the synced database file within about half a second at a door's pace
 * (0.29 to 0.34 s measured here for single check-ins) and two seconds under a rush, and at that pace the WAL
 * stays small, so the automatic checkpoint (kept as it is, for a sustained rush) seldom runs on the request
 * thread.
 */
export interface Checkpointer {
  /** WAL pages the thread has copied into the database so far. */
  readonly copied: () => number;
  /** Asks the thread to close its connection; resolves when it has exited (shutdown waits for it). */
  stop: () => Promise<void>;
}

export function startCheckpointer(db: Db, opts: { tickMs?: number; maxDelayMs?: number; onError?: (error: string) => void } = {}): Checkpointer {
  // PostgreSQL makes a commit durable before it returns (its own WAL and checkpointer): nothing to do here.
  if (engineOf(db) !== 'sqlite') return { copied: () => 0, stop: () => Promise.resolve() };
  const worker = new Worker(new URL('./checkpoint-worker.cjs', import.meta.url), {
    workerData: { file: db.name, tickMs: opts.tickMs ?? 250, maxDelayMs: opts.maxDelayMs ?? 2000 },
    execArgv: [],
  });
  let copied = 0;
  let stopped = false;
  worker.on('message', (m: { kind: string; checkpointed?: number; error?: string }) => {
    if (m.kind === 'checkpoint') copied += m.checkpointed ?? 0;
    else if (m.kind === 'error') opts.onError?.(m.error ?? 'checkpoint failed');
  });
  // Without the thread, durability falls back to SQLite's automatic checkpoint: logged, never fatal.
  worker.on('error', (e) => opts.onError?.(String(e?.stack ?? e)));
  const exited = new Promise<void>((resolve) => {
    worker.on('exit', (code) => {
      if (!stopped && code !== 0) opts.onError?.(`checkpoint thread exited with ${code}`);
      resolve();
    });
  });
  // The thread must never keep the process alive (after the listeners: adding one refs it again).
  worker.unref();
  return {
    copied: () => copied,
    stop: () => {
      if (!stopped) {
        stopped = true;
        worker.postMessage('stop');
      }
      return exited;
    },
  };
}
