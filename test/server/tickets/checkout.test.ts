import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { hooks } from '../../../server/kernel/hooks.ts';
import { WindowLimiter } from '../../../server/security/window-limiter.ts';
import { Order } from '../../../shared/models/tickets.ts';
import { addNonce, buy, makeEvent, ticketId, tix, visitor } from './fixtures.ts';

let s: TestServer;
let event: number;
let free: number;
let paid: number;
const completed: number[] = [];

const rows = async (sql: string, ...p: unknown[]) => (await s.db.prepare(sql).all(...p)) as Record<string, unknown>[];
const one = async (sql: string, ...p: unknown[]) => (await s.db.prepare(sql).get(...p)) as Record<string, number>;

beforeAll(async () => {
  s = await startTestServer();
  // These tests check out anonymously from one address far more often than the per-address limit allows
  // (test/security/checkout-bounds.test.ts covers that limit): give this server a limiter that never bites.
  s.app.state.services.checkoutLimiter = new WindowLimiter({ max: 1_000_000, windowMs: 1 });
  // A listener that sees the order inside the completing transaction, and can veto it by throwing.
  hooks(s.app.state).orderCompleted.push(async (ctx, orderId) => {
    const row = (await ctx.db.prepare('SELECT status FROM orders WHERE post_id = ?').get(orderId)) as { status: string };
    assert.equal(row.status, 'completed');
    if (
      ((await ctx.db.prepare('SELECT purchaser_name FROM orders WHERE post_id = ?').get(orderId)) as { purchaser_name: string }).purchaser_name ===
      'Veto'
    )
      throw new Error('mail down');
    completed.push(orderId);
  });
  event = await makeEvent(s);
  free = await ticketId(s, event, { name: 'Free', 'ticket[capacity]': '20' });
  paid = await ticketId(s, event, { name: 'Paid', provider: 'tc', price: '12.5', currency: 'EUR', 'ticket[capacity]': '20' });
});
afterAll(() => s.close());

describe('POST /cart/checkout', () => {
  test('a free order completes at once: 201 with the order and one attendee per place, unique codes, cart emptied', async () => {
    const v = visitor();
    await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 3 }] } });
    const r = await v.call(`${tix(s)}/cart/checkout`, {
      method: 'POST',
      body: { purchaser_name: ' Jaan Tamm ', purchaser_email: 'jaan@example.test' },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    Order.parse(r.body);
    assert.equal(r.body.status, 'completed');
    assert.equal(r.body.purchaser_name, 'Jaan Tamm');
    assert.equal(r.body.total, '0');
    assert.deepEqual(r.body.items, [{ ticket_id: free, post_id: event, title: 'Free', quantity: 3, price: '0' }]);
    assert.equal(r.body.attendees.length, 3);
    const codes = r.body.attendees.map((a: { security_code: string }) => a.security_code);
    for (const c of codes) assert.match(c, /^[0-9a-f]{10,}$/);
    assert.equal(new Set(codes).size, 3);
    assert.equal(r.body.attendees[0].order_status, 'completed');
    assert.ok(completed.includes(r.body.id));
    assert.deepEqual((await v.call(`${tix(s)}/cart`)).body.tickets, []);
    const again = await v.call(`${tix(s)}/cart/checkout`, { method: 'POST', body: { purchaser_name: 'Jaan', purchaser_email: 'jaan@example.test' } });
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, { code: 'cart-empty', message: 'The cart is empty.', data: { status: 400 } });
  });

  test('a paid order waits as pending and reserves its places; marking it paid completes it and fires the hook', async () => {
    const r = await buy(s, [{ ticket_id: paid, quantity: 2 }], { provider: 'tc' });
    assert.equal(r.status, 201);
    assert.equal(r.body.status, 'pending');
    assert.equal(r.body.total, '25');
    assert.equal(r.body.currency, 'EUR');
    assert.equal(r.body.completed_date_utc, null);
    assert.equal(completed.includes(r.body.id), false);
    const t = await call(`${tix(s)}/tickets/${paid}`, { auth: s.admin });
    assert.deepEqual(t.body.capacity_details, { available_percentage: 90, available: 18, max: 20, sold: 0, pending: 2, global_stock_mode: 'own' });
    const p = await call(`${tix(s)}/orders/${r.body.id}`, { method: 'POST', auth: s.admin, body: { status: 'completed' } });
    assert.equal(p.status, 200);
    assert.equal(p.body.status, 'completed');
    assert.ok(p.body.completed_date_utc);
    assert.ok(completed.includes(r.body.id));
    assert.equal(p.body.attendees[0].order_status, 'completed');
    const after = await call(`${tix(s)}/tickets/${paid}`, { auth: s.admin });
    assert.equal(after.body.capacity_details.sold, 2);
    assert.equal(after.body.capacity_details.pending, 0);
  });

  test('a listener that throws rolls the completing transaction back', async () => {
    const before = (await one('SELECT COUNT(*) AS n FROM orders')).n;
    const r = await buy(s, [{ ticket_id: free, quantity: 1 }], { name: 'Veto' });
    assert.equal(r.status, 500);
    assert.equal((await one('SELECT COUNT(*) AS n FROM orders')).n, before);
  });

  test('capacity stays exact under 50 concurrent checkouts of a capacity-10 ticket', async () => {
    const limited = await ticketId(s, event, { name: 'Limited', 'ticket[capacity]': '10' });
    const visitors = Array.from({ length: 50 }, () => visitor());
    const carts = await Promise.all(
      visitors.map((v) => v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: limited, quantity: 1 }] } })),
    );
    assert.ok(carts.every((c) => c.status === 200));
    const results = await Promise.all(
      visitors.map((v, i) =>
        v.call(`${tix(s)}/cart/checkout`, { method: 'POST', body: { purchaser_name: `Buyer ${i}`, purchaser_email: `b${i}@example.test` } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 10);
    const refused = results.filter((r) => r.status !== 201);
    assert.equal(refused.length, 40);
    for (const r of refused) assert.equal(r.body.code, 'ticket-capacity-not-available');
    assert.equal((await one('SELECT COUNT(*) AS n FROM attendees WHERE ticket_id = ?', limited)).n, 10);
    const t = await call(`${tix(s)}/tickets/${limited}`);
    assert.deepEqual(t.body.capacity_details, { available_percentage: 0, available: 0 });
  });

  test('checkout errors: missing purchaser, bad e-mail, ticket gone since it was put in the cart; nothing made', async () => {
    const before = (await one('SELECT COUNT(*) AS n FROM attendees')).n;
    const v = visitor();
    const gone = await ticketId(s, event, { name: 'Gone soon' });
    await v.call(`${tix(s)}/cart`, {
      method: 'POST',
      body: {
        provider: 'rsvp',
        tickets: [
          { ticket_id: gone, quantity: 1 },
          { ticket_id: free, quantity: 1 },
        ],
      },
    });
    const missing = await v.call(`${tix(s)}/cart/checkout`, { method: 'POST', body: { purchaser_email: 'x@example.test' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const badEmail = await v.call(`${tix(s)}/cart/checkout`, { method: 'POST', body: { purchaser_name: 'X', purchaser_email: 'nope' } });
    assert.equal(badEmail.body.code, 'rest_invalid_param');
    await s.db.prepare("UPDATE posts SET status = 'draft' WHERE id = ?").run(gone);
    const r = await v.call(`${tix(s)}/cart/checkout`, { method: 'POST', body: { purchaser_name: 'X', purchaser_email: 'x@example.test' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'ticket-does-not-exist');
    assert.equal((await one('SELECT COUNT(*) AS n FROM attendees')).n, before);
  });

  test('a ticket outside its sale window cannot be bought', async () => {
    const later = await ticketId(s, event, { name: 'Later', start_date: '2099-01-01' });
    const r = await buy(s, [{ ticket_id: later, quantity: 1 }]);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'ticket-not-on-sale');
  });
});

describe('orders', () => {
  test('list and read need edit_tickets; list filters by post and status with ET headers', async () => {
    assert.equal((await call(`${tix(s)}/orders`)).status, 401);
    assert.equal((await call(`${tix(s)}/orders`, { auth: await s.userAuth('door') })).status, 403);
    const other = await makeEvent(s, { title: 'Other' });
    const otherTicket = await ticketId(s, other, { name: 'Other' });
    const made = await buy(s, [{ ticket_id: otherTicket, quantity: 1 }]);
    const r = await call(`${tix(s)}/orders?post_id=${other}`, { auth: s.admin });
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.orders.map((o: { id: number }) => o.id),
      [made.body.id],
    );
    assert.equal(r.headers.get('x-et-total'), '1');
    // Every earlier paid order has been completed, so one is left waiting here for the status filter to find.
    const waiting = await buy(s, [{ ticket_id: paid, quantity: 1 }], { provider: 'tc' });
    assert.equal(waiting.body.status, 'pending');
    const pending = await call(`${tix(s)}/orders?status=pending&per_page=100`, { auth: s.admin });
    assert.ok(pending.body.orders.some((o: { id: number }) => o.id === waiting.body.id));
    assert.ok(pending.body.orders.every((o: { status: string }) => o.status === 'pending'));
    assert.equal((await call(`${tix(s)}/orders?status=bogus`, { auth: s.admin })).status, 400);
    assert.equal((await call(`${tix(s)}/orders?page=99`, { auth: s.admin })).body.code, 'invalid-page-number');
    const one = await call(`${tix(s)}/orders/${made.body.id}`, { auth: s.admin });
    assert.equal(one.body.id, made.body.id);
    assert.equal((await call(`${tix(s)}/orders/${free}`, { auth: s.admin })).status, 404);
  });

  test('refund frees places; refunded is final; cancelled can be revived only while places remain', async () => {
    const small = await ticketId(s, event, { name: 'Two seats', provider: 'tc', price: '3', 'ticket[capacity]': '2' });
    const first = await buy(s, [{ ticket_id: small, quantity: 2 }], { provider: 'tc' });
    const cancel = await call(`${tix(s)}/orders/${first.body.id}`, { method: 'PATCH', auth: s.admin, body: { status: 'cancelled' } });
    assert.equal(cancel.body.status, 'cancelled');
    assert.equal((await call(`${tix(s)}/tickets/${small}`)).body.capacity_details.available, 2);
    const second = await buy(s, [{ ticket_id: small, quantity: 1 }], { provider: 'tc' });
    assert.equal(second.status, 201);
    const revive = await call(`${tix(s)}/orders/${first.body.id}`, { method: 'PATCH', auth: s.admin, body: { status: 'pending' } });
    assert.equal(revive.status, 400);
    assert.equal(revive.body.code, 'ticket-capacity-not-available');
    assert.equal((await one('SELECT status FROM orders WHERE post_id = ?', first.body.id)).status as unknown, 'cancelled');
    await call(`${tix(s)}/orders/${second.body.id}`, { method: 'PATCH', auth: s.admin, body: { status: 'completed' } });
    const refund = await call(`${tix(s)}/orders/${second.body.id}`, { method: 'PATCH', auth: s.admin, body: { status: 'refunded' } });
    assert.equal(refund.body.status, 'refunded');
    assert.equal(refund.body.attendees[0].order_status, 'refunded');
    const back = await call(`${tix(s)}/orders/${second.body.id}`, { method: 'PATCH', auth: s.admin, body: { status: 'completed' } });
    assert.equal(back.status, 400);
    assert.equal(back.body.code, 'order-invalid-status-change');
    const revived = await call(`${tix(s)}/orders/${first.body.id}`, { method: 'PATCH', auth: s.admin, body: { status: 'completed' } });
    assert.equal(revived.status, 200);
    assert.equal(revived.body.status, 'completed');
    const bad = await call(`${tix(s)}/orders/${first.body.id}`, { method: 'PATCH', auth: s.admin, body: { status: 'paid' } });
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.equal(
      (await call(`${tix(s)}/orders/${first.body.id}`, { method: 'PATCH', auth: await s.userAuth('door'), body: { status: 'refunded' } })).status,
      403,
    );
  });
});

describe('batch', () => {
  test('ticket create and cart write in one batch; an invalid item under require-all-validate runs nothing', async () => {
    const nonce = await addNonce(s, event);
    const before = (await rows("SELECT id FROM posts WHERE type = 'ticket'")).length;
    const invalid = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: s.admin,
      body: {
        validation: 'require-all-validate',
        requests: [
          { method: 'POST', path: '/evt/tickets/v1/tickets', body: { post_id: event, add_ticket_nonce: nonce, provider: 'rsvp', name: 'Batch A' } },
          { method: 'POST', path: '/evt/tickets/v1/cart', body: { tickets: [] } },
        ],
      },
    });
    assert.equal(invalid.status, 207);
    assert.equal(invalid.body.failed, 'validation');
    assert.equal((await rows("SELECT id FROM posts WHERE type = 'ticket'")).length, before);
    const r = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: s.admin,
      body: {
        requests: [
          {
            method: 'POST',
            path: '/evt/tickets/v1/tickets',
            body: { post_id: event, add_ticket_nonce: nonce, provider: 'rsvp', name: 'Batch B', ticket: { capacity: 5 } },
          },
          { method: 'POST', path: '/evt/tickets/v1/tickets', body: { post_id: event, add_ticket_nonce: 'bad', provider: 'rsvp', name: 'Batch C' } },
          { method: 'POST', path: '/evt/tickets/v1/cart', body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 1 }] } },
        ],
      },
    });
    assert.equal(r.status, 207);
    assert.deepEqual(
      r.body.responses.map((x: { status: number }) => x.status),
      [202, 403, 200],
    );
    assert.equal(r.body.responses[0].body.title, 'Batch B');
    assert.equal(r.body.responses[1].body.code, 'forbidden');
    assert.deepEqual(
      r.body.responses[2].body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [free],
    );
    assert.equal((await rows("SELECT id FROM posts WHERE type = 'ticket'")).length, before + 1);
  });
});
