import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { openDatabase } from '../../../server/db/connection.ts';
import { inJson, type Sql, sql, sqlFor } from '../../../server/db/engine/sql.ts';
import { numberParams } from '../../../server/db/engine/pg-params.ts';
import type { PgDb } from '../../../server/db/engine/postgres.ts';
import { freshTestDatabase, ensureTestCluster, type PrivateCluster } from '../../helpers/pg-cluster.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';
import { PG_READ_SCANS } from '../../../server/db/repos/attendees.ts';
import { PG_CART_TICKETS } from '../../../server/db/repos/checkout.ts';

// Lists of IDs travel as one JSON parameter (inJson, engine/sql.ts). PostgreSQL plans a set-returning function
// as 100 rows, so a form that keeps it in FROM makes a semi join over the whole table: every attendee read to look
// at one ticket's (30 ms of PostgreSQL CPU per checkout at 20,000 attendees). The statements of the checkout path
// must use their index for a short list, as SQLite does.

let cluster: PrivateCluster | undefined;
let db: PgDb;
let drop: () => void;
let url: string;
let ticketId: number;
let eventId: number;

beforeAll(async () => {
  cluster = await ensureTestCluster();
  const fresh = await freshTestDatabase();
  drop = fresh.drop;
  url = fresh.url;
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

// A statement's generic plan is cached per connection with the statistics of when it was made. Made at the start
// of an evening, with `checkins` a few hundred rows, a batch's read of its attendees and nonces hashed the whole
// of `checkins` (a sequential scan) at every batch as it grew, until an ANALYZE came (31 ms at 16,000 rows, seen
// with auto_explain in bench:scale). The check-in and the nonces are looked up by key (PG_CORE_JOINS' fenced
// LATERALs), whatever the plan was made with. Seen failing with the plain joins and `k.nonce = ANY($2)` put back.
test("a batch's attendee read keeps its index lookups as checkins grows under a plan cached while it was small", async () => {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ALTER TABLE checkins SET (autovacuum_enabled = false)');
    const fill = (from: number, to: number) =>
      client.query(
        `INSERT INTO checkins (attendee_id, event_id, result, scanned_at, received_at, nonce, source)
         SELECT g, $3, 'rejected', '2026-01-01 00:00:00', '2026-01-01 00:00:00', 'n-' || g, 'test' FROM generate_series($1::bigint, $2::bigint) AS g`,
        [from, to, eventId],
      );
    await fill(1, 600);
    await client.query('ANALYZE checkins');
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE scans(bigint[], text[]) AS ${PG_READ_SCANS}`);
    const ids = (await client.query('SELECT array_agg(post_id) AS ids FROM (SELECT post_id FROM attendees ORDER BY post_id LIMIT 25) x')).rows[0].ids;
    const args = `'{${ids.join(',')}}', '{n-1,n-2,n-3}'`;
    await client.query(`EXECUTE scans(${args})`);
    await fill(601, 20_600);
    const planned = (await client.query(`EXPLAIN EXECUTE scans(${args})`)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    assert.doesNotMatch(planned, /Seq Scan on checkins/, planned);
    assert.match(planned, /Index Scan using checkins_nonce/, planned);
  } finally {
    await client.query('DELETE FROM checkins').catch(() => undefined);
    await client.query('ALTER TABLE checkins RESET (autovacuum_enabled)').catch(() => undefined);
    await client.end();
  }
});

// A ticket's places are counted by evt_places_taken (migrations-pg/026), planned for the ticket at each call. In
// the statement, planned once per connection for any ticket, the count of a new ticket on a site whose
// statistics say one ticket has every attendee read the whole of `attendees` (auto_explain in bench:scale: 8-11 ms
// per cart write and per checkout at 20,000 attendees, to find none). Seen failing with the count inlined again.
test("a new ticket's places are counted through its index when the statistics say one ticket has every attendee", async () => {
  const fresh = await freshTestDatabase();
  const own = (await openDatabase(fresh.url)) as PgDb;
  const { Client } = await import('pg');
  const client = new Client({ connectionString: fresh.url });
  try {
    await seedTicketsFixture(own, { attendees: 3000, provider: 'tc', priceMinor: 1000 });
    await own.native('ANALYZE');
    const added = await seedTicketsFixture(own, { attendees: 0, provider: 'tc', priceMinor: 1000 });
    await client.connect();
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE cart_tickets(bigint[], text) AS ${PG_CART_TICKETS}`);
    const args = `'{${added.ticketId}}', '2026-01-01 00:00:00'`;
    await client.query(`EXECUTE cart_tickets(${args})`);
    const explained = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE cart_tickets(${args})`)).rows[0]['QUERY PLAN'];
    const top = (explained as { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[])[0]!.Plan;
    const pages = Number((await client.query("SELECT relpages FROM pg_class WHERE relname = 'attendees'")).rows[0].relpages);
    const touched = top['Shared Hit Blocks'] + top['Shared Read Blocks'];
    assert.ok(pages > 20, `the attendees table spans ${pages} pages`);
    assert.ok(touched < pages / 2, `${touched} buffers touched to count a new ticket's places (attendees: ${pages} pages)`);
  } finally {
    await client.end().catch(() => undefined);
    await own.close();
    fresh.drop();
  }
});
