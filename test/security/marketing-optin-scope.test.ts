import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../helpers/tickets-fixture.ts';

/**
 * Issue 10 item 9, marketing opt-in (CONTRACT section 3): a key bound to event A cannot record or withdraw the
 * marketing consent of event B's attendees (B's attendee answers as an unknown one), and `POST /opt-ins` is
 * not batchable, so a key cannot flip 25 consents per request.
 */

let s: TestServer;
let A: TicketsFixture;
let B: TicketsFixture;
let keyA: string;
const OPT = () => `${s.root}marketing/v1/opt-ins`;
const optins = async () => JSON.stringify(await s.db.prepare('SELECT * FROM marketing_optins ORDER BY attendee_id').all());

beforeAll(async () => {
  s = await startTestServer();
  A = await seedTicketsFixture(s.db, { attendees: 2 });
  B = await seedTicketsFixture(s.db, { attendees: 2 });
  keyA = `Bearer ${(await s.apiKey('Door A', A.eventId)).key}`;
});
afterAll(() => s.close());

describe('marketing opt-in and door keys', () => {
  test("a key of event A cannot touch event B's attendee opt-in; it answers as for an unknown attendee", async () => {
    const before = await optins();
    const unknown = await call(OPT(), { method: 'POST', auth: keyA, body: { attendee_id: 999999, consent: true } });
    for (const consent of [true, false]) {
      const r = await call(OPT(), { method: 'POST', auth: keyA, body: { attendee_id: B.attendeeIds[0], consent, source: 'door' } });
      assert.equal(r.status, unknown.status, r.text);
      assert.equal(r.body.code, unknown.body.code);
      assert.equal(r.body.message, unknown.body.message);
      const viaQuery = await call(`${OPT()}?api_key=${encodeURIComponent(keyA.slice(7))}`, {
        method: 'POST',
        form: { attendee_id: String(B.attendeeIds[1]), consent: String(consent) },
      });
      assert.equal(viaQuery.status, unknown.status, viaQuery.text);
    }
    assert.equal(await optins(), before);
  });

  test("the key records its own event's opt-ins; an unbound door user any event's", async () => {
    const own = await call(OPT(), { method: 'POST', auth: keyA, body: { attendee_id: A.attendeeIds[0], consent: true, source: 'door' } });
    assert.equal(own.status, 201, own.text);
    const door = await call(OPT(), { method: 'POST', auth: await s.userAuth('door'), body: { attendee_id: B.attendeeIds[0], consent: true } });
    assert.equal(door.status, 201, door.text);
  });

  test('POST /opt-ins is not batchable: rest_batch_not_allowed, nothing recorded, no allow_batch in the index', async () => {
    const before = await optins();
    const r = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: keyA,
      body: {
        requests: [A.attendeeIds[1], B.attendeeIds[1]].map((id) => ({
          method: 'POST',
          path: '/marketing/v1/opt-ins',
          body: { attendee_id: id, consent: true },
        })),
      },
    });
    assert.ok(r.status < 500, r.text);
    for (const item of r.body.responses) {
      assert.equal(item.status, 400);
      assert.equal(item.body.code, 'rest_batch_not_allowed');
    }
    assert.equal(await optins(), before);
    const index = await call(`${s.root}marketing/v1`);
    const route = index.body.routes['/marketing/v1/opt-ins'];
    assert.ok(route, 'the route is in the namespace index');
    assert.equal(
      route.endpoints.some((e: { allow_batch?: unknown }) => e.allow_batch !== undefined),
      false,
    );
  });
});
