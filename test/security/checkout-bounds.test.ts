import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { mailIdle } from '../../server/mail/index.ts';
import { makeEvent, ticketId, tix, visitor } from '../server/tickets/fixtures.ts';
import { checkoutLimiter } from '../../server/routes/tickets/cart.ts';
import { clientKey } from '../../server/security/window-limiter.ts';
import { LIKE_NOCASE, sql, sqlFor } from '../../server/db/engine/sql.ts';

/**
 * Issue 10 item 2 (CONTRACT section 3): checkout is bounded. One anonymous checkout of quantity 20,000 used to
 * write 20,000 attendees; now at most `maxTicketsPerOrder` (50) tickets go in a cart line and in an order,
 * anonymous checkouts are limited per client address, and ticket e-mail is bounded per order and per address.
 * Every refused request writes nothing.
 */

let s: TestServer;
let event: number;
let free: number;

const count = async (sql: string, ...p: unknown[]) => ((await s.db.prepare(sql).get(...p)) as { n: number }).n;
const written = async () => ({
  carts: await count('SELECT COUNT(*) AS n FROM carts'),
  lines: await count('SELECT COUNT(*) AS n FROM cart_items'),
  inCarts: await count('SELECT COALESCE(SUM(quantity), 0) AS n FROM cart_items'),
  orders: await count('SELECT COUNT(*) AS n FROM orders'),
  attendees: await count('SELECT COUNT(*) AS n FROM attendees'),
  posts: await count('SELECT COUNT(*) AS n FROM posts'),
  mail: await count('SELECT COUNT(*) AS n FROM mail_log'),
});
const checkout = (v: ReturnType<typeof visitor>, email = 'mari@example.test') =>
  v.call(`${tix(s)}/cart/checkout`, { method: 'POST', body: { purchaser_name: 'Mari Maasikas', purchaser_email: email } });
const fillCart = (v: ReturnType<typeof visitor>, lines: { ticket_id: number; quantity: number }[], extra: Record<string, unknown> = {}) =>
  v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: lines, ...extra } });

/** The `tickets-over-limit` answer of a cart write, as the route reports its other `tickets` errors. */
function assertOverLimit(r: { status: number; body: any }) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.code, 'rest_invalid_param');
  assert.equal(r.body.data.status, 400);
  assert.match(r.body.data.params.tickets, /At most 50 tickets/);
  assert.equal(r.body.data.details.tickets.code, 'tickets-over-limit');
}

/** A POST from another loopback address (127.0.0.2), with the visitor's cookie. */
function postFrom(
  localAddress: string,
  url: string,
  body: unknown,
  cookie = '',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      url,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...(cookie ? { cookie } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

beforeAll(async () => {
  s = await startTestServer();
  event = await makeEvent(s);
  free = await ticketId(s, event, { name: 'Free' });
});
afterAll(async () => {
  await mailIdle(s.app.state);
  await s.close();
});

describe('checkout bounds', () => {
  test('one cart line of 20,000 tickets is refused and writes nothing (no cart, no cookie, no order)', async () => {
    const before = await written();
    const v = visitor();
    const r = await fillCart(v, [{ ticket_id: free, quantity: 20_000 }]);
    assertOverLimit(r);
    assert.equal(r.headers.get('set-cookie'), null, 'no cart cookie for a refused write');
    assert.deepEqual(await written(), before);
    const c = await checkout(v);
    assert.equal(c.status, 400);
    assert.equal(c.body.code, 'cart-empty');
    assert.deepEqual(await written(), before);
  });

  test('51 tickets over two lines are refused, in one write or across writes, and the cart keeps what it had', async () => {
    const other = await ticketId(s, event, { name: 'Other' });
    const v = visitor();
    const before = await written();
    assertOverLimit(
      await fillCart(v, [
        { ticket_id: free, quantity: 30 },
        { ticket_id: other, quantity: 21 },
      ]),
    );
    assert.deepEqual(await written(), before);
    // 30 on one post's line, then 21 on another post: the cart (one order) would hold 51.
    const event2 = await makeEvent(s);
    const third = await ticketId(s, event2, { name: 'Third' });
    const first = await fillCart(v, [{ ticket_id: free, quantity: 30 }], { post_id: event });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const kept = await written();
    assertOverLimit(await fillCart(v, [{ ticket_id: third, quantity: 21 }], { post_id: event2 }));
    assert.deepEqual(await written(), kept);
    assert.deepEqual(
      (await v.call(`${tix(s)}/cart`)).body.tickets.map((l: { quantity: number }) => l.quantity),
      [30],
    );
  });

  test('50 tickets over two lines are accepted: one order of 50 attendees', async () => {
    const other = await ticketId(s, event, { name: 'Second' });
    const v = visitor();
    const c = await fillCart(v, [
      { ticket_id: free, quantity: 25 },
      { ticket_id: other, quantity: 25 },
    ]);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const r = await checkout(v, 'fifty@example.test');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.attendees.length, 50);
  });

  test('a cart over the limit at checkout (the limit lowered since) is refused and writes nothing', async () => {
    const config = s.app.state.config;
    const v = visitor();
    config.maxTicketsPerOrder = 60;
    try {
      assert.equal((await fillCart(v, [{ ticket_id: free, quantity: 55 }])).status, 200);
    } finally {
      config.maxTicketsPerOrder = 50;
    }
    const before = await written();
    const r = await checkout(v);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      code: 'tickets-over-limit',
      message: 'At most 50 tickets per ticket line and per order.',
      data: { status: 400, max: 50 },
    });
    assert.deepEqual(await written(), before);
  });

  test('the 11th anonymous checkout from one address in 10 minutes is 429 with Retry-After and writes nothing', async () => {
    // Forget the earlier tests' checkouts from this address. Through the limiter, not by dropping the object: on
    // PostgreSQL the count lives in the database (shared by every process), so a new limiter still sees it.
    await checkoutLimiter(s.app.state).clear(clientKey('127.0.0.1'));
    for (let i = 0; i < 10; i++) {
      const v = visitor();
      assert.equal((await fillCart(v, [{ ticket_id: free, quantity: 1 }])).status, 200);
      const r = await checkout(v, `buyer${i}@example.test`);
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const v = visitor();
    assert.equal((await fillCart(v, [{ ticket_id: free, quantity: 1 }])).status, 200);
    const before = await written();
    const r = await checkout(v, 'eleventh@example.test');
    assert.equal(r.status, 429, JSON.stringify(r.body));
    assert.equal(r.body.code, 'rest_too_many_requests');
    assert.equal(r.body.data.status, 429);
    const wait = Number(r.headers.get('retry-after'));
    assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 600, `Retry-After ${wait}`);
    assert.deepEqual(await written(), before, 'nothing written: no order, no attendee, the cart kept');

    // Another address is not limited by this one's checkouts; a signed-in buyer is not limited at all.
    const w = visitor();
    await fillCart(w, [{ ticket_id: free, quantity: 1 }]);
    const elsewhere = await postFrom(
      '127.0.0.2',
      `${tix(s)}/cart/checkout`,
      { purchaser_name: 'Other', purchaser_email: 'other@example.test' },
      w.cookie,
    );
    assert.equal(elsewhere.status, 201, JSON.stringify(elsewhere.body));
    const user = await s.userAuth('organizer');
    await call(`${tix(s)}/cart`, { method: 'POST', auth: user, body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 1 }] } });
    const signed = await call(`${tix(s)}/cart/checkout`, {
      method: 'POST',
      auth: user,
      body: { purchaser_name: 'Org', purchaser_email: 'org@example.test' },
    });
    assert.equal(signed.status, 201, JSON.stringify(signed.body));

    // Once the window has passed (the app clock moved), the address may check out again.
    s.app.state.services.clock = () => Date.now() + wait * 1000 + 1000;
    try {
      const again = await checkout(v, 'eleventh@example.test');
      assert.equal(again.status, 201, JSON.stringify(again.body));
    } finally {
      delete s.app.state.services.clock;
    }
  });

  test('ticket e-mail: one message per order with its own attendees only, at most 10 per address an hour', async () => {
    const user = await s.userAuth('organizer');
    const buy = async (quantity: number, email: string) => {
      const c = await call(`${tix(s)}/cart`, { method: 'POST', auth: user, body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity }] } });
      assert.equal(c.status, 200, JSON.stringify(c.body));
      const r = await call(`${tix(s)}/cart/checkout`, { method: 'POST', auth: user, body: { purchaser_name: 'Victim', purchaser_email: email } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body as { id: number; attendees: { id: number }[] };
    };
    const mailTo = async (email: string) =>
      (await s.db
        .prepare(sqlFor(s.db.engine, sql`SELECT id, related_id FROM mail_log WHERE source = 'tickets' AND to_header ${LIKE_NOCASE} ? ORDER BY id`))
        .all(`%<${email}>`)) as {
        id: number;
        related_id: number;
      }[];
    const images = (logId: number) => count('SELECT COUNT(*) AS n FROM mail_attachments WHERE log_id = ?', logId);

    const first = await buy(3, 'victim@example.test');
    const [m] = await mailTo('victim@example.test');
    assert.equal(m.related_id, first.id);
    assert.equal(await images(m.id), 3, 'one QR per attendee of this order, no more');

    // Completing the same order again (cancel, then complete) sends nothing more.
    for (const status of ['cancelled', 'completed']) {
      const r = await call(`${tix(s)}/orders/${first.id}`, { method: 'POST', auth: s.admin, body: { status } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    assert.equal((await mailTo('victim@example.test')).length, 1);

    // Eleven more orders to one address: the orders are made, the mail stops at 10 an hour (any case of it).
    const orders: number[] = [];
    for (let i = 0; i < 11; i++) orders.push((await buy(1, i % 2 ? 'Victim@Example.test' : 'victim@example.test')).id);
    assert.equal((await mailTo('victim@example.test')).length, 10, 'LIKE ignores case: both spellings');
    assert.equal(
      await count(
        sqlFor(
          s.db.engine,
          sql`SELECT COUNT(*) AS n FROM orders WHERE purchaser_email ${LIKE_NOCASE} 'victim@example.test' AND status = 'completed'`,
        ),
      ),
      12,
    );
    // Other addresses are not affected.
    await buy(1, 'someone@example.test');
    assert.equal((await mailTo('someone@example.test')).length, 1);
  });
});
