import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import { systemContext } from '../../server/http/system-context.ts';
import { createEvent } from '../../server/routes/events/event-write.ts';
import { createLinked } from '../../server/routes/events/linked-write.ts';
import { resolveTermRefs } from '../../server/routes/events/refs.ts';
import { TAXONOMY } from '../../server/routes/events/present.ts';
import { formatInZone } from '../../shared/dates.ts';
import { rng } from '../../shared/random.ts';
import { load, startTarget, table, type Figures } from './bench-util.ts';

/**
 * npm run bench:server: seeds 10,000 events, then measures with autocannon on 127.0.0.1, in one run,
 * (a) a single event read, (b) an events archive page of 50 with a category and a date filter, and
 * (c) a bare Express res.json route, printing each as a ratio to (c). Targets: (a) >= 0.5, (b) >= 0.25.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-bench-'));
const dbFile = path.join(dir, 'bench.sqlite');

function seed(): { eventIds: number[] } {
  const db = openDatabase(dbFile);
  const config = loadConfig({ EVT_DB: dbFile, EVT_LOG: 'off' });
  const admin = insertUser(db, { login: 'bench', email: 'bench@example.test', role: 'administrator' });
  const ctx = systemContext(db, config, admin.id);
  const random = rng(42);
  const t0 = performance.now();
  const eventIds = db.transaction(() => {
    const venues = Array.from({ length: 50 }, (_, i) => createLinked(ctx, 'venue', { venue: `Venue ${i}`, city: 'Tallinn', address: `Street ${i}`, geo_lat: 59 + random(), geo_lng: 24 + random() }));
    const organizers = Array.from({ length: 30 }, (_, i) => createLinked(ctx, 'organizer', { organizer: `Organizer ${i}`, email: `o${i}@example.test` }));
    const cats = ['Music', 'Theatre', 'Film', 'Talks', 'Family', 'Sports', 'Food', 'Art'].map((c) => resolveTermRefs(ctx, TAXONOMY.categories, [c], 'categories', true)[0]);
    const tags = Array.from({ length: 20 }, (_, i) => resolveTermRefs(ctx, TAXONOMY.tags, [`tag-${i}`], 'tags', true)[0]);
    const ids: number[] = [];
    const now = Date.now();
    for (let i = 0; i < EVENTS; i++) {
      const start = formatInZone(new Date(now + Math.floor(random() * 365 * 86400_000)), 'UTC').slice(0, 13) + ':00:00';
      ids.push(
        createEvent(ctx, {
          title: `Event ${i}`,
          description: `Description of event ${i}.\n\nA second paragraph with more words about the evening.`,
          start_date: start,
          end_date: start.slice(0, 11) + '23:00:00',
          cost: String(5 + (i % 30)),
          venue: venues[i % venues.length],
          organizer: [organizers[i % organizers.length]],
          categories: [cats[i % cats.length]],
          tags: [tags[i % tags.length], tags[(i * 7) % tags.length]],
          featured: i % 17 === 0,
        }),
      );
    }
    return ids;
  })();
  process.stdout.write(`seeded ${EVENTS} events in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  db.close();
  return { eventIds };
}

async function main(): Promise<void> {
  const { eventIds } = seed();
  const bare = await startTarget(path.join(import.meta.dirname, 'bare-target.ts'), {});
  const app = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile });
  const uncached = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile, EVT_CACHE: 'off' });
  const sample = Array.from({ length: 200 }, (_, i) => eventIds[(i * 7919) % eventIds.length]);
  const from = formatInZone(new Date(), 'UTC').slice(0, 10);
  const to = formatInZone(new Date(Date.now() + 200 * 86400_000), 'UTC').slice(0, 10);
  const archive = `/wp-json/evt/events/v1/events?per_page=50&categories=music&start_date=${from}&end_date=${to}`;
  const check = await fetch(`http://127.0.0.1:${app.port}${archive}`).then((r) => r.json() as Promise<{ events: unknown[]; total: number }>);
  process.stdout.write(`archive query returns ${check.events.length} of ${check.total} matching events\n`);
  try {
    const opts = { connections: CONNECTIONS, duration: DURATION };
    // Warm up both servers so JIT and SQLite caches are comparable.
    await load('warm-up', { url: `http://127.0.0.1:${bare.port}/bare`, ...opts, duration: 2 });
    await load('warm-up', { url: `http://127.0.0.1:${app.port}`, paths: sample.map((id) => `/wp-json/evt/events/v1/events/${id}`), ...opts, duration: 2 });
    const c: Figures = await load('(c) bare Express res.json', { url: `http://127.0.0.1:${bare.port}/bare`, ...opts });
    const a = await load('(a) single event read', { url: `http://127.0.0.1:${app.port}`, paths: sample.map((id) => `/wp-json/evt/events/v1/events/${id}`), ...opts });
    const b = await load('(b) archive, 50 per page, category + dates', { url: `http://127.0.0.1:${app.port}`, paths: [archive], ...opts });
    // The same reads with the response cache off: every request runs the query and presents the events.
    const a0 = await load('(a) single event read, cache off', { url: `http://127.0.0.1:${uncached.port}`, paths: sample.map((id) => `/wp-json/evt/events/v1/events/${id}`), ...opts });
    const b0 = await load('(b) archive, cache off', { url: `http://127.0.0.1:${uncached.port}`, paths: [archive], ...opts });
    process.stdout.write(`\n${EVENTS} events, ${CONNECTIONS} connections, ${DURATION} s each, autocannon on 127.0.0.1, ${os.cpus().length} cores\n`);
    process.stdout.write(table([c, a, b, a0, b0], c) + '\n\n');
    const ra = a.rps / c.rps;
    const rb = b.rps / c.rps;
    process.stdout.write(`target (a) >= 0.50 of bare: ${ra.toFixed(2)} ${ra >= 0.5 ? 'MET' : 'MISSED'}\n`);
    process.stdout.write(`target (b) >= 0.25 of bare: ${rb.toFixed(2)} ${rb >= 0.25 ? 'MET' : 'MISSED'}\n`);
  } finally {
    bare.proc.kill();
    app.proc.kill();
    uncached.proc.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
