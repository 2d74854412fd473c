import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../server/auth/credentials.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { insertAttendees, insertTicket } from '../helpers/tickets-fixture.ts';
import { formatInZone } from '../../shared/dates.ts';
import { load, startTarget, type Figures, runBench, stopTargets } from './bench-util.ts';
import { seedEvents } from './seed-events.ts';

/**
 * npm run bench:doors (issue 14 item 3): the public calendar while the doors open. One server (its own process,
 * response cache on, as deployed) on a seeded database of BENCH_EVENTS events; on 127.0.0.1 only:
 *   quiet: anonymous single-event reads, then archive pages of 50, each at BENCH_CONNECTIONS (20) connections;
 *   doors: the same reads while BENCH_KIOSKS (10) simulated kiosks each send a batch of 25 check-ins
 *          (POST /batch/v1 of PATCH /attendees/{id}) every second.
 * Each phase lasts BENCH_SECONDS (30). Targets: reads under check-in load >= 0.7 of quiet; batch p99 < 50 ms.
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

/** Kiosks: each sends a batch of 25 check-ins every second until `stop`; latencies of every batch. */
async function kiosks(
  url: string,
  key: string,
  ids: number[],
  stop: Promise<void>,
): Promise<{ latencies: number[]; failed: number; accepted: number }> {
  let next = 0;
  let stopped = false;
  void stop.then(() => (stopped = true));
  const latencies: number[] = [];
  let failed = 0;
  let accepted = 0;
  const kiosk = async (k: number) => {
    // Spread the kiosks over the second, as independent devices are.
    await new Promise((r) => setTimeout(r, (1000 / KIOSKS) * k));
    let tick = performance.now();
    while (!stopped) {
      const requests = Array.from({ length: BATCH }, (_, i) => {
        const id = ids[next++ % ids.length];
        return {
          method: 'PATCH',
          path: `/evt/tickets/v1/attendees/${id}`,
          body: { check_in: true, device_id: `kiosk-${k}`, nonce: `doors-${k}-${next}-${i}-nonce` },
        };
      });
      const t0 = performance.now();
      try {
        const r = await fetch(`${url}/wp-json/batch/v1`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ requests }),
        });
        const body = (await r.json()) as { responses?: { status: number }[] };
        latencies.push(performance.now() - t0);
        if (r.status !== 207) failed++;
        accepted += body.responses?.filter((x) => x.status === 201).length ?? 0;
      } catch {
        failed++;
      }
      tick += 1000;
      const wait = tick - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else tick = performance.now();
    }
  };
  await Promise.all(Array.from({ length: KIOSKS }, (_, k) => kiosk(k)));
  latencies.sort((a, b) => a - b);
  return { latencies, failed, accepted };
}

async function main(): Promise<void> {
  const { eventIds } = seedEvents(dbFile);
  const db = openDatabase(dbFile);
  const ticketId = insertTicket(db, eventIds[0], { title: 'Door entry', priceMinor: 0, currency: 'EUR' });
  // Enough attendees that no one is checked in twice: kiosks x 25 a second, for the phase and a margin.
  const { attendeeIds } = insertAttendees(db, ticketId, Math.max(2000, KIOSKS * BATCH * (DURATION + 5)));
  const { key } = createApiKey(db, 'Doors bench', null, null);
  db.close();
  const app = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile });
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
  try {
    await load('warm-up', { ...opts, paths: [...sample, ...archives], duration: 3 });
    const quietSingle = await load('single event read, quiet', { ...opts, paths: sample });
    const quietArchive = await load('archive page of 50, quiet', { ...opts, paths: archives });
    const phase = async (name: string, paths: string[]): Promise<{ reads: Figures; batches: Awaited<ReturnType<typeof kiosks>> }> => {
      let end!: () => void;
      const stop = new Promise<void>((r) => (end = r));
      const k = kiosks(url, key, attendeeIds, stop);
      const reads = await load(name, { ...opts, paths });
      end();
      return { reads, batches: await k };
    };
    const doorsSingle = await phase('single event read, doors open', sample);
    const doorsArchive = await phase('archive page of 50, doors open', archives);
    const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    say(
      `\n${eventIds.length} events; ${CONNECTIONS} read connections; ${KIOSKS} kiosks x ${BATCH} check-ins a second; ${DURATION} s a phase; autocannon on 127.0.0.1; ${os.cpus().length} cores; load average ${os.loadavg()[0].toFixed(1)}`,
    );
    say(
      `${'reads'.padEnd(34)} ${'quiet req/s'.padStart(12)} ${'doors req/s'.padStart(12)} ${'ratio'.padStart(6)} ${'quiet p99'.padStart(10)} ${'doors p99'.padStart(10)} ${'errors'.padStart(7)}`,
    );
    const row = (name: string, q: Figures, d: Figures) =>
      say(
        `${name.padEnd(34)} ${fmt(q.rps).padStart(12)} ${fmt(d.rps).padStart(12)} ${fmt(d.rps / q.rps, 2).padStart(6)} ${`${fmt(q.p99)} ms`.padStart(10)} ${`${fmt(d.p99)} ms`.padStart(10)} ${String(q.errors + q.non2xx + d.errors + d.non2xx).padStart(7)}`,
      );
    row('single event read', quietSingle, doorsSingle.reads);
    row('archive page of 50', quietArchive, doorsArchive.reads);
    const all = [...doorsSingle.batches.latencies, ...doorsArchive.batches.latencies].sort((a, b) => a - b);
    const accepted = doorsSingle.batches.accepted + doorsArchive.batches.accepted;
    const failed = doorsSingle.batches.failed + doorsArchive.batches.failed;
    say(
      `check-in batches: ${fmt(all.length)} of ${BATCH} (${fmt(accepted)} check-ins accepted), p50 ${fmt(percentile(all, 50), 1)} ms, p99 ${fmt(percentile(all, 99), 1)} ms, max ${fmt(all.at(-1) ?? 0, 1)} ms; failed ${failed}`,
    );
    const rs = doorsSingle.reads.rps / quietSingle.rps;
    const ra = doorsArchive.reads.rps / quietArchive.rps;
    const p99 = percentile(all, 99);
    say('');
    say(`target single read under check-ins >= 0.7 of quiet: ${fmt(rs, 2)} ${rs >= 0.7 ? 'MET' : 'MISSED'}`);
    say(`target archive under check-ins >= 0.7 of quiet   : ${fmt(ra, 2)} ${ra >= 0.7 ? 'MET' : 'MISSED'}`);
    say(`target check-in batch p99 < 50 ms               : ${fmt(p99, 1)} ms ${p99 < 50 ? 'MET' : 'MISSED'}`);
  } finally {
    stopTargets(dir, app);
  }
}

runBench(main);
