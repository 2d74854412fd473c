import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { openDatabase } from '../../../server/db/connection.ts';
import { inJson, type Sql, sql, sqlFor } from '../../../server/db/engine/sql.ts';
import { numberParams } from '../../../server/db/engine/pg-params.ts';
import type { PgDb } from '../../../server/db/engine/postgres.ts';
import { freshTestDatabase, ensureTestCluster, type PrivateCluster } from '../../helpers/pg-cluster.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

// Lists of IDs travel as one JSON parameter (inJson, engine/sql.ts). PostgreSQL plans a set-returning function
// as 100 rows, so a form that keeps it in FROM makes a semi join over the whole table: every attendee read to look
// at one ticket's (30 ms of PostgreSQL CPU per checkout at 20,000 attendees). The statements of the checkout path
// must use their index for a short list, as SQLite does.

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

async function plan(s: Sql, values: unknown[]): Promise<string> {
  const rows = (await db.native(`EXPLAIN ${numberParams(sqlFor('postgres', s)).text}`, values)) as { 'QUERY PLAN': string }[];
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

const CASES: [Sql, () => unknown[]][] = [
  [
    sql`SELECT post_id FROM attendees WHERE ${inJson('ticket_id', 'id')} AND status <> 'trash' ORDER BY full_name, post_id`,
    () => [JSON.stringify([ticketId])],
  ],
  [sql`SELECT id, status, password, image_id FROM posts WHERE ${inJson('id', 'id')}`, () => [JSON.stringify([eventId])]],
  [
    sql`SELECT a.post_id FROM attendees a WHERE ${inJson('a.order_id', 'id')} AND ${inJson('a.ticket_id', 'id', true)}`,
    () => [JSON.stringify([1, 2]), JSON.stringify([ticketId])],
  ],
];

test('a list of IDs in a JSON parameter is read through the index, not by a scan of the table', async () => {
  for (const [s, values] of CASES) {
    const p = await plan(s, values());
    const text = sqlFor('postgres', s);
    assert.doesNotMatch(p, /Seq Scan on (?:attendees|posts)\b/, `${text}\n${p}`);
    assert.match(p, /Index (?:Only )?Scan|Bitmap Index Scan/, `${text}\n${p}`);
  }
});

test('the list gives the rows SQLite gives: IN, NOT IN, an empty list, text values', async () => {
  const ids = (await db.native('SELECT post_id FROM attendees ORDER BY post_id LIMIT 3')).map((r) => r.post_id as number);
  const q = async (s: Sql, ...args: unknown[]) => (await db.prepare(s).all(...args)).map((r) => (r as { post_id: number }).post_id);
  const inIds = sql`SELECT post_id FROM attendees WHERE ${inJson('post_id', 'id')} ORDER BY post_id`;
  const notInIds = sql`SELECT post_id FROM attendees WHERE ${inJson('post_id', 'id', true)}`;
  assert.deepEqual(await q(inIds, JSON.stringify(ids)), ids);
  assert.deepEqual(await q(inIds, '[]'), []);
  const total = Number((await db.native('SELECT COUNT(*) AS n FROM attendees'))[0]?.n);
  assert.equal((await q(notInIds, JSON.stringify(ids))).length, total - 3);
  assert.equal((await q(notInIds, '[]')).length, total);
  const statuses = await db
    .prepare(sql`SELECT DISTINCT status FROM posts WHERE ${inJson('status', 'text')} AND status <> 'x' ORDER BY status`)
    .pluck()
    .all(JSON.stringify(['publish', 'nope']));
  assert.deepEqual(statuses, ['publish']);
});
