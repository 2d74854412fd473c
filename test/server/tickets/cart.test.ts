import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { makeEvent, ticketId, tix, visitor } from './fixtures.ts';

let s: TestServer;
let event: number;
let bare: number;
let free: number;
let paid: number;
let scarce: number;

const cartCount = async () => ((await s.db.prepare('SELECT COUNT(*) AS n FROM cart_items').get()) as { n: number }).n;

beforeAll(async () => {
  s = await startTestServer();
  event = await makeEvent(s);
  bare = await makeEvent(s, { title: 'No tickets' });
  free = await ticketId(s, event, { name: 'Free' });
  paid = await ticketId(s, event, { name: 'Paid', provider: 'tc', price: '10' });
  scarce = await ticketId(s, event, { name: 'Scarce', 'ticket[capacity]': '2' });
});
afterAll(() => s.close());

describe('cart', () => {
  test('an anonymous visitor without a cart reads an empty one and gets no cookie', async () => {
    const r = await call(`${tix(s)}/cart`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { tickets: [], meta: [], cart_url: '', checkout_url: '' });
    assert.equal(r.headers.get('set-cookie'), null);
  });

  test("the first write sets an HttpOnly evt_cart cookie; two visitors never see each other's carts", async () => {
    const a = visitor();
    const b = visitor();
    const wa = await a.call(`${tix(s)}/cart`, {
      method: 'POST',
      body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 2 }], meta: [{ note: 'a' }] },
    });
    assert.equal(wa.status, 200);
    assert.match(wa.headers.get('set-cookie') ?? '', /^evt_cart=[0-9a-f]{48}; .*HttpOnly/);
    assert.deepEqual(wa.body, {
      tickets: [{ ticket_id: free, quantity: 2, post_id: event, optout: 0, iac: 'none' }],
      meta: [{ note: 'a' }],
      cart_url: '',
      checkout_url: '',
    });
    const wb = await b.call(`${tix(s)}/cart`, {
      method: 'PUT',
      body: { provider: 'rsvp', tickets: [{ ticket_id: scarce, quantity: 1, optout: true }] },
    });
    assert.equal(wb.status, 200);
    assert.notEqual(a.cookie, b.cookie);
    assert.deepEqual(
      (await a.call(`${tix(s)}/cart`)).body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [free],
    );
    assert.deepEqual((await b.call(`${tix(s)}/cart`)).body.tickets, [{ ticket_id: scarce, quantity: 1, post_id: event, optout: 1, iac: 'none' }]);
    // A second write keeps the cookie: no new Set-Cookie.
    const again = await a.call(`${tix(s)}/cart`, { method: 'PATCH', body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 1 }] } });
    assert.equal(again.headers.get('set-cookie'), null);
    assert.equal(again.body.tickets[0].quantity, 1);
    // A made-up cookie finds nothing.
    const forged = await call(`${tix(s)}/cart`, { headers: { cookie: `evt_cart=${'0'.repeat(48)}` } });
    assert.deepEqual(forged.body.tickets, []);
  });

  test('writes replace the lines of their provider; quantity 0 removes; provider and post filters on read', async () => {
    const v = visitor();
    await v.call(`${tix(s)}/cart`, {
      method: 'POST',
      body: {
        provider: 'rsvp',
        tickets: [
          { ticket_id: free, quantity: 1 },
          { ticket_id: scarce, quantity: 1 },
        ],
      },
    });
    await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'tc', tickets: [{ ticket_id: paid, quantity: 3 }] } });
    const all = await v.call(`${tix(s)}/cart`);
    assert.deepEqual(
      all.body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [free, paid, scarce],
    );
    const tcOnly = await v.call(`${tix(s)}/cart?provider=tc`);
    assert.deepEqual(
      tcOnly.body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [paid],
    );
    const r = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 0 }] } });
    assert.deepEqual(r.body.tickets, []);
    assert.deepEqual(
      (await v.call(`${tix(s)}/cart`)).body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [paid],
    );
    assert.deepEqual((await v.call(`${tix(s)}/cart?post_id=${event}`)).body.tickets.length, 1);
  });

  test("a signed-in user's cart is theirs, whatever cookie comes along", async () => {
    const user = await s.userAuth('organizer');
    const v = visitor();
    await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 1 }] } });
    const mine = await v.call(`${tix(s)}/cart`, { auth: user });
    assert.deepEqual(mine.body.tickets, []);
    await v.call(`${tix(s)}/cart`, { method: 'POST', auth: user, body: { provider: 'rsvp', tickets: [{ ticket_id: scarce, quantity: 2 }] } });
    assert.deepEqual(
      (await call(`${tix(s)}/cart`, { auth: user })).body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [scarce],
    );
    assert.deepEqual(
      (await v.call(`${tix(s)}/cart`)).body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [free],
    );
  });

  test('errors: capacity, unknown ticket, wrong provider, bad lines, post without tickets, unknown post; nothing changed', async () => {
    const v = visitor();
    await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: scarce, quantity: 1 }] } });
    const before = await cartCount();
    const over = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: scarce, quantity: 3 }] } });
    assert.equal(over.status, 400);
    assert.deepEqual(over.body, {
      code: 'ticket-capacity-not-available',
      message: 'The ticket "Scarce" does not have that many available for purchase.',
      data: { status: 400, ticket_id: scarce, available: 2 },
    });
    const unknown = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: 99999, quantity: 1 }] } });
    assert.equal(unknown.body.code, 'ticket-does-not-exist');
    assert.equal(unknown.body.message, 'The ticket #99999 does not exist.');
    const mismatch = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: paid, quantity: 1 }] } });
    assert.equal(mismatch.body.code, 'rest_invalid_param');
    const badLine = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: -1 }] } });
    assert.equal(badLine.status, 400);
    const noProvider = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { tickets: [] } });
    assert.equal(noProvider.body.code, 'rest_missing_callback_param');
    // As the original: a provider it does not know has no tickets; the write changes nothing (checked below).
    const badProvider = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'woo', tickets: [{ ticket_id: free, quantity: 1 }] } });
    assert.equal(badProvider.status, 200);
    assert.deepEqual(badProvider.body, { tickets: [], meta: [], cart_url: '', checkout_url: '' });
    const noTickets = await v.call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', post_id: bare, tickets: [] } });
    assert.equal(noTickets.status, 403);
    assert.deepEqual(noTickets.body, { code: 'post-has-no-tickets', message: '', data: { status: 403 } });
    const readNoTickets = await v.call(`${tix(s)}/cart?post_id=${bare}`);
    assert.equal(readNoTickets.status, 403);
    const noPost = await v.call(`${tix(s)}/cart?post_id=99999`);
    assert.equal(noPost.status, 400);
    const json = await v.call(`${tix(s)}/cart`, { method: 'POST', body: '{"provider": "rsvp",' });
    assert.equal(json.body.code, 'rest_invalid_json');
    assert.equal(await cartCount(), before);
    assert.deepEqual((await v.call(`${tix(s)}/cart`)).body.tickets, [{ ticket_id: scarce, quantity: 1, post_id: event, optout: 0, iac: 'none' }]);
  });

  test('batch: cart writes of one anonymous visitor share the cookie set by the first', async () => {
    const r = await call(`${s.root}batch/v1`, {
      method: 'POST',
      body: {
        requests: [
          { method: 'POST', path: '/evt/tickets/v1/cart', body: { provider: 'rsvp', tickets: [{ ticket_id: free, quantity: 1 }] } },
          { method: 'POST', path: '/evt/tickets/v1/cart', body: { provider: 'tc', tickets: [{ ticket_id: paid, quantity: 2 }] } },
        ],
      },
    });
    assert.equal(r.status, 207, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.responses.map((x: { status: number }) => x.status),
      [200, 200],
    );
    const cookie = /evt_cart=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];
    assert.ok(cookie);
    const read = await call(`${tix(s)}/cart`, { headers: { cookie: `evt_cart=${cookie}` } });
    assert.deepEqual(
      read.body.tickets.map((t: { ticket_id: number }) => t.ticket_id),
      [free, paid],
    );
  });
});
