import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { openDatabase } from '../../../server/db/connection.ts';
import type { PgDb } from '../../../server/db/engine/postgres.ts';
import { freshTestDatabase, ensureTestCluster, type PrivateCluster } from '../../helpers/pg-cluster.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

// The attendee change cursor on PostgreSQL (migrations-pg/018, 025, 027): a change notes its attendee, per
// statement, with its transaction; the transaction's first deferred firing at COMMIT numbers every noted attendee
// once, in one move of the counter. What a rolled-back savepoint noted is gone with it; what a statement sets to
// the same value is noted all the same (checkin-lists.ts sends a list's attendees to kiosks again that way).

let cluster: PrivateCluster | undefined;
let db: PgDb;
let drop: () => void;
let ids: number[];

beforeAll(async () => {
  cluster = await ensureTestCluster();
  const fresh = await freshTestDatabase();
  drop = fresh.drop;
  db = (await openDatabase(fresh.url)) as PgDb;
  ids = (await seedTicketsFixture(db, { attendees: 40 })).attendeeIds;
}, 120_000);

afterAll(async () => {
  await db?.close();
  drop?.();
  cluster?.stop();
});

const cursor = async () => Number((await db.native("SELECT value FROM sequences WHERE name = 'attendee_change'"))[0]?.value);
const numbered = async (from: number) =>
  (await db.native('SELECT post_id FROM attendee_cursor WHERE change_seq > $1 ORDER BY post_id', [String(from)])).map((r) => Number(r.post_id));
const list = (xs: number[]) => `{${xs.join(',')}}`;

test("a transaction's changes are numbered once each at COMMIT, a rolled-back savepoint's not at all", async () => {
  const before = await cursor();
  const first = ids.slice(0, 25);
  const undone = ids.slice(30, 33);
  const kept = ids.slice(25, 27);
  await db.transaction(async () => {
    await db.native('UPDATE attendees SET checked_in = 1 WHERE post_id = ANY($1::bigint[])', [list(first)]);
    await assert.rejects(
      db.transaction(async () => {
        await db.native('UPDATE attendees SET full_name = full_name WHERE post_id = ANY($1::bigint[])', [list(undone)]);
        throw new Error('undo this level');
      }),
      /undo this level/,
    );
    // The same value written again: noted all the same.
    await db.native('UPDATE attendees SET email = email WHERE post_id = ANY($1::bigint[])', [list(kept)]);
    // Nothing is numbered before the COMMIT.
    assert.equal(await cursor(), before);
  });
  assert.equal(await cursor(), before + first.length + kept.length);
  assert.deepEqual(
    await numbered(before),
    [...first, ...kept].sort((a, b) => a - b),
  );
  assert.equal(Number((await db.native('SELECT count(*) AS n FROM evt_attendee_dirty'))[0]?.n), 0, 'no note left behind');
  assert.equal(Number((await db.native('SELECT count(*) AS n FROM evt_dirty_transactions'))[0]?.n), 0, 'no transaction left noted');
});

test('a rolled-back transaction numbers nothing; the next one numbers its own', async () => {
  const before = await cursor();
  await assert.rejects(
    db.transaction(async () => {
      await db.native('UPDATE attendees SET checked_in = 0 WHERE post_id = ANY($1::bigint[])', [list(ids.slice(0, 5))]);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal(await cursor(), before);
  await db.transaction(async () => {
    await db.native('UPDATE attendees SET checked_in = 0 WHERE post_id = $1', [String(ids[39])]);
  });
  assert.equal(await cursor(), before + 1);
  assert.deepEqual(await numbered(before), [ids[39]]);
});
