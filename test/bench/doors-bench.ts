import fs from 'node:fs';
import os from 'node:os';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createApiKey } from '../../server/auth/credentials.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { insertAttendees, insertTicket } from '../helpers/tickets-fixture.ts';
import { formatInZone } from '../../shared/dates.ts';
import { cpuSeconds, load, startTarget, type Figures, runBench, stopTargets } from './bench-util.ts';
import { seedEvents } from './seed-events.ts';
import type { KioskResult } from './doors-kiosks.ts';

/**
 * npm run bench:doors (issue 14 item 3): the public calendar while the doors open. One server (its own process,
 * response cache on, as deployed) on a seeded database of BENCH_EVENTS events; on 127.0.0.1 only:
 *   quiet: anonymous single-event reads, then archive pages of 50, each at BENCH_CONNECTIONS (20) connections;
 *   doors: the same reads while BENCH_KIOSKS (10) simulated kiosks each send a batch of 25 check-ins
 *          (POST /batch/v1 of PATCH /attendees/{id}) every second, from a process of their own (doors-kiosks.ts).
 * Each phase lasts BENCH_SECONDS (30). Targets: reads under check-in load >= 0.7 of quiet; batch p99 < 50 ms.
 * Printed with each phase: the CPU time the server, the read load generator (autocannon, this process) and the
 * kiosks used per second of the phase, so a server that saturates its core shows apart from a machine that is
 * short of cores. BENCH_READ_NICE=<0-19> lowers the read load generator's priority (the server and kiosks keep
 * theirs); BENCH_STALLS=<ms> makes the server report event-loop stalls longer than that (server-target.ts).
 */
const DURATION = Number(process.env.BENCH_SECONDS ?? 30);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const KIOSKS = Number(process.env.BENCH_KIOSKS ?? 10);
const BATCH = 25;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-doors-bench-'));
const dbFile = path.join(dir, 'bench.sqlite');

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The kiosks' process: `start` begins a phase's check-ins, `stop` ends it and answers with its batches. */
function startKiosks(): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(import.meta.dirname, 'doors-kiosks.ts'), {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`doors-kiosks.ts exited with ${code}`)));
  });
}

interface Phase {
  reads: Figures;
  /** Batch latencies, sorted (empty in a quiet phase). */
  batches: number[];
  failed: number;
  accepted: number;
  /** CPU seconds per second of the phase: the server, the read load generator (this process), the kiosks. */
  cpu: { server: number; reader: number; kiosks: number };
}

async function main(): Promise<void> {
  const { eventIds } = await seedEvents(dbFile);
  const db = await openDatabase(dbFile);
  const ticketId = await insertTicket(db, eventIds[0], { title: 'Door entry', priceMinor: 0, currency: 'EUR' });
  // Enough attendees that no one is checked in twice: kiosks x 25 a second, for both phases and a margin.
  const { attendeeIds } = await insertAttendees(db, ticketId, Math.max(2000, KIOSKS * BATCH * (2 * DURATION + 5)));
  const { key } = await createApiKey(db, 'Doors bench', null, null);
  await db.close();
  const app = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile });
  const kiosksProc = await startKiosks();
  const url = `http://127.0.0.1:${app.port}`;
  const sample = Array.from({ length: 200 }, (_, i) => `/wp-json/evt/events/v1/events/${eventIds[(i * 7919) % eventIds.length]}`);
  const from = formatInZone(new Date(), 'UTC').slice(0, 10);
  const to = formatInZone(new Date(Date.now() + 200 * 86400_000), 'UTC').slice(0, 10);
  // Archive pages a visitor pages through: categories and pages vary, so more than one answer is live.
  const archives = ['music', 'theatre', 'film', 'talks'].flatMap((c) =>
    [1, 2, 3].map((p) => `/wp-json/evt/events/v1/events?per_page=50&page=${p}&categories=${c}&start_date=${from}&end_date=${to}`),
  );
  const opts = { url, connections: CONNECTIONS, duration: DURATION };
  const say = (s: string) => process.stdout.write(`${s}\n`);
  const nice = process.env.BENCH_READ_NICE;
  if (nice) os.setPriority(Number(nice));
  let offset = 0;
  const phase = async (name: string, paths: string[], doors: boolean): Promise<Phase> => {
    const cpu0 = { server: cpuSeconds(app.proc.pid!), reader: process.cpuUsage(), kiosks: cpuSeconds(kiosksProc.pid!) };
    const t0 = performance.now();
    if (doors) kiosksProc.send({ type: 'start', url, key, ids: attendeeIds, offset, kiosks: KIOSKS, batch: BATCH });
    const reads = await load(name, { ...opts, paths });
    let k: KioskResult = { latencies: [], failed: 0, accepted: 0, next: offset };
    if (doors) {
      const done = new Promise<KioskResult>((r) => kiosksProc.once('message', (m) => r(m as KioskResult)));
      kiosksProc.send({ type: 'stop' });
      k = await done;
      offset = k.next;
    }
    const secs = (performance.now() - t0) / 1000;
    const reader = process.cpuUsage(cpu0.reader);
    return {
      reads,
      batches: k.latencies.sort((a, b) => a - b),
      failed: k.failed,
      accepted: k.accepted,
      cpu: {
        server: (cpuSeconds(app.proc.pid!) - cpu0.server) / secs,
        reader: (reader.user + reader.system) / 1e6 / secs,
        kiosks: (cpuSeconds(kiosksProc.pid!) - cpu0.kiosks) / secs,
      },
    };
  };
  try {
    await load('warm-up', { ...opts, paths: [...sample, ...archives], duration: 3 });
    const quietSingle = await phase('single event read, quiet', sample, false);
    const quietArchive = await phase('archive page of 50, quiet', archives, false);
    const doorsSingle = await phase('single event read, doors open', sample, true);
    const doorsArchive = await phase('archive page of 50, doors open', archives, true);
    const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    say(
      `\n${eventIds.length} events; ${CONNECTIONS} read connections; ${KIOSKS} kiosks x ${BATCH} check-ins a second; ${DURATION} s a phase; autocannon on 127.0.0.1${nice ? ` at nice ${nice}` : ''}; ${os.cpus().length} cores; load average ${os.loadavg()[0].toFixed(1)}`,
    );
    say(
      `${'reads'.padEnd(34)} ${'quiet req/s'.padStart(12)} ${'doors req/s'.padStart(12)} ${'ratio'.padStart(6)} ${'quiet p99'.padStart(10)} ${'doors p99'.padStart(10)} ${'errors'.padStart(7)}`,
    );
    const row = (name: string, q: Figures, d: Figures) =>
      say(
        `${name.padEnd(34)} ${fmt(q.rps).padStart(12)} ${fmt(d.rps).padStart(12)} ${fmt(d.rps / q.rps, 2).padStart(6)} ${`${fmt(q.p99)} ms`.padStart(10)} ${`${fmt(d.p99)} ms`.padStart(10)} ${String(q.errors + q.non2xx + d.errors + d.non2xx).padStart(7)}`,
      );
    row('single event read', quietSingle.reads, doorsSingle.reads);
    row('archive page of 50', quietArchive.reads, doorsArchive.reads);
    const batchLine = (name: string, b: number[]) =>
      say(
        `${name.padEnd(34)} ${fmt(b.length).padStart(5)} batches, p50 ${fmt(percentile(b, 50), 1)} ms, p90 ${fmt(percentile(b, 90), 1)} ms, p99 ${fmt(percentile(b, 99), 1)} ms, max ${fmt(b.at(-1) ?? 0, 1)} ms`,
      );
    batchLine('check-ins during single reads', doorsSingle.batches);
    batchLine('check-ins during archive reads', doorsArchive.batches);
    const all = [...doorsSingle.batches, ...doorsArchive.batches].sort((a, b) => a - b);
    const accepted = doorsSingle.accepted + doorsArchive.accepted;
    const failed = doorsSingle.failed + doorsArchive.failed;
    say(
      `check-in batches: ${fmt(all.length)} of ${BATCH} (${fmt(accepted)} check-ins accepted), p50 ${fmt(percentile(all, 50), 1)} ms, p99 ${fmt(percentile(all, 99), 1)} ms, max ${fmt(all.at(-1) ?? 0, 1)} ms; failed ${failed}`,
    );
    say(`${'CPU seconds a second (2 cores)'.padEnd(34)} ${'server'.padStart(7)} ${'autocannon'.padStart(11)} ${'kiosks'.padStart(7)}`);
    for (const [name, p] of [
      ['single reads, quiet', quietSingle],
      ['archive reads, quiet', quietArchive],
      ['single reads, doors open', doorsSingle],
      ['archive reads, doors open', doorsArchive],
    ] as const)
      say(`${`  ${name}`.padEnd(34)} ${fmt(p.cpu.server, 2).padStart(7)} ${fmt(p.cpu.reader, 2).padStart(11)} ${fmt(p.cpu.kiosks, 2).padStart(7)}`);
    const rs = doorsSingle.reads.rps / quietSingle.reads.rps;
    const ra = doorsArchive.reads.rps / quietArchive.reads.rps;
    const p99 = percentile(all, 99);
    say('');
    say(`target single read under check-ins >= 0.7 of quiet: ${fmt(rs, 2)} ${rs >= 0.7 ? 'MET' : 'MISSED'}`);
    say(`target archive under check-ins >= 0.7 of quiet   : ${fmt(ra, 2)} ${ra >= 0.7 ? 'MET' : 'MISSED'}`);
    say(`target check-in batch p99 < 50 ms               : ${fmt(p99, 1)} ms ${p99 < 50 ? 'MET' : 'MISSED'}`);
  } finally {
    stopTargets(dir, app, { proc: kiosksProc });
  }
}

runBench(main);
