import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { BatchResponse, refusalBatchItem, type RefusalBody } from '../../../shared/checkin/wire.ts';
import { WindowLimiter } from '../../../server/security/window-limiter.ts';

/**
 * `POST /checkins` (CONTRACT section 7, every scan recorded): the kiosk sends the scans it refused on its own
 * (a code for another event, garbage, a ticket already admitted) through its batch, and they land in the log
 * once each, changing no attendee.
 */

let s: TestServer;
let f: TicketsFixture;
let other: TicketsFixture;
let door: { key: string; id: number };
let n = 0;
const nonce = () => `refused-nonce-${String(++n).padStart(6, '0')}-${process.pid}`;
const bearer = (k: string) => `Bearer ${k}`;
const refusal = (extra: Partial<RefusalBody> = {}): RefusalBody => ({
  result: 'rejected',
  reason: 'other_event',
  check_in_date: '2026-11-22T19:00:00+02:00',
  device_id: 'door-refusing',
  nonce: nonce(),
  ...extra,
});
const log = async (q: string) =>
  (await call(`${s.root}evt/tickets/v1/checkins?${q}&per_page=100`, { auth: s.admin })).body as {
    total: number;
    checkins: Array<{
      attendee_id: number | null;
      post_id: number | null;
      result: string;
      reason: string;
      device_id: string;
      nonce: string;
      device_label: string;
    }>;
  };

beforeAll(async () => {
  s = await startTestServer();
  f = await seedTicketsFixture(s.db, { attendees: 3 });
  other = await seedTicketsFixture(s.db, { attendees: 1 });
  door = await s.apiKey('Door 3', f.eventId);
});
afterAll(() => s.close());

describe('refused scans in the check-in log', () => {
  test("a batch of refusals from a door key: each recorded once with reason and device, for the key's event; the same nonces again record nothing", async () => {
    const items = [
      refusal({ reason: 'other_event', attendee_id: other.attendeeIds[0] }),
      refusal({ reason: 'unreadable' }),
      refusal({ result: 'conflict', reason: 'already_here', attendee_id: f.attendeeIds[0] }),
    ];
    const send = () => call(`${s.root}batch/v1`, { method: 'POST', auth: bearer(door.key), body: { requests: items.map(refusalBatchItem) } });
    const r = await send();
    assert.equal(r.status, 207, r.text);
    const body = BatchResponse.parse(r.body);
    assert.deepEqual(
      body.responses.map((x) => x?.status),
      [201, 201, 201],
    );
    const again = BatchResponse.parse((await send()).body);
    assert.deepEqual(
      again.responses.map((x) => (x?.body as { id?: number } | undefined)?.id),
      body.responses.map((x) => (x?.body as { id?: number } | undefined)?.id),
    );

    const rejected = await log(`result=rejected&post_id=${f.eventId}`);
    assert.equal(rejected.total, 2);
    assert.deepEqual(
      rejected.checkins.map((c) => [c.reason, c.device_id, c.attendee_id, c.post_id, c.device_label]),
      [
        // Another event's attendee ID stays out of this event's log: the reason says what it was.
        ['other_event', 'door-refusing', null, f.eventId, 'Door 3'],
        ['unreadable', 'door-refusing', null, f.eventId, 'Door 3'],
      ],
    );
    const conflicts = await log(`result=conflict&post_id=${f.eventId}`);
    assert.deepEqual(
      conflicts.checkins.map((c) => [c.reason, c.attendee_id]),
      [['already_here', f.attendeeIds[0]]],
    );
    // Nothing about the attendee changed.
    const a = (await call(`${s.root}evt/tickets/v1/attendees/${f.attendeeIds[0]}`, { auth: s.admin })).body as { checked_in: boolean };
    assert.equal(a.checked_in, false);
  });

  test('a key cannot record for another event; a manager names the event; a bad result or short nonce is 400', async () => {
    const post = (body: Record<string, unknown>, auth = bearer(door.key)) => call(`${s.root}evt/tickets/v1/checkins`, { method: 'POST', auth, body });
    assert.equal((await post({ ...refusal(), post_id: other.eventId })).status, 400);
    assert.equal((await post({ ...refusal(), result: 'accepted' })).status, 400);
    assert.equal((await post({ ...refusal(), nonce: 'short' })).status, 400);
    assert.equal((await post({ ...refusal() }, s.admin)).status, 400);
    const ok = await post({ ...refusal({ reason: 'wrong_security_code' }), post_id: other.eventId }, s.admin);
    assert.equal(ok.status, 201, ok.text);
    assert.equal((ok.body as { post_id: number }).post_id, other.eventId);
    assert.equal((await call(`${s.root}evt/tickets/v1/checkins`, { method: 'POST', body: refusal() })).status, 401);
  });
});

describe('refused scans have a share per caller', () => {
  test('past its share a key is answered 429 with Retry-After and nothing is recorded; another key and a replayed nonce are not held up', async () => {
    // A small share for this test (the app's is MAX_REFUSALS_PER_HOUR): 3 in an hour.
    const saved = s.app.state.services.refusalLimiter;
    s.app.state.services.refusalLimiter = new WindowLimiter({ max: 3, windowMs: 3_600_000 });
    try {
      const flood = await s.apiKey('Flooding door', f.eventId);
      const calm = await s.apiKey('Calm door', f.eventId);
      const first = refusal();
      const items = [first, refusal(), refusal(), refusal(), refusal()].map(refusalBatchItem);
      const r = await call(`${s.root}batch/v1`, { method: 'POST', auth: bearer(flood.key), body: { requests: items } });
      assert.equal(r.status, 207);
      const statuses = BatchResponse.parse(r.body).responses.map((x) => x?.status);
      assert.deepEqual(statuses, [201, 201, 201, 429, 429]);
      const refused = r.body.responses[3];
      assert.equal(refused.body.code, 'rest_too_many_requests');
      assert.ok(Number(refused.headers['Retry-After']) > 0, JSON.stringify(refused.headers));
      const mine = (await log('device_id=door-refusing')).checkins.filter((c) => c.device_label === 'Flooding door');
      assert.equal(mine.length, 3, 'only the share was recorded');
      // A nonce already recorded answers with its record, whatever the share.
      const again = await call(`${s.root}batch/v1`, { method: 'POST', auth: bearer(flood.key), body: { requests: [refusalBatchItem(first)] } });
      assert.equal(again.body.responses[0].status, 201);
      // Another door's share is its own.
      const other = await call(`${s.root}batch/v1`, { method: 'POST', auth: bearer(calm.key), body: { requests: [refusalBatchItem(refusal())] } });
      assert.equal(other.body.responses[0].status, 201);
    } finally {
      s.app.state.services.refusalLimiter = saved;
    }
  });
});
