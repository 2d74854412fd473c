import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatInZone } from '../../shared/dates.ts';
import { load, loadOn, pgSide, startTarget, table, type Figures, runBench, stopTargets } from './bench-util.ts';
import { seedEvents } from './seed-events.ts';

/**
 * npm run bench:server: seeds 10,000 events, then measures with autocannon on 127.0.0.1, in one run,
 * (a) a single event read, (b) an events archive page of 50 with a category and a date filter, and
 * (c) a bare Express res.json route, printing each as a ratio to (c). Targets: (a) >= 0.5, (b) >= 0.25; with the
 * response cache off (every request queries and presents): (a) >= 0.40, (b) >= 0.10. Beside (c), a second
 * baseline (d): a bare Express route sending a pre-serialised body as large as the archive page (the page's own
 * bytes), so the archive's ratio to (d) measures our code rather than the 4,000 times larger body.
 *
 * Then (a), (b) and both with the cache off again on PostgreSQL, on a copy of the same site (bench-util `pgSide`:
 * the cluster `EVT_DB=postgres://…` names, else a private one; BENCH_ENGINES=sqlite skips it), their ratios to
 * the same (c), side by side with SQLite's.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-bench-'));
const dbFile = path.join(dir, 'bench.sqlite');

async function main(): Promise<void> {
  const { eventIds } = await seedEvents(dbFile, EVENTS);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const pg = await pgSide(dbFile, 'bench_server', say);
  const app = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile });
  const uncached = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile, EVT_CACHE: 'off' });
  const sample = Array.from({ length: 200 }, (_, i) => eventIds[(i * 7919) % eventIds.length]);
  const from = formatInZone(new Date(), 'UTC').slice(0, 10);
  const to = formatInZone(new Date(Date.now() + 200 * 86400_000), 'UTC').slice(0, 10);
  const archive = `/wp-json/evt/events/v1/events?per_page=50&categories=music&start_date=${from}&end_date=${to}`;
  const page = Buffer.from(await fetch(`http://127.0.0.1:${app.port}${archive}`).then((r) => r.text()));
  const check = JSON.parse(page.toString('utf8')) as { events: unknown[]; total: number };
  process.stdout.write(
    `archive query returns ${check.events.length} of ${check.total} matching events, ${page.length.toLocaleString('en-US')} bytes\n`,
  );
  // The second baseline (d): a bare route sending a pre-serialised body of the archive page's bytes.
  const bodyFile = path.join(dir, 'archive-page.json');
  fs.writeFileSync(bodyFile, page);
  const bare = await startTarget(path.join(import.meta.dirname, 'bare-target.ts'), { BARE_BODY_FILE: bodyFile });
  try {
    const opts = { connections: CONNECTIONS, duration: DURATION };
    // Warm up both servers so JIT and SQLite caches are comparable.
    await load('warm-up', { url: `http://127.0.0.1:${bare.port}/bare`, ...opts, duration: 2 });
    await load('warm-up', {
      url: `http://127.0.0.1:${app.port}`,
      paths: sample.map((id) => `/wp-json/evt/events/v1/events/${id}`),
      ...opts,
      duration: 2,
    });
    const c: Figures = await loadOn(bare.proc.pid!, '(c) bare Express res.json', { url: `http://127.0.0.1:${bare.port}/bare`, ...opts });
    const a = await loadOn(app.proc.pid!, '(a) single event read', {
      url: `http://127.0.0.1:${app.port}`,
      paths: sample.map((id) => `/wp-json/evt/events/v1/events/${id}`),
      ...opts,
    });
    const b = await loadOn(app.proc.pid!, '(b) archive, 50 per page, category + dates', {
      url: `http://127.0.0.1:${app.port}`,
      paths: [archive],
      ...opts,
    });
    // The same reads with the response cache off: every request runs the query and presents the events.
    const a0 = await loadOn(uncached.proc.pid!, '(a) single event read, cache off', {
      url: `http://127.0.0.1:${uncached.port}`,
      paths: sample.map((id) => `/wp-json/evt/events/v1/events/${id}`),
      ...opts,
    });
    const b0 = await loadOn(uncached.proc.pid!, '(b) archive, cache off', { url: `http://127.0.0.1:${uncached.port}`, paths: [archive], ...opts });
    const d: Figures = await loadOn(bare.proc.pid!, `(d) bare Express, pre-serialised ${Math.round(page.length / 1024)} KB body`, {
      url: `http://127.0.0.1:${bare.port}/bare-body`,
      ...opts,
    });
    process.stdout.write(`\n${EVENTS} events, ${CONNECTIONS} connections, ${DURATION} s each, autocannon on 127.0.0.1, ${os.cpus().length} cores\n`);
    process.stdout.write(`${table([c, a, b, a0, b0, d], c, d)}\n`);
    process.stdout.write("ratio: to (c), the issue's baseline; vs (d): to a bare route sending as many bytes as the archive page\n\n");
    const ra = a.rps / c.rps;
    const rb = b.rps / c.rps;
    process.stdout.write(`target (a) >= 0.50 of bare: ${ra.toFixed(2)} ${ra >= 0.5 ? 'MET' : 'MISSED'}\n`);
    process.stdout.write(`target (b) >= 0.25 of bare: ${rb.toFixed(2)} ${rb >= 0.25 ? 'MET' : 'MISSED'}\n`);
    const ra0 = a0.rps / c.rps;
    const rb0 = b0.rps / c.rps;
    process.stdout.write(`target (a) cache off >= 0.40 of bare: ${ra0.toFixed(2)} ${ra0 >= 0.4 ? 'MET' : 'MISSED'}\n`);
    process.stdout.write(`target (b) cache off >= 0.10 of bare: ${rb0.toFixed(2)} ${rb0 >= 0.1 ? 'MET' : 'MISSED'}\n`);
    process.stdout.write(
      `archive against (d), the same bytes from a bare route: cached ${(b.rps / d.rps).toFixed(2)}, cache off ${(b0.rps / d.rps).toFixed(2)} (no target of the issue)\n`,
    );
    if (pg) {
      const pgApp = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: pg.url });
      const pgUncached = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: pg.url, EVT_CACHE: 'off' });
      try {
        const single = (port: number) => ({
          url: `http://127.0.0.1:${port}`,
          paths: sample.map((id) => `/wp-json/evt/events/v1/events/${id}`),
          ...opts,
        });
        await load('warm-up', { ...single(pgApp.port), duration: 2 });
        await load('warm-up', { ...single(pgUncached.port), duration: 2 });
        const c2: Figures = await loadOn(bare.proc.pid!, '(c) bare Express res.json', { url: `http://127.0.0.1:${bare.port}/bare`, ...opts });
        const pa = await loadOn(pgApp.proc.pid!, '(a) single event read, PostgreSQL', single(pgApp.port));
        const pb = await loadOn(pgApp.proc.pid!, '(b) archive, PostgreSQL', { url: `http://127.0.0.1:${pgApp.port}`, paths: [archive], ...opts });
        const pa0 = await loadOn(pgUncached.proc.pid!, '(a) single event read, cache off, PostgreSQL', single(pgUncached.port));
        const pb0 = await loadOn(pgUncached.proc.pid!, '(b) archive, cache off, PostgreSQL', {
          url: `http://127.0.0.1:${pgUncached.port}`,
          paths: [archive],
          ...opts,
        });
        say(`\nPostgreSQL (${pg.origin}; the same site copied), ratios to a (c) measured again beside them`);
        say(table([c2, pa, pb, pa0, pb0], c2));
        say('');
        const rows: [string, Figures, Figures][] = [
          ['(a) single event read', a, pa],
          ['(b) archive, 50 per page', b, pb],
          ['(a) single event read, cache off', a0, pa0],
          ['(b) archive, cache off', b0, pb0],
        ];
        say(`${'side by side: ratio to bare (c) / server CPU us per request'.padEnd(62)} ${'SQLite'.padStart(16)} ${'PostgreSQL'.padStart(16)}`);
        for (const [name, x, y] of rows) {
          const cell = (f: Figures, base: Figures) => `${(f.rps / base.rps).toFixed(2)} / ${(f.cpuUs ?? Number.NaN).toFixed(0)}`.padStart(16);
          say(`${name.padEnd(62)} ${cell(x, c)} ${cell(y, c2)}`);
        }
      } finally {
        // Gone before their database is dropped (a forced drop would end their connections under them).
        await Promise.all([pgApp, pgUncached].map((t) => new Promise((done) => (t.proc.once('exit', done), t.proc.kill()))));
      }
    }
  } finally {
    stopTargets(dir, bare, app, uncached);
    pg?.close();
  }
}

runBench(main);
