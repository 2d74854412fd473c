import type { SqliteDb } from '../../server/db/engine/sqlite.ts';
import fs from 'node:fs';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { createApp } from '../../server/app.ts';
import { KEEP_ALIVE_MS } from '../../server/http/harden.ts';

/**
 * The Doorstep app on an existing database, logging off, on a free port. BENCH_STALLS=<ms> prints to stderr each
 * time the event loop was held longer than that (a timer firing late), for finding what stalls every request.
 */
const db = await openDatabase(process.env.EVT_DB!);
if (process.env.BENCH_WAL_AUTOCHECKPOINT) (db as SqliteDb).raw.pragma(`wal_autocheckpoint = ${Number(process.env.BENCH_WAL_AUTOCHECKPOINT)}`);
const config = loadConfig({ ...process.env, PORT: '0', EVT_LOG: 'off' });
const app = await createApp({ config, db });
const server = app.express.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
// Idle connections kept as `npm start` keeps them (server/http/harden.ts). The rest of its hardening (a share of the
// connections per client address) stays off: a load generator opens them all from 127.0.0.1.
server.keepAliveTimeout = KEEP_ALIVE_MS;
const stallMs = Number(process.env.BENCH_STALLS ?? 0);
if (stallMs > 0) {
  // The main thread's time on a CPU and waiting for one (ns), from the scheduler: a stall is split into running
  // (our code), runnable but not run (the machine's other work), and the rest, blocked (I/O such as an fsync).
  const sched = (): [number, number] => {
    const [run, wait] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return [run / 1e6, wait / 1e6];
  };
  let last = performance.now();
  let [run0, wait0] = sched();
  setInterval(() => {
    const now = performance.now();
    const [run, wait] = sched();
    const late = now - last - 5;
    if (late > stallMs) {
      const r = run - run0;
      const w = wait - wait0;
      process.stderr.write(
        `stall ${late.toFixed(0)} ms at ${new Date().toISOString()}: running ${r.toFixed(0)} ms, waiting for a CPU ${w.toFixed(0)} ms, blocked ${Math.max(0, now - last - r - w).toFixed(0)} ms\n`,
      );
    }
    last = now;
    run0 = run;
    wait0 = wait;
  }, 5).unref();
}
process.on('SIGTERM', () => process.exit(0));
