import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { insertTicket, seedTicketsFixture, type TicketsFixture } from '../helpers/tickets-fixture.ts';

/**
 * Issue 10 item 7 (CONTRACT section 3): a door user or any API key changes check-in state only (`check_in`,
 * `check_in_date`, `device_id`, `nonce`) and creates attendees at the door; `attendee_status`, `email`,
 * `full_name`, `ticket_id` and order status are `403 rest_forbidden` and change nothing.
 */

let s: TestServer;
let f: TicketsFixture;
let otherTicket: number;
let doors: Record<string, string>;
let n = 0;
const nonce = () => `door-limits-nonce-${String(++n).padStart(6, '0')}`;
const T = () => `${s.root}evt/tickets/v1`;

/** The attendee and its order as stored, to prove a refused write changed nothing. */
const snapshot = async (id: number) =>
  JSON.stringify([
    await s.db.prepare('SELECT * FROM attendees WHERE post_id = ?').get(id),
    await s.db.prepare('SELECT title, modified FROM posts WHERE id = ?').get(id),
    await s.db.prepare('SELECT status FROM orders WHERE post_id = (SELECT order_id FROM attendees WHERE post_id = ?)').get(id),
  ]);
const count = async (sql: string, ...p: unknown[]) => ((await s.db.prepare(sql).get(...p)) as { n: number }).n;

beforeAll(async () => {
  s = await startTestServer();
  f = await seedTicketsFixture(s.db, { attendees: 20 });
  otherTicket = await insertTicket(s.db, f.eventId, { title: 'VIP' });
  doors = {
    'door user': await s.userAuth('door'),
    'unscoped key': `Bearer ${(await s.apiKey('Door')).key}`,
    "the event's key": `Bearer ${(await s.apiKey('Bound', f.eventId)).key}`,
  };
});
afterAll(() => s.close());

const refusedEdits: [string, Record<string, unknown>][] = [
  ['attendee_status', { attendee_status: 'refunded' }],
  ['attendee_status with a check-in', { attendee_status: 'completed', check_in: true }],
  ['email', { email: 'changed@example.test' }],
  ['full_name', { full_name: 'Someone Else' }],
  ['full_name with a check-in', { full_name: 'Someone Else', check_in: true }],
  ['ticket_id', { ticket_id: 0 }],
  ['order_status', { order_status: 'cancelled' }],
];

describe('door callers change check-in state only', () => {
  for (const [what, body] of refusedEdits) {
    test(`${what}: 403 rest_forbidden for every door caller, nothing changes`, async () => {
      const id = f.attendeeIds[0];
      const payload = 'ticket_id' in body ? { ...body, ticket_id: otherTicket } : body;
      for (const [who, auth] of Object.entries(doors)) {
        const before = await snapshot(id);
        const logBefore = await count('SELECT COUNT(*) AS n FROM checkins');
        for (const method of ['PATCH', 'POST', 'PUT']) {
          const r = await call(`${T()}/attendees/${id}`, { method, auth, body: payload });
          assert.equal(r.status, 403, `${who} ${method} ${what}: ${r.text}`);
          assert.equal(r.body.code, 'rest_forbidden');
        }
        // The same through a batch.
        const b = await call(`${s.root}batch/v1`, {
          method: 'POST',
          auth,
          body: { requests: [{ method: 'PATCH', path: `/evt/tickets/v1/attendees/${id}`, body: payload }] },
        });
        assert.equal(b.body.responses[0].status, 403, `${who} batch ${what}`);
        assert.equal(b.body.responses[0].body.code, 'rest_forbidden');
        assert.equal(await snapshot(id), before, `${who} ${what} changed the attendee`);
        assert.equal(await count('SELECT COUNT(*) AS n FROM checkins'), logBefore, `${who} ${what} logged a scan`);
      }
    });
  }

  test('order status: 403 rest_forbidden, the order is unchanged', async () => {
    for (const [who, auth] of Object.entries(doors)) {
      const r = await call(`${T()}/orders/${f.orderId}`, { method: 'PATCH', auth, body: { status: 'refunded' } });
      assert.equal(r.status, 403, who);
      assert.equal(r.body.code, 'rest_forbidden');
    }
    assert.equal(await count("SELECT COUNT(*) AS n FROM orders WHERE post_id = ? AND status = 'completed'", f.orderId), 1);
  });

  test('check-in state is theirs: check in, check out, with date, device and nonce', async () => {
    let i = 1;
    for (const [who, auth] of Object.entries(doors)) {
      const id = f.attendeeIds[i++];
      const r = await call(`${T()}/attendees/${id}`, {
        method: 'PATCH',
        auth,
        body: { check_in: true, check_in_date: '2026-05-01T19:00:00+02:00', device_id: 'door-7', nonce: nonce() },
      });
      assert.equal(r.status, 201, `${who}: ${r.text}`);
      assert.equal(r.body.checked_in, true);
      const out = await call(`${T()}/attendees/${id}`, { method: 'PATCH', auth, body: { check_in: false, nonce: nonce() } });
      assert.equal(out.status, 201, `${who}: ${out.text}`);
      assert.equal(out.body.checked_in, false);
    }
  });

  test('creating at the door is theirs; a non-default attendee_status on it is an order-status change: 403', async () => {
    for (const [who, auth] of Object.entries(doors)) {
      const before = await count('SELECT COUNT(*) AS n FROM attendees');
      for (const status of ['pending', 'refunded', 'cancelled']) {
        const r = await call(`${T()}/attendees`, {
          method: 'POST',
          auth,
          body: { ticket_id: f.ticketId, full_name: 'Walk In', email: 'walk@in.test', attendee_status: status },
        });
        assert.equal(r.status, 403, `${who} ${status}: ${r.text}`);
        assert.equal(r.body.code, 'rest_forbidden');
      }
      assert.equal(await count('SELECT COUNT(*) AS n FROM attendees'), before, who);
      const plain = await call(`${T()}/attendees`, {
        method: 'POST',
        auth,
        body: { ticket_id: f.ticketId, full_name: 'Walk In', email: 'walk@in.test', check_in: true },
      });
      assert.equal(plain.status, 201, `${who}: ${plain.text}`);
      assert.equal(plain.body.checked_in, true);
      const explicit = await call(`${T()}/attendees`, {
        method: 'POST',
        auth,
        body: { ticket_id: f.ticketId, full_name: 'Walk In', email: 'walk@in.test', attendee_status: 'completed' },
      });
      assert.equal(explicit.status, 201, `${who}: ${explicit.text}`);
    }
  });

  test('the administrator still edits every field (the control)', async () => {
    const id = f.attendeeIds[10];
    const r = await call(`${T()}/attendees/${id}`, {
      method: 'PATCH',
      auth: s.admin,
      body: { full_name: 'Renamed', email: 'renamed@example.test', attendee_status: 'refunded' },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.title, 'Renamed');
    assert.equal(r.body.email, 'renamed@example.test');
    assert.equal(r.body.order_status, 'refunded');
  });
});
