import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';

// The last tickets-namespace differences the compat harness found (issue 11): each answered as the original does.
let s: TestServer;
let f: TicketsFixture;
let T: string;
beforeAll(async () => {
  s = await startTestServer();
  T = `${s.root}evt/tickets/v1`;
  f = seedTicketsFixture(s.db, { attendees: 1 });
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
});
