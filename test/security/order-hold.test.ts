import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { createApp } from '../../server/app.ts';
import { sweepHolds } from '../../server/routes/tickets/order-hold.ts';
import { seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { WindowLimiter } from '../../server/security/window-limiter.ts';
import { makeEvent, ticketId, tix, visitor } from '../server/tickets/fixtures.ts';

/**
 * Issue 10 item 3 (CONTRACT section 3): an unpaid (pending) order holds its places for `orderHoldMinutes`
 * (30), its answer carries `expires`, and past it its places are free again: at once in every capacity count
 * (before the sweep runs), and the sweep (at start-up and on a timer) cancels it. Completed orders, and
 * pending ones staff entered without a hold, are untouched.
 */

let s: TestServer;
let event: number;
let paid: number;
let free: number;

const HOLD_MS = 30 * 60_000;
const orderStatus = async (id: number) => ((await s.db.prepare('SELECT status FROM orders WHERE post_id = ?').get(id)) as { status: string }).status;
const ticket = async (id: number) =>
  (await call(`${tix(s)}/tickets/${id}`, { auth: s.admin })).body.capacity_details as { available: number; sold: number; pending: number };
const buy = async (ticketId: number, quantity: number, provider = 'tc') => {
  const v = visitor();
  const c = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider, tickets: [{ ticket_id: ticketId, quantity }] } });
  if (c.status !== 200) return c;
  return v.call(`${tix(s)}/cart/checkout`, { method: 'POST', body: { purchaser_name: 'Mari', purchaser_email: 'mari@example.test' } });
};
const at = (ms: number) => {
  s.app.state.services.clock = () => ms;
};

beforeAll(async () => {
  s = await startTestServer();
  // Many anonymous checkouts from one address here: test/security/checkout-bounds.test.ts covers that limit.
  s.app.state.services.checkoutLimiter = new WindowLimiter({ max: 1_000_000, windowMs: 1 });
  event = await makeEvent(s);
  paid = await ticketId(s, event, { name: 'Paid', provider: 'tc', price: '10', currency: 'EUR', 'ticket[capacity]': '2' });
  free = await ticketId(s, event, { name: 'Free', 'ticket[capacity]': '5' });
});
afterAll(() => s.close());

describe('pending orders expire', () => {
  test('a pending order carries expires (ISO 8601 UTC, created + 30 min) and holds its places; a completed one has expires null', async () => {
    const t0 = Date.parse('2030-03-01T10:00:00Z');
    at(t0);
    const r = await buy(paid, 2);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.status, 'pending');
    assert.equal(r.body.expires, '2030-03-01T10:30:00Z');
    assert.equal(new Date(r.body.expires).getTime() - Date.parse(`${r.body.date_utc.replace(' ', 'T')}Z`), HOLD_MS);
    const read = await call(`${tix(s)}/orders/${r.body.id}`, { auth: s.admin });
    assert.equal(read.body.expires, '2030-03-01T10:30:00Z');
    const held = await ticket(paid);
    assert.equal(held.available, 0);
    assert.equal(held.pending, 2);
    const full = await buy(paid, 1);
    assert.equal(full.status, 400);
    assert.equal(full.body.code, 'ticket-capacity-not-available');

    const done = await buy(free, 2, 'rsvp');
    assert.equal(done.status, 201);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.expires, null);
  });

  test('past the hold its places are available before the sweep; the sweep cancels it; a completed order is untouched', async () => {
    const t0 = Date.parse('2030-03-02T10:00:00Z');
    at(t0);
    const held = await buy(paid, 2);
    assert.equal(held.status, 201);
    const completed = await buy(free, 3, 'rsvp');
    assert.equal(completed.status, 201);
    const staff = await seedTicketsFixture(s.db, { attendees: 1, provider: 'tc', priceMinor: 500, capacity: 1, orderStatus: 'pending' });

    at(t0 + HOLD_MS - 1000);
    assert.equal((await ticket(paid)).available, 0, 'still held a second before it runs out');
    assert.equal((await sweepHolds(s.app.state))?.cancelled.includes(held.body.id), false);

    at(t0 + HOLD_MS);
    // Before any sweep: still pending in the table, but its places count for nothing.
    assert.equal(await orderStatus(held.body.id), 'pending');
    const before = await ticket(paid);
    assert.equal(before.available, 2);
    assert.equal(before.pending, 0);
    const freeBefore = await ticket(free);

    const swept = await sweepHolds(s.app.state);
    assert.ok(swept?.cancelled.includes(held.body.id));
    assert.equal(await orderStatus(held.body.id), 'cancelled');
    const read = await call(`${tix(s)}/orders/${held.body.id}`, { auth: s.admin });
    assert.equal(read.body.status, 'cancelled');
    assert.equal(read.body.expires, null);
    assert.equal(read.body.attendees[0].order_status, 'cancelled');
    assert.equal((await ticket(paid)).available, 2, 'after the sweep too');

    // The completed order, and a pending sale staff entered without a hold, are untouched.
    assert.equal(await orderStatus(completed.body.id), 'completed');
    assert.deepEqual(await ticket(free), freeBefore);
    assert.equal(await orderStatus(staff.orderId), 'pending');
    assert.equal((await call(`${tix(s)}/orders/${staff.orderId}`, { auth: s.admin })).body.expires, null);

    // The freed places can be bought again.
    const again = await buy(paid, 2);
    assert.equal(again.status, 201, JSON.stringify(again.body));
  });

  test('an expired hold marked paid before the sweep is completed only while places remain', async () => {
    const t0 = Date.parse('2030-03-03T10:00:00Z');
    at(t0);
    const other = await ticketId(s, event, { name: 'Paid 2', provider: 'tc', price: '10', currency: 'EUR', 'ticket[capacity]': '1' });
    const late = await buy(other, 1);
    assert.equal(late.status, 201);
    at(t0 + HOLD_MS + 60_000);
    const taker = await buy(other, 1);
    assert.equal(taker.status, 201, 'the expired hold no longer blocks the place');
    const pay = await call(`${tix(s)}/orders/${late.body.id}`, { method: 'POST', auth: s.admin, body: { status: 'completed' } });
    assert.equal(pay.status, 400);
    assert.equal(pay.body.code, 'ticket-capacity-not-available');
    assert.equal(await orderStatus(late.body.id), 'pending');
  });

  test('the sweep runs at start-up: an app opened after the hold ran out cancels the order', async () => {
    const ticketFree = await ticketId(s, event, { name: 'Free 3' });
    const ticketPaid = await ticketId(s, event, { name: 'Paid 3', provider: 'tc', price: '10', currency: 'EUR' });
    // Made half an hour and more in the past (by the app clock), so the real clock is past its hold.
    at(Date.now() - HOLD_MS - 60_000);
    const old = await buy(ticketFree, 1, 'rsvp');
    assert.equal(old.status, 201, JSON.stringify(old.body));
    const pending = await buy(ticketPaid, 1);
    assert.equal(pending.status, 201, JSON.stringify(pending.body));
    delete s.app.state.services.clock;
    assert.equal(await orderStatus(pending.body.id), 'pending');
    const db = await openDatabase(s.db.name);
    const second = await createApp({ config: s.app.state.config, db });
    try {
      assert.equal(await orderStatus(pending.body.id), 'cancelled');
      assert.equal(await orderStatus(old.body.id), 'completed');
    } finally {
      await second.close();
    }
  });
});
