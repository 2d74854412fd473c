import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Db } from '../../../server/db/connection.ts';
import { engineOf } from '../../../server/db/engine/types.ts';
import { createApiKey } from '../../../server/auth/credentials.ts';
import { sweepHolds } from '../../../server/routes/tickets/order-hold.ts';
import { insertAttendees, seedTicketsFixture } from '../../helpers/tickets-fixture.ts';
import { call } from '../../helpers/server.ts';
import { startTwoApps, type TwoApps } from './two-apps.ts';

/**
 * The change log with a batch (issue 15 item 3): a batch's synchronous items share one transaction, and append
 * ONE row for it (the union of what its committed items changed), not one per item, which on PostgreSQL was a
 * round trip per check-in. Another process must still see every change the batch made. Writes outside the
 * dispatcher (the order-hold sweep) append their row in the transaction of the write.
 */

async function withTwo<T>(f: (t: TwoApps) => Promise<T>): Promise<T> {
  const t = await startTwoApps('database');
  try {
    return await f(t);
  } finally {
    await t.close();
  }
}

const lastSeq = async (db: Db) => ((await db.prepare('SELECT MAX(seq) AS s FROM evt_change_log').get()) as { s: number | null }).s ?? 0;
const rowsAfter = async (db: Db, seq: number) =>
  (await db.prepare('SELECT tags FROM evt_change_log WHERE seq > ? ORDER BY seq').all(seq)) as { tags: string }[];

const checkIn = (id: number) => ({
  method: 'PATCH',
  path: `/evt/tickets/v1/attendees/${id}`,
  body: { check_in: true, device_id: 'door-a', nonce: crypto.randomUUID() },
});

async function batch(root: string, auth: string, requests: unknown[]): Promise<number[]> {
  const r = await call(`${root}batch/v1`, { method: 'POST', auth, body: { requests } });
  assert.equal(r.status, 207, JSON.stringify(r.body));
  return (r.body.responses as { status: number }[]).map((x) => x.status);
}

describe('change log: a batch appends one row', () => {
  test('a batch of 10 check-ins appends exactly one change-log row, naming check-ins', () =>
    withTwo(async (t) => {
      const fx = await seedTicketsFixture(t.a.db, { attendees: 10 });
      const door = `Bearer ${(await createApiKey(t.a.db, 'door', fx.eventId, null)).key}`;
      const before = await lastSeq(t.a.db);
      const statuses = await batch(t.a.root, door, fx.attendeeIds.map(checkIn));
      assert.deepEqual(statuses, Array(10).fill(201));
      assert.deepEqual(await rowsAfter(t.a.db, before), [{ tags: '["checkins"]' }]);
      // A single request still appends its own row.
      const single = await call(`${t.a.root}evt/tickets/v1/attendees/${fx.attendeeIds[0]}`, {
        method: 'PATCH',
        auth: door,
        body: { check_in: false, device_id: 'door-a', nonce: crypto.randomUUID() },
      });
      assert.equal(single.status, 201, JSON.stringify(single.body));
      assert.equal((await rowsAfter(t.a.db, before)).length, 2);
    }));

  test("B still sees a batch's invalidations: check-ins alone keep B's cached event, an event edit among them drops it", () =>
    withTwo(async (t) => {
      const fx = await seedTicketsFixture(t.a.db, { attendees: 6, eventTitle: 'Doors open' });
      const admin = (await t.userAuth('administrator', 'admin')).auth;
      const door = `Bearer ${(await createApiKey(t.a.db, 'door', fx.eventId, null)).key}`;
      const title = async () => {
        const r = await call(`${t.b.root}evt/events/v1/events/${fx.eventId}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.title as string;
      };
      const checkedIn = async () => {
        const r = await call(`${t.b.root}evt/tickets/v1/attendees?checkedin=true&per_page=1`, { auth: admin });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.total as number;
      };
      assert.equal(await checkedIn(), 0);
      assert.equal(await checkedIn(), 0);
      assert.equal(await title(), 'Doors open');
      assert.equal(await title(), 'Doors open');
      // Behind the app's back on B's connection: recorded nowhere, so only a dropped cache shows it.
      await t.b.db.prepare('UPDATE posts SET title = ? WHERE id = ?').run('Renamed behind the back', fx.eventId);
      const [a1, a2, a3, a4, a5, a6] = fx.attendeeIds as [number, number, number, number, number, number];
      assert.deepEqual(await batch(t.a.root, door, [checkIn(a1), checkIn(a2)]), [201, 201]);
      assert.equal(await title(), 'Doors open', 'check-ins alone leave the cached event');
      assert.equal(await checkedIn(), 2);

      // A failing item (rolled back to its savepoint) between committed ones: nothing of B goes stale.
      const statuses = await batch(t.a.root, admin, [
        checkIn(a3),
        { method: 'PATCH', path: '/evt/events/v1/events/999999', body: { title: 'No such event' } },
        { method: 'PATCH', path: `/evt/events/v1/events/${fx.eventId}`, body: { title: 'Edited in a batch' } },
        checkIn(a4),
      ]);
      assert.equal(statuses[0], 201);
      assert.ok(statuses[1] >= 400, `the missing event fails (${statuses[1]})`);
      assert.deepEqual([statuses[2], statuses[3]], [200, 201]);
      assert.equal(await title(), 'Edited in a batch', "the edit among check-ins dropped B's cached event");

      // The edit fails and rolls back, then check-ins commit: B keeps answering what the database holds.
      assert.equal(await title(), 'Edited in a batch');
      const failed = await batch(t.a.root, admin, [
        { method: 'PATCH', path: `/evt/events/v1/events/${fx.eventId}`, body: { title: 'Never saved', status: 'no-such-status' } },
        checkIn(a5),
        checkIn(a6),
      ]);
      assert.ok(failed[0]! >= 400, `the invalid edit fails (${failed[0]})`);
      assert.deepEqual(failed.slice(1), [201, 201]);
      assert.equal(await title(), 'Edited in a batch');
      assert.equal(await checkedIn(), 6, "B's remembered count saw every batch's check-ins");
    }));
});

describe('change log: writes outside the dispatcher', () => {
  test("the order-hold sweep's row commits with the cancellations: a failed append leaves the order pending", () =>
    withTwo(async (t) => {
      const fx = await seedTicketsFixture(t.a.db, { attendees: 1 });
      const { orderId } = await insertAttendees(t.a.db, fx.ticketId, 1, { orderStatus: 'pending' });
      await t.a.db.prepare('UPDATE orders SET hold_until_utc = ? WHERE post_id = ?').run('2000-01-01 00:00:00', orderId);
      const status = async () => ((await t.a.db.prepare('SELECT status FROM orders WHERE post_id = ?').get(orderId)) as { status: string }).status;
      const pg = engineOf(t.a.db) === 'postgres';
      const native = (sql: string) => (t.a.db as unknown as { native: (s: string) => Promise<unknown> }).native(sql);
      // The change log refuses rows (a crash between the write and its row, made repeatable).
      if (pg) {
        await native(`CREATE FUNCTION evt_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'change log refused'; END $$;
          CREATE TRIGGER evt_test_refuse BEFORE INSERT ON evt_change_log FOR EACH ROW EXECUTE FUNCTION evt_test_refuse()`);
      } else {
        await t.a.db.exec("CREATE TRIGGER evt_test_refuse BEFORE INSERT ON evt_change_log BEGIN SELECT RAISE(ABORT, 'change log refused'); END");
      }
      const before = await lastSeq(t.a.db);
      await assert.rejects(() => sweepHolds(t.a.app.state), /change log refused/);
      assert.equal(await status(), 'pending', 'no cancellation without its change-log row');
      if (pg) await native('DROP TRIGGER evt_test_refuse ON evt_change_log');
      else await t.a.db.exec('DROP TRIGGER evt_test_refuse');
      const out = await sweepHolds(t.a.app.state);
      assert.deepEqual(out?.cancelled, [orderId]);
      assert.equal(await status(), 'cancelled');
      assert.deepEqual(await rowsAfter(t.a.db, before), [{ tags: '["tickets"]' }]);
    }));
});
