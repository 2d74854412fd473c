import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { openDatabase } from '../../server/db/connection.ts';
import { createApiKey } from '../../server/auth/credentials.ts';
import { insertAttendees, insertEvent, insertTicket } from '../helpers/tickets-fixture.ts';
import { analyzePg, cpuOf, pgSide, runBench, startTarget } from './bench-util.ts';

/**
 * npm run bench:checkin: seeds 100,000 attendees of one event, starts the server in its own process and
 * measures on 127.0.0.1, in one run: check-ins per second through batches of 25 PATCH sub-requests, the same
 * through single PATCH requests, `GET /qr` check-in latency at 50 connections, and a full paged download of
 * the event's attendees (per_page 100, as the kiosk does it). Targets: batch >= 5,000 check-ins/s, batch >= 5x
 * single per check-in, full download < 15 s. Batches and single requests alternate over BENCH_ROUNDS rounds, so
 * the ratio compares the two under the same machine conditions.
 *
 * The same measures then run on PostgreSQL, on a copy of the same site (bench-util `pgSide`: the cluster
 * `EVT_DB=postgres://…` names, else a private one; BENCH_ENGINES=sqlite skips it), and both print side by side.
 */
const ATTENDEES = Number(process.env.BENCH_ATTENDEES ?? 100_000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 2_400);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 9_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const QR_REQUESTS = Number(process.env.BENCH_QR ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-checkin-bench-'));
const dbFile = path.join(dir, 'bench.sqlite');

interface Seeded {
  eventId: number;
  ids: number[];
  codes: Map<number, string>;
  key: string;
}

async function seed(): Promise<Seeded> {
  const db = await openDatabase(dbFile);
  const t0 = performance.now();
  const eventId = await insertEvent(db, { title: 'Bench festival' });
  const ticketId = await insertTicket(db, eventId, { title: 'Festival pass', priceMinor: 4900, currency: 'EUR' });
  const { attendeeIds, codes } = await insertAttendees(db, ticketId, ATTENDEES);
  const { key } = await createApiKey(db, 'Bench door', null, null);
  process.stdout.write(`seeded ${ATTENDEES} attendees in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  await db.close();
  return { eventId, ids: attendeeIds, codes, key };
}

const scanBody = (nonce: string, device: string) => ({ check_in: true, check_in_date: new Date().toISOString(), device_id: device, nonce });

const ACCEPTED = "SELECT COUNT(*) AS n FROM checkins WHERE result = 'accepted' AND device_id = ?";

/** Counts the check-ins `device` got accepted, on the engine `spec` names (a file, or a postgres:// URL). */
async function acceptedOn(spec: string): Promise<{ accepted: (device: string) => Promise<number>; close: () => Promise<void> }> {
  if (!/^postgres(?:ql)?:\/\//.test(spec)) {
    return {
      accepted: async (device) => {
        const db = new Database(spec, { readonly: true });
        try {
          return (db.prepare(ACCEPTED).get(device) as { n: number }).n;
        } finally {
          db.close();
        }
      },
      close: async () => {},
    };
  }
  const db = await openDatabase(spec);
  return { accepted: async (device) => ((await db.prepare(ACCEPTED).get(device)) as { n: number }).n, close: () => db.close() };
}

/** What one engine measured, for the side-by-side table. */
interface EngineFigures {
  engine: string;
  batchRate: number;
  singleRate: number;
  ratio: number;
  batchCpuUs: number | null;
  singleCpuUs: number | null;
  /** PostgreSQL backends' CPU per check-in (PostgreSQL only). */
  batchDbUs: number | null;
  qrRps: number;
  qrCpuUs: number | null;
  downloadSecs: number;
  pages: number;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * First request sent to last answer received. autocannon notices the end of an `amount` run only on its
 * one-second tick, so its own duration overstates short phases by up to a second.
 */
function span() {
  let first = 0;
  let last = 0;
  return {
    sent: () => {
      if (!first) first = performance.now();
    },
    answered: () => {
      last = performance.now();
    },
    seconds: () => (last - first) / 1000,
  };
}

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const s = await seed();
  // The copy is made before any check-in, so both engines start from the same rows.
  const pg = await pgSide(dbFile, 'bench_checkin', say);
  try {
    say('');
    // BENCH_ENGINES=postgres measures PostgreSQL alone (no side-by-side table).
    const lite = process.env.BENCH_ENGINES === 'postgres' ? null : (say('== SQLite =='), await measure('SQLite', dbFile, s, null, true));
    if (!pg) return;
    say('');
    say(`== PostgreSQL (${pg.origin}; the same site copied) ==`);
    const post = await measure('PostgreSQL', pg.url, s, pg.backends, false);
    if (!lite) return;
    say('');
    say(sideBySide(lite, post));
  } finally {
    pg?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function sideBySide(a: EngineFigures, b: EngineFigures): string {
  const rows: [string, (f: EngineFigures) => number | null, number][] = [
    ['(1) batch check-ins/s', (f) => f.batchRate, 0],
    ['(1) server CPU us per batch check-in', (f) => f.batchCpuUs, 0],
    ['(1) PostgreSQL CPU us per batch check-in', (f) => f.batchDbUs, 0],
    ['(2) single check-ins/s', (f) => f.singleRate, 0],
    ['(2) server CPU us per single check-in', (f) => f.singleCpuUs, 0],
    ['batch / single (median of rounds)', (f) => f.ratio, 2],
    ['(3) GET /qr check-ins/s', (f) => f.qrRps, 0],
    ['(3) server CPU us per /qr check-in', (f) => f.qrCpuUs, 0],
    ['(4) full download s', (f) => f.downloadSecs, 2],
  ];
  const cell = (v: number | null, d: number) => (v === null || Number.isNaN(v) ? '-' : fmt(v, d)).padStart(12);
  const lines = [`${'side by side'.padEnd(42)} ${a.engine.padStart(12)} ${b.engine.padStart(12)} ${'PG / SQLite'.padStart(12)}`];
  for (const [name, get, d] of rows) {
    const x = get(a);
    const y = get(b);
    lines.push(`${name.padEnd(42)} ${cell(x, d)} ${cell(y, d)} ${cell(x && y !== null ? y / x : null, 2)}`);
  }
  return lines.join('\n');
}

async function measure(engine: string, spec: string, s: Seeded, dbBackends: (() => number[]) | null, targets: boolean): Promise<EngineFigures> {
  const app = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: spec });
  const url = `http://127.0.0.1:${app.port}`;
  const auth = { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' };
  const counter = await acceptedOn(spec);
  const accepted = counter.accepted;
  let next = 0;
  const take = () => s.ids[next++];
  // Other work on the machine slows every figure down; the server's own CPU time per operation says what
  // the server would do on an idle machine (one Node process uses one core).
  let cpuMark = cpuSeconds(app.proc.pid);
  const cpuSince = () => {
    const now = cpuSeconds(app.proc.pid);
    const used = now !== null && cpuMark !== null ? now - cpuMark : null;
    cpuMark = now;
    return used;
  };
  const perCpu = (n: number, used: number | null) => (used ? `; server CPU ${fmt((used * 1e6) / n)} µs each = ${fmt(n / used)}/s per core` : '');
  // BENCH_PRIORITY (e.g. -10, needs root) raises the server's and this client's scheduling priority, so a
  // machine shared with other work measures closer to an idle one. Off by default.
  const priority = process.env.BENCH_PRIORITY;
  if (priority !== undefined) {
    os.setPriority(app.proc.pid!, Number(priority));
    os.setPriority(Number(priority));
  }
  say(
    `${fmt(ATTENDEES)} attendees in one event; server in its own process; 127.0.0.1; ${os.cpus().length} cores; load average at start ${os.loadavg()[0].toFixed(1)}${priority !== undefined ? `; priority ${priority}` : ''}`,
  );
  try {
    // Warm up the JIT and SQLite's page cache on a few hundred check-ins, single and batched.
    for (let i = 0; i < 500; i++) {
      const id = take();
      await fetch(`${url}/wp-json/evt/tickets/v1/attendees/${id}`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify(scanBody(`warm-nonce-${id}-xxxxxx`, 'bench-warm')),
      });
    }
    for (let b = 0; b < 100; b++) {
      const requests = Array.from({ length: 25 }, () => {
        const id = take();
        return { method: 'PATCH', path: `/evt/tickets/v1/attendees/${id}`, body: scanBody(`warm-nonce-${id}-xxxxxx`, 'bench-warm') };
      });
      await fetch(`${url}/wp-json/batch/v1`, { method: 'POST', headers: auth, body: JSON.stringify({ requests }) });
    }
    // After the warm-up's 3,000 check-ins, PostgreSQL's statistics as autovacuum would have them by now (and the
    // server's plans made again with them): see analyzePg.
    if (dbBackends) analyzePg(spec);
    cpuSince();
    let dbMark = dbBackends ? cpuOf(dbBackends()) : 0;
    const dbSince = () => {
      if (!dbBackends) return null;
      const now = cpuOf(dbBackends());
      const used = now - dbMark;
      dbMark = now;
      return used;
    };

    // (1) and (2) alternate in ROUNDS rounds, so that both see the machine in the same state: on a shared machine
    // the speed drifts over seconds, and two phases run one after the other compare two different machines.
    let batchNo = 0;
    let single = 0;
    interface Tally {
      ok: number;
      secs: number;
      cpu: number;
      db: number;
      p50: number;
      p99: number;
      errors: number;
    }
    const tally = (): Tally => ({ ok: 0, secs: 0, cpu: 0, db: 0, p50: 0, p99: 0, errors: 0 });
    const batches = tally();
    const singles = tally();
    /** One phase of a round: `amount` requests from `make`, counted by the check-ins accepted from `device`. */
    const phase = async (t: Tally, device: string, amount: number, method: 'POST' | 'PATCH', make: () => { path: string; body: string }) => {
      const before = await accepted(device);
      const clock = span();
      const res = await autocannon({
        url,
        connections: CONNECTIONS,
        amount,
        headers: auth,
        requests: [{ method, onResponse: clock.answered, setupRequest: (req) => (clock.sent(), { ...req, ...make() }) }],
      });
      const ok = (await accepted(device)) - before;
      t.ok += ok;
      t.secs += clock.seconds();
      t.cpu += cpuSince() ?? 0;
      t.db += dbSince() ?? 0;
      t.p50 = Math.max(t.p50, res.latency.p50);
      t.p99 = Math.max(t.p99, res.latency.p99);
      t.errors += res.errors + res.timeouts + res.non2xx;
      return { rate: ok / clock.seconds(), p99: res.latency.p99 };
    };
    const roundRatios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const b = await phase(batches, 'bench-batch', Math.floor(BATCHES / ROUNDS), 'POST', () => {
        const n = batchNo++;
        const requests = Array.from({ length: 25 }, (_, i) => ({
          method: 'PATCH',
          path: `/evt/tickets/v1/attendees/${take()}`,
          body: scanBody(`bench-batch-${n}-${i}-nonce`, 'bench-batch'),
        }));
        return { path: '/wp-json/batch/v1', body: JSON.stringify({ requests }) };
      });
      const one = await phase(singles, 'bench-single', Math.floor(SINGLES / ROUNDS), 'PATCH', () => ({
        path: `/wp-json/evt/tickets/v1/attendees/${take()}`,
        body: JSON.stringify(scanBody(`bench-single-${single++}-nonce`, 'bench-single')),
      }));
      roundRatios.push(b.rate / one.rate);
      if (process.env.BENCH_VERBOSE)
        say(`    round ${r + 1}: batch ${fmt(b.rate)}/s (p99 ${b.p99} ms), single ${fmt(one.rate)}/s (p99 ${one.p99} ms)`);
    }
    const batchOk = batches.ok;
    const singleOk = singles.ok;
    const batchRate = batchOk / batches.secs;
    const singleRate = singleOk / singles.secs;
    const batchCpu = batches.cpu;
    const singleCpu = singles.cpu;
    roundRatios.sort((a, b) => a - b);
    const median = roundRatios[Math.floor(roundRatios.length / 2)];
    say(
      `(1) batches of 25 PATCH check-ins, ${CONNECTIONS} connections: ${fmt(batchOk)} accepted in ${fmt(batches.secs, 2)} s = ${fmt(batchRate)} check-ins/s (per batch p50 up to ${fmt(batches.p50, 1)} ms, p99 up to ${fmt(batches.p99, 1)} ms; errors ${batches.errors})${perCpu(batchOk, batchCpu)}${dbBackends ? `; PostgreSQL CPU ${fmt((batches.db * 1e6) / batchOk)} µs each` : ''}`,
    );
    say(
      `(2) single PATCH check-ins, ${CONNECTIONS} connections:     ${fmt(singleOk)} accepted in ${fmt(singles.secs, 2)} s = ${fmt(singleRate)} check-ins/s (p50 up to ${fmt(singles.p50, 1)} ms, p99 up to ${fmt(singles.p99, 1)} ms; errors ${singles.errors})${perCpu(singleOk, singleCpu)}`,
    );
    say(`    in ${ROUNDS} alternating rounds; batch/single per round: ${roundRatios.map((x) => fmt(x, 2)).join(', ')} (median ${fmt(median, 2)})`);

    // (3) GET /qr check-ins at 50 connections, each a different attendee with its security code.
    const qrStart = next;
    const qr = await autocannon({
      url,
      connections: 50,
      amount: Math.min(QR_REQUESTS, s.ids.length - next),
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            const id = take();
            return {
              ...req,
              path: `/wp-json/evt/tickets/v1/qr?api_key=${s.key}&ticket_id=${id}&security_code=${s.codes.get(id)}&event_id=${s.eventId}`,
            };
          },
        },
      ],
    });
    const qrCpu = cpuSince();
    const qrOk = qr.statusCodeStats?.['201']?.count ?? 0;
    say(
      `(3) GET /qr check-in, 50 connections: ${fmt(qrOk)} of ${fmt(next - qrStart)} answered 201, ${fmt(qr.requests.average)} req/s, p50 ${fmt(qr.latency.p50, 1)} ms, p99 ${fmt(qr.latency.p99, 1)} ms; errors ${qr.errors + qr.timeouts + qr.non2xx}${perCpu(qrOk, qrCpu)}`,
    );

    // (4) Full paged download of the event as the kiosk makes it (renderer/sync/download.ts): the first pass
    // is `changed_since=0` (ID order, nothing shifts), with up to 4 pages in flight.
    const t4 = performance.now();
    // Asked as the kiosk's browser asks (Accept-Encoding: gzip, deflate, br; BENCH_ACCEPT_ENCODING overrides it):
    // the bytes on the wire are the body bytes as sent, before decoding.
    const acceptEncoding = process.env.BENCH_ACCEPT_ENCODING ?? 'gzip, deflate, br';
    let wireBytes = 0;
    let jsonBytes = 0;
    const encodings = new Set<string>();
    const fetchPage = (n: number) =>
      new Promise<{ pages: number; body: { attendees: unknown[] } }>((resolve, reject) => {
        const req = http.get(
          `${url}/wp-json/evt/tickets/v1/attendees?post_id=${s.eventId}&per_page=100&page=${n}&changed_since=0`,
          { headers: { ...auth, 'Accept-Encoding': acceptEncoding } },
          (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('error', reject);
            r.on('end', () => {
              if (r.statusCode !== 200) return reject(new Error(`download page ${n}: HTTP ${r.statusCode}`));
              const raw = Buffer.concat(chunks);
              const enc = String(r.headers['content-encoding'] ?? 'identity');
              encodings.add(enc);
              const plain =
                enc === 'gzip'
                  ? zlib.gunzipSync(raw)
                  : enc === 'br'
                    ? zlib.brotliDecompressSync(raw)
                    : enc === 'deflate'
                      ? zlib.inflateSync(raw)
                      : raw;
              wireBytes += raw.length;
              jsonBytes += plain.length;
              resolve({ pages: Number(r.headers['x-et-total-pages']), body: JSON.parse(plain.toString('utf8')) as { attendees: unknown[] } });
            });
          },
        );
        req.on('error', reject);
      });
    const first = await fetchPage(1);
    const pages = first.pages;
    let got = first.body.attendees.length;
    let nextPage = 2;
    const worker = async () => {
      while (nextPage <= pages) {
        const n = nextPage++;
        const { body } = await fetchPage(n);
        got += body.attendees.length;
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    const downloadSecs = (performance.now() - t4) / 1000;
    const downloadCpu = cpuSince();
    say(
      `(4) full download, per_page 100: ${fmt(got)} attendees in ${pages} pages in ${fmt(downloadSecs, 2)} s (${fmt((downloadSecs * 1000) / pages, 1)} ms per page)${downloadCpu ? `; server CPU ${fmt(downloadCpu, 2)} s` : ''}`,
    );
    say(
      `    bytes on the wire (body, Accept-Encoding: ${acceptEncoding}; answered ${[...encodings].join(', ')}): ${fmt(wireBytes)} = ${fmt(wireBytes / Math.max(got, 1), 1)} per attendee; JSON ${fmt(jsonBytes)} (${fmt(wireBytes / Math.max(jsonBytes, 1), 3)} of it)`,
    );

    const ratio = batchRate / singleRate;
    const figures: EngineFigures = {
      engine,
      batchRate,
      singleRate,
      ratio: median,
      batchCpuUs: batchCpu ? (batchCpu * 1e6) / batchOk : null,
      singleCpuUs: singleCpu ? (singleCpu * 1e6) / singleOk : null,
      batchDbUs: dbBackends ? (batches.db * 1e6) / batchOk : null,
      qrRps: qr.requests.average,
      qrCpuUs: qrCpu ? (qrCpu * 1e6) / Math.max(qrOk, 1) : null,
      downloadSecs,
      pages,
    };
    if (!targets) {
      say(`load average at end ${os.loadavg()[0].toFixed(1)}`);
      return figures;
    }
    say('');
    say(`target batch >= 5,000 check-ins/s      : ${fmt(batchRate)} (${fmt(batchRate / 5000, 2)}x target) ${batchRate >= 5000 ? 'MET' : 'MISSED'}`);
    say(
      `target batch >= 5x single per check-in : ${fmt(ratio, 2)}x ${ratio >= 5 ? 'MET' : 'MISSED'}${batchCpu && singleCpu ? ` (server CPU per check-in, single / batch: ${fmt(singleCpu / singleOk / (batchCpu / batchOk), 2)}x)` : ''}`,
    );
    say(
      `target full download < 15 s            : ${fmt(downloadSecs, 2)} s ${got < 100_000 ? `(only ${fmt(got)} attendees seeded)` : downloadSecs < 15 ? 'MET' : 'MISSED'}`,
    );
    say(`load average at end ${os.loadavg()[0].toFixed(1)} (figures are wall-clock; other processes on the machine slow them)`);
    return figures;
  } finally {
    await counter.close();
    await new Promise((done) => (app.proc.once('exit', done), app.proc.kill()));
  }
}

runBench(main);
