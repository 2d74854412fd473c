import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { writeAsAnotherProcess } from '../../helpers/other-process.ts';
import { WindowLimiter } from '../../../server/security/window-limiter.ts';
import { sweepHolds } from '../../../server/routes/tickets/order-hold.ts';
import { buy, makeEvent, ticketId, tix } from '../tickets/fixtures.ts';

/**
 * Precise invalidation of the response cache (issue 14 item 2). Whether an answer came from the cache is seen
 * by changing the database behind the app's back on its own connection (no write through the interface, no
 * commit by another connection): a cached answer still shows the old value, a fresh one shows the new.
 */
let s: TestServer;
let event: number;
let other: number;
let ticket: number;

beforeAll(async () => {
  s = await startTestServer();
  s.app.state.services.checkoutLimiter = new WindowLimiter({ max: 1_000_000, windowMs: 1 });
  event = await makeEvent(s, { title: 'Doors open' });
  other = await makeEvent(s, { title: 'Other night' });
  ticket = await ticketId(s, event, { name: 'Entry', 'ticket[capacity]': '50' });
});
afterAll(() => s.close());

const eventUrl = (id: number) => `${s.root}evt/events/v1/events/${id}`;
const archiveUrl = () => `${s.root}evt/events/v1/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01`;
const nonce = () => `nonce-${crypto.randomUUID()}`;

/** Renames a post on the app's own connection: invisible to the cache's write tracking. */
async function renameBehindTheBack(id: number, title: string): Promise<void> {
  await s.db.prepare('UPDATE posts SET title = ? WHERE id = ?').run(title, id);
}

async function titleOf(id: number): Promise<string> {
  const r = await call(eventUrl(id));
  assert.equal(r.status, 200);
  return r.body.title;
}

async function archiveTitles(): Promise<string[]> {
  const r = await call(archiveUrl());
  assert.equal(r.status, 200);
  return r.body.events.map((e: { title: string }) => e.title).sort();
}

/** A fresh attendee of `ticket` (a free sale). */
async function attendee(): Promise<number> {
  const r = await buy(s, [{ ticket_id: ticket, quantity: 1 }]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.attendees[0].id;
}

describe('response cache: precise invalidation', () => {
  test('a check-in (single, batched, GET /qr) and a check-out leave the cached public event answers cached', async () => {
    const a = await attendee();
    const b = await attendee();
    const c = await attendee();
    const door = await s.apiKey('door', event);
    assert.equal(await titleOf(event), 'Doors open');
    assert.deepEqual(await archiveTitles(), ['Doors open', 'Other night']);
    await renameBehindTheBack(event, 'Renamed behind the back');

    const single = await call(`${tix(s)}/attendees/${a}`, {
      method: 'PATCH',
      auth: `Bearer ${door.key}`,
      body: { check_in: true, device_id: 'door-a', nonce: nonce() },
    });
    assert.equal(single.status, 201, JSON.stringify(single.body));
    const batch = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: `Bearer ${door.key}`,
      body: {
        requests: [{ method: 'PATCH', path: `/evt/tickets/v1/attendees/${b}`, body: { check_in: true, device_id: 'door-a', nonce: nonce() } }],
      },
    });
    assert.equal(batch.status, 207, JSON.stringify(batch.body));
    assert.equal(batch.body.responses[0].status, 201, JSON.stringify(batch.body));
    const out = await call(`${tix(s)}/attendees/${a}`, {
      method: 'PATCH',
      auth: `Bearer ${door.key}`,
      body: { check_in: false, device_id: 'door-a', nonce: nonce() },
    });
    assert.equal(out.status, 201, JSON.stringify(out.body));
    const code = ((await s.db.prepare('SELECT security_code FROM attendees WHERE post_id = ?').get(c)) as { security_code: string } | undefined)
      ?.security_code;
    assert.ok(code, 'attendee security code');
    const qr = await call(`${tix(s)}/qr?api_key=${door.key}&ticket_id=${c}&security_code=${code}&event_id=${event}`);
    assert.equal(qr.status, 201, JSON.stringify(qr.body));

    assert.equal(await titleOf(event), 'Doors open', 'the single read is still the cached answer');
    assert.deepEqual(await archiveTitles(), ['Doors open', 'Other night'], 'the archive is still the cached answer');
    // An edit through the interface still drops everything.
    const edit = await call(eventUrl(other), { method: 'PATCH', auth: s.admin, body: { title: 'Other night, moved' } });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    assert.equal(await titleOf(event), 'Renamed behind the back');
    assert.deepEqual(await archiveTitles(), ['Other night, moved', 'Renamed behind the back']);
    await renameBehindTheBack(event, 'Doors open');
    await renameBehindTheBack(other, 'Other night');
    s.app.state.contentVersion++;
  });

  test("a sale shows in that event's ticket availability at once, and leaves the public event answers cached", async () => {
    const before = await call(`${tix(s)}/tickets/${ticket}`);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    const available = before.body.capacity_details.available;
    assert.equal(typeof available, 'number');
    assert.equal(await titleOf(event), 'Doors open');
    await renameBehindTheBack(event, 'Renamed behind the back');

    const sale = await buy(s, [{ ticket_id: ticket, quantity: 2 }]);
    assert.equal(sale.status, 201, JSON.stringify(sale.body));

    const afterSale = await call(`${tix(s)}/tickets/${ticket}`);
    assert.equal(afterSale.body.capacity_details.available, available - 2);
    const listed = await call(`${tix(s)}/tickets?include_post=${event}`);
    assert.equal(listed.body.tickets.find((t: { id: number }) => t.id === ticket).capacity_details.available, available - 2);
    assert.equal(await titleOf(event), 'Doors open', 'the event answer is still the cached one');
    await renameBehindTheBack(event, 'Doors open');
    s.app.state.contentVersion++;
  });

  test('the order-hold sweep and a cart write leave the public event answers cached', async () => {
    assert.equal(await titleOf(event), 'Doors open');
    await renameBehindTheBack(event, 'Renamed behind the back');
    const cart = await call(`${tix(s)}/cart`, { method: 'POST', body: { provider: 'rsvp', tickets: [{ ticket_id: ticket, quantity: 1 }] } });
    assert.equal(cart.status, 200, JSON.stringify(cart.body));
    await sweepHolds(s.app.state);
    assert.equal(await titleOf(event), 'Doors open');
    await renameBehindTheBack(event, 'Doors open');
    s.app.state.contentVersion++;
  });

  test('after a check-in kept the cache, a write by another process (the CLI: data_version, or the change log on PostgreSQL) still empties it', async () => {
    const a = await attendee();
    assert.equal(await titleOf(event), 'Doors open');
    const r = await call(`${tix(s)}/attendees/${a}`, {
      method: 'PATCH',
      auth: s.admin,
      body: { check_in: true, device_id: 'door-b', nonce: nonce() },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    await renameBehindTheBack(event, 'Not seen yet');
    assert.equal(await titleOf(event), 'Doors open', 'the check-in kept the cached answer');
    await writeAsAnotherProcess(s, async (cli) => {
      await cli.prepare('UPDATE posts SET title = ? WHERE id = ?').run('Renamed by the CLI', event);
    });
    assert.equal(await titleOf(event), 'Renamed by the CLI');
    assert.deepEqual(await archiveTitles(), ['Other night', 'Renamed by the CLI']);
  });

  test('a write that declares nothing (a new venue) empties the cache, as every write did', async () => {
    assert.equal(await titleOf(other), 'Other night');
    await renameBehindTheBack(other, 'Renamed behind the back');
    const r = await call(`${s.root}evt/events/v1/venues`, { method: 'POST', auth: s.admin, body: { venue: 'Hall' } });
    assert.ok(r.status < 300, JSON.stringify(r.body));
    assert.equal(await titleOf(other), 'Renamed behind the back');
  });
});
