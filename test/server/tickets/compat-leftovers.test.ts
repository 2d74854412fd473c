import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertTicket, seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';

// The last tickets-namespace differences the compat harness found (issue 11): each answered as the original does.
let s: TestServer;
let f: TicketsFixture;
let T: string;
beforeAll(async () => {
  s = await startTestServer();
  T = `${s.root}evt/tickets/v1`;
  f = await seedTicketsFixture(s.db, { attendees: 1 });
});
afterAll(() => s.close());

/** Event Tickets' validate callbacks: "Invalid parameter." and `details: []` (no per-parameter error object). */
function callbackFailure(r: { status: number; body: { code: string; data: Record<string, unknown> } }, param: string): void {
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'rest_invalid_param');
  assert.deepEqual(r.body.data.params, { [param]: 'Invalid parameter.' });
  assert.deepEqual(r.body.data.details, []);
}

describe('tickets namespace as the original', () => {
  test('GET /tickets/0 fails the ID callback: details []', async () => {
    for (const auth of [undefined, s.admin]) callbackFailure(await call(`${T}/tickets/0`, { auth }), 'id');
  });

  test('GET /attendees?post_id=x fails the post_id callback: details []', async () => {
    for (const auth of [undefined, s.admin]) callbackFailure(await call(`${T}/attendees?post_id=x`, { auth }), 'post_id');
  });

  test('POST /attendees with a malformed e-mail fails the email callback: details []; nothing is created', async () => {
    const before = (await call(`${T}/attendees`, { auth: s.admin })).body.total;
    const r = await call(`${T}/attendees`, { method: 'POST', auth: s.admin, body: { ticket_id: f.ticketId, full_name: 'X', email: 'nope' } });
    callbackFailure(r, 'email');
    assert.equal((await call(`${T}/attendees`, { auth: s.admin })).body.total, before);
  });

  test('OPTIONS /cart shows tickets and meta with default null', async () => {
    const o = await call(`${T}/cart`, { method: 'OPTIONS' });
    const write = o.body.endpoints.find((e: { methods: string[] }) => e.methods.includes('POST'));
    assert.equal(write.args.tickets.default, null);
    assert.equal(write.args.meta.default, null);
  });

  test('JSON-LD offers: SoldOut with no stock left, LimitedAvailability with 1 to 5, InStock otherwise; a sale changes it', async () => {
    const sold = await seedTicketsFixture(s.db, { attendees: 2, capacity: 2 });
    const few = await insertTicket(s.db, sold.eventId, { title: 'Few', capacity: 3 });
    await insertTicket(s.db, sold.eventId, { title: 'Many', capacity: 100 });
    await insertTicket(s.db, sold.eventId, { title: 'Unlimited' });
    const read = async (auth?: string) =>
      (await call(`${s.root}evt/events/v1/events/${sold.eventId}`, { auth })).body.json_ld.offers.map(
        (o: { availability: string }) => o.availability,
      );
    assert.deepEqual(await read(), ['SoldOut', 'LimitedAvailability', 'InStock', 'InStock']);
    for (let i = 0; i < 3; i++) {
      const r = await call(`${T}/attendees`, {
        method: 'POST',
        auth: s.admin,
        body: { ticket_id: few, full_name: `Buyer ${i}`, email: `b${i}@example.com` },
      });
      assert.equal(r.status, 201);
    }
    // The sale reaches both the anonymous (cached) and the signed-in read.
    assert.deepEqual(await read(), ['SoldOut', 'SoldOut', 'InStock', 'InStock']);
    assert.deepEqual(await read(s.admin), ['SoldOut', 'SoldOut', 'InStock', 'InStock']);
  });
});
