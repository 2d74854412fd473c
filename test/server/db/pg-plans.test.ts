import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { openDatabase } from '../../../server/db/connection.ts';
import { translate } from '../../../server/db/dialect.ts';
import type { PgDb } from '../../../server/db/engine/postgres.ts';
import { freshTestDatabase, ensureTestCluster, type PrivateCluster } from '../../helpers/pg-cluster.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

// Lists of IDs travel as one JSON parameter (`id IN (SELECT value FROM json_each(?))`). PostgreSQL plans a
// set-returning function as 100 rows, so a translation that keeps it in FROM makes a semi join over the whole
// table: every attendee read to look at one ticket's (30 ms of PostgreSQL CPU per checkout at 20,000 attendees).
// The statements of the checkout path must use their index for a short list, as SQLite does.

let cluster: PrivateCluster | undefined;
let db: PgDb;
let drop: () => void;
let ticketId: number;
let eventId: number;

beforeAll(async () => {
  cluster = await ensureTestCluster();
  const fresh = await freshTestDatabase();
  drop = fresh.drop;
  db = (await openDatabase(fresh.url)) as PgDb;
  for (let i = 0; i < 8; i++) {
    const f = await seedTicketsFixture(db, { attendees: 500, provider: 'tc', priceMinor: 1000 });
    ticketId = f.ticketId;
    eventId = f.eventId;
  }
  await db.native('ANALYZE');
}, 120_000);

afterAll(async () => {
  await db?.close();
  drop?.();
  cluster?.stop();
});

async function plan(sql: string, values: unknown[]): Promise<string> {
  const tr = translate(sql, (t) => db.keyOf(t));
  const rows = (await db.native(`EXPLAIN ${tr.text}`, values)) as { 'QUERY PLAN': string }[];
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

const CASES: [string, () => unknown[]][] = [
  [
    "SELECT post_id FROM attendees WHERE ticket_id IN (SELECT value FROM json_each(?)) AND status <> 'trash' ORDER BY full_name, post_id",
    () => [JSON.stringify([ticketId])],
  ],
  ['SELECT id, status, password, image_id FROM posts WHERE id IN (SELECT value FROM json_each(?))', () => [JSON.stringify([eventId])]],
  [
    'SELECT a.post_id FROM attendees a WHERE a.order_id IN (SELECT value FROM json_each(?)) AND a.ticket_id NOT IN (SELECT value FROM json_each(?))',
    () => [JSON.stringify([1, 2]), JSON.stringify([ticketId])],
  ],
];

test('a list of IDs in a JSON parameter is read through the index, not by a scan of the table', async () => {
  for (const [sql, values] of CASES) {
    const p = await plan(sql, values());
    assert.doesNotMatch(p, /Seq Scan on (?:attendees|posts)\b/, `${sql}\n${p}`);
    assert.match(p, /Index (?:Only )?Scan|Bitmap Index Scan/, `${sql}\n${p}`);
  }
});

test('the rewritten list gives the same rows as before: IN, NOT IN, an empty list, text values', async () => {
  const ids = (await db.native('SELECT post_id FROM attendees ORDER BY post_id LIMIT 3')).map((r) => r.post_id as number);
  const q = async (sql: string, ...args: unknown[]) => (await db.prepare(sql).all(...args)).map((r) => (r as { post_id: number }).post_id);
  assert.deepEqual(
    await q('SELECT post_id FROM attendees WHERE post_id IN (SELECT value FROM json_each(?)) ORDER BY post_id', JSON.stringify(ids)),
    ids,
  );
  assert.deepEqual(await q('SELECT post_id FROM attendees WHERE post_id IN (SELECT value FROM json_each(?)) ORDER BY post_id', '[]'), []);
  const total = Number((await db.native('SELECT COUNT(*) AS n FROM attendees'))[0]?.n);
  assert.equal(
    (await q('SELECT post_id FROM attendees WHERE post_id NOT IN (SELECT value FROM json_each(?))', JSON.stringify(ids))).length,
    total - 3,
  );
  assert.equal((await q('SELECT post_id FROM attendees WHERE post_id NOT IN (SELECT value FROM json_each(?))', '[]')).length, total);
  const statuses = await db
    .prepare("SELECT DISTINCT status FROM posts WHERE status IN (SELECT value FROM json_each(?)) AND status <> 'x' ORDER BY status")
    .pluck()
    .all(JSON.stringify(['publish', 'nope']));
  assert.deepEqual(statuses, ['publish']);
});
