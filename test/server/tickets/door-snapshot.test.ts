import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertAttendees, insertTicket, seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { createApiKey } from '../../../server/auth/credentials.ts';
import { DoorSnapshot, DoorSnapshotRows } from '../../../shared/models/tickets.ts';
import { DOOR_SNAPSHOT_LIMIT, DOOR_SNAPSHOT_ROW_FIELDS } from '../../../shared/routes/tickets.ts';
import { hashSecurityCode } from '../../../shared/checkin/security-code.ts';

/**
 * `GET /attendees/door-snapshot` (issue 22): a door device's first download in slices keyed by attendee ID. It
 * must give exactly what the paged list's `changed_since=0&door=1` gives, to exactly the same callers.
 */

let s: TestServer;
let f: TicketsFixture;
let other: TicketsFixture;
let A: string;
const bearer = (k: string) => `Bearer ${k}`;
const snap = (query: string, auth?: string) => call(`${A}/door-snapshot?${query}`, { auth });
type Slice = { status: number; body: DoorSnapshot; headers: Headers; text: string };

/** Every slice from the start, `limit` at a time, with what happens between slices. */
async function all(eventId: number, auth: string, limit: number, between?: (slice: number) => Promise<void>) {
  const out: DoorSnapshot['attendees'] = [];
  let after = 0;
  let cursor: string | null = null;
  for (let i = 0; ; i++) {
    const r = (await snap(`post_id=${eventId}&after_id=${after}&limit=${limit}`, auth)) as Slice;
    assert.equal(r.status, 200, r.text);
    DoorSnapshot.parse(r.body);
    cursor ??= r.headers.get('x-evt-cursor');
    // The next slice's start in a header too, so a kiosk can ask for it before reading this body.
    assert.equal(r.headers.get('x-evt-next-after-id'), r.body.next_after_id === null ? null : String(r.body.next_after_id));
    out.push(...r.body.attendees);
    if (r.body.next_after_id === null) break;
    after = r.body.next_after_id;
    await between?.(i);
  }
  return { attendees: out, cursor };
}

/**
 * The paged list's first download, as the kiosk made it before this route, with the security code as the hash
 * the kiosk keeps of it (what the snapshot sends instead of the code).
 */
async function paged(eventId: number, auth: string) {
  const r = await call(`${A}?post_id=${eventId}&per_page=100&changed_since=0&door=1`, { auth });
  assert.equal(r.status, 200, r.text);
  return (r.body.attendees as Array<Record<string, unknown> & { id: number; security_code?: string }>).map(({ security_code, ...a }) => ({
    ...a,
    security_code_hash: security_code ? hashSecurityCode(a.id, security_code) : null,
  }));
}

beforeAll(async () => {
  s = await startTestServer();
  A = `${s.root}evt/tickets/v1/attendees`;
  f = await seedTicketsFixture(s.db, { attendees: 23 });
  other = await seedTicketsFixture(s.db, { attendees: 3 });
});
afterAll(() => s.close());

describe('door snapshot', () => {
  test('gives what the paged list gives (door fields, trashed included), in ID order, in slices', async () => {
    const key = await s.apiKey('Snapshot door', f.eventId);
    await s.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(f.attendeeIds[4]);
    const list = await paged(f.eventId, bearer(key.key));
    const { attendees, cursor } = await all(f.eventId, bearer(key.key), 5);
    assert.deepEqual(attendees, list);
    // The hash the kiosk keeps, never the code itself.
    assert.ok(attendees.every((a) => !('security_code' in a) && /^[0-9a-f]{64}$/.test(a.security_code_hash ?? '')));
    assert.equal(attendees.find((a) => a.id === f.attendeeIds[4])?.status, 'trash');
    assert.deepEqual(
      attendees.map((a) => a.id),
      [...f.attendeeIds].sort((a, b) => a - b),
    );
    assert.ok(Number(cursor) > 0);
    // One slice of everything, with the total.
    const whole = (await snap(`post_id=${f.eventId}`, bearer(key.key))) as Slice;
    assert.equal(whole.body.total, f.attendeeIds.length);
    assert.equal(whole.body.next_after_id, null);
    assert.deepEqual(whole.body.attendees, list);
    // A full last slice says there may be more; the next one is empty and ends the download.
    const exact = (await snap(`post_id=${f.eventId}&limit=${f.attendeeIds.length}`, bearer(key.key))) as Slice;
    assert.equal(exact.body.next_after_id, Math.max(...f.attendeeIds));
    const end = (await snap(`post_id=${f.eventId}&after_id=${exact.body.next_after_id}`, bearer(key.key))) as Slice;
    assert.deepEqual([end.body.attendees, end.body.next_after_id], [[], null]);
  });

  test('form=rows: the same attendees as the object form, each an array of `fields`, each ticket once in `tickets`', async () => {
    const key = bearer((await s.apiKey('Rows door', f.eventId)).key);
    // A standing check-in with its details, and a trashed attendee, are in the rows as in the objects.
    const checked = await call(`${A}/${f.attendeeIds[2]}`, { method: 'POST', auth: s.admin, body: { check_in: 1, device_id: 'door-rows' } });
    assert.ok(checked.status < 300, checked.text);
    for (const limit of [4, DOOR_SNAPSHOT_LIMIT]) {
      const objects = await all(f.eventId, key, limit);
      // Still what the paged list gives, the standing check-in's details included.
      assert.deepEqual(objects.attendees, await paged(f.eventId, key));
      const fromRows: DoorSnapshot['attendees'] = [];
      let after = 0;
      let cursor: string | null = null;
      for (;;) {
        const r = await snap(`post_id=${f.eventId}&after_id=${after}&limit=${limit}&form=rows`, key);
        assert.equal(r.status, 200, r.text);
        const body = DoorSnapshotRows.parse(r.body);
        cursor ??= r.headers.get('x-evt-cursor');
        assert.deepEqual(body.fields, [...DOOR_SNAPSHOT_ROW_FIELDS]);
        assert.ok(!('attendees' in body));
        for (const row of body.rows) {
          const a = Object.fromEntries(body.fields.map((name, i) => [name, row[i]])) as Record<string, unknown>;
          const { ticket_id } = a as { ticket_id: number };
          fromRows.push({ ...a, ticket: body.tickets[String(ticket_id)] } as DoorSnapshot['attendees'][number]);
        }
        if (body.next_after_id === null) break;
        after = body.next_after_id;
      }
      // Key order aside, the same objects.
      const sorted = (xs: object[]) => xs.map((x) => JSON.stringify(Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))));
      assert.deepEqual(sorted(fromRows), sorted(objects.attendees));
      assert.equal(cursor, objects.cursor);
      assert.ok(fromRows.some((a) => a.checked_in && a.checkin_details));
    }
    // Unknown forms are refused as any bad parameter.
    const bad = await snap(`post_id=${f.eventId}&form=columns`, key);
    assert.equal(bad.status, 400, bad.text);
  });

  test('attendees added or trashed between slices: nothing lost, nothing twice, the rest comes in the delta', async () => {
    const fx = await seedTicketsFixture(s.db, { attendees: 10 });
    const auth = bearer((await s.apiKey('Paging door', fx.eventId)).key);
    let added: number[] = [];
    const { attendees, cursor } = await all(fx.eventId, auth, 3, async (i) => {
      if (i === 0) {
        // Behind the boundary (already sent): trashed; ahead of it: trashed; and two new attendees.
        await s.db.prepare("UPDATE posts SET status = 'trash' WHERE id IN (?, ?)").run(fx.attendeeIds[0], fx.attendeeIds[8]);
        added = (await insertAttendees(s.db, fx.ticketId, 2)).attendeeIds;
      }
    });
    const got = attendees.map((a) => a.id);
    assert.equal(new Set(got).size, got.length, 'no attendee twice');
    assert.deepEqual(
      got,
      [...fx.attendeeIds, ...added].sort((a, b) => a - b),
    );
    assert.equal(attendees.find((a) => a.id === fx.attendeeIds[8])?.status, 'trash');
    // What changed behind the boundary after the first slice's cursor comes in the next delta.
    const delta = await call(`${A}?post_id=${fx.eventId}&per_page=100&changed_since=${cursor}&door=1`, { auth });
    const changed = (delta.body.attendees as Array<{ id: number; status: string }>).map((a) => [a.id, a.status]);
    assert.deepEqual(
      changed.find(([id]) => id === fx.attendeeIds[0]),
      [fx.attendeeIds[0], 'trash'],
    );
  });

  test('access: anonymous 401, another event\u2019s key sees nothing, a list-bound key sees its list only', async () => {
    const anon = await snap(`post_id=${f.eventId}`);
    assert.equal(anon.status, 401, anon.text);
    assert.equal((anon.body as { code: string }).code, 'rest_forbidden');
    const foreign = await s.apiKey('Other door', other.eventId);
    const none = (await snap(`post_id=${f.eventId}`, bearer(foreign.key))) as Slice;
    assert.equal(none.status, 200);
    assert.deepEqual([none.body.attendees, none.body.total, none.body.next_after_id], [[], 0, null]);
    const vipTicket = await insertTicket(s.db, f.eventId, { title: 'VIP snapshot' });
    const vip = await insertAttendees(s.db, vipTicket, 4);
    const list = await call(`${s.root}evt/tickets/v1/checkin-lists`, {
      method: 'POST',
      auth: s.admin,
      body: { event_id: f.eventId, name: 'VIP gate', ticket_ids: [vipTicket] },
    });
    assert.equal(list.status, 201, list.text);
    const gate = await createApiKey(s.db, 'VIP gate door', f.eventId, null, (list.body as { id: number }).id);
    const { attendees } = await all(f.eventId, bearer(gate.key), 2);
    assert.deepEqual(
      attendees.map((a) => a.id),
      vip.attendeeIds,
    );
    // An administrator and an unscoped door key read the whole event.
    const { attendees: everyone } = await all(f.eventId, s.admin, DOOR_SNAPSHOT_LIMIT);
    assert.ok(everyone.length > f.attendeeIds.length);
  });

  test('bad input answers 400 in the error envelope', async () => {
    const auth = s.admin;
    for (const q of [
      '',
      'post_id=abc',
      `post_id=${f.eventId}&limit=0`,
      `post_id=${f.eventId}&limit=${DOOR_SNAPSHOT_LIMIT + 1}`,
      `post_id=${f.eventId}&after_id=-1`,
      `post_id=${f.eventId}&after_id=1.5`,
    ]) {
      const r = await snap(q, auth);
      assert.equal(r.status, 400, `${q}: ${r.text}`);
      const body = r.body as { code: string; message: string; data: { status: number } };
      assert.match(body.code, /^rest_/);
      assert.equal(typeof body.message, 'string');
      assert.equal(body.data.status, 400);
    }
    // A post that does not exist is an invalid parameter, as on the list.
    const missing = await snap('post_id=999999999', auth);
    assert.equal(missing.status, 400, missing.text);
    assert.equal((missing.body as { code: string }).code, 'rest_invalid_param');
  });
});
