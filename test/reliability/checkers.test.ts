import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { openDatabase } from '../../server/db/connection.ts';
import { insertCheckin } from '../../server/db/repos/checkins.ts';
import { setCheckedIn } from '../../server/db/repos/attendees.ts';
import { seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { allowed } from './access-table.ts';
import { judge } from './fuzz-judge.ts';
import { SimKiosk } from './kiosk-sim.ts';
import { auditCheckins } from './verify-checkins.ts';

/** The suite's own judges must catch what they are there to catch. */

describe('reliability checkers', () => {
  test('the check-in audit catches a lost acknowledgement, a double admission and a stale attendee state', async () => {
    const db = await openDatabase(':memory:');
    const f = await seedTicketsFixture(db, { attendees: 3, provider: 'rsvp' });
    const [a, b, c] = f.attendeeIds as [number, number, number];
    const kiosk = new SimKiosk('k1', 'http://127.0.0.1:9/wp-json/', 'Bearer x');
    const row = (attendee: number, nonce: string, result: 'accepted' | 'conflict') =>
      insertCheckin(db, {
        attendee_id: attendee,
        event_id: f.eventId,
        result,
        reason: null,
        scanned_at: new Date().toISOString(),
        received_at: new Date().toISOString(),
        device_id: 'k1',
        nonce,
        source: 'site',
        user_id: 0,
        api_key_id: null,
      });
    const sa = kiosk.scan(a);
    const sb = kiosk.scan(b);
    const sc = kiosk.scan(c);
    kiosk.outbox.length = 0;
    // a: stored and consistent. b: acknowledged but never stored. c: two accepted rows, state points at neither.
    await setCheckedIn(db, a, await row(a, sa.nonce, 'accepted'));
    await row(c, sc.nonce, 'accepted');
    await row(c, 'another-nonce-000000', 'accepted');
    await setCheckedIn(db, c, null);
    for (const s of [sa, sb, sc]) kiosk.acks.push({ nonce: s.nonce, attendeeId: s.attendeeId, status: 201, code: null, standing: null });
    const audit = await auditCheckins(db, [kiosk], new Set([a, b, c]));
    assert.equal(audit.lost.length, 1);
    assert.match(audit.lost[0]!, new RegExp(sb.nonce));
    assert.equal(audit.unlogged.length, 1);
    assert.deepEqual(
      audit.inconsistent.map((s) => s.split(':')[0]),
      [`attendee ${b}`, `attendee ${c}`],
    );
    await db.close();
  });

  test('the fuzz judge wants no 5xx and the envelope with a matching data.status', () => {
    assert.equal(judge(200, 'not json at all', { batch: false }), null);
    assert.match(judge(500, '{"code":"rest_internal_error","message":"x","data":{"status":500}}', { batch: false })!, /500/);
    assert.match(judge(400, '{"code":"x","message":"y","data":{"status":404}}', { batch: false })!, /data.status 404/);
    assert.match(judge(403, '{"success":false,"data":{"error":"no"}}', { batch: false })!, /envelope/);
    assert.match(judge(404, '<html>', { batch: false })!, /not JSON/);
    assert.match(judge(207, '{"responses":[{"status":201,"body":{}},{"status":502,"body":{}}]}', { batch: true })!, /item 1: 502/);
    assert.match(judge(207, '{"responses":[{"status":400,"body":{"code":"c"}}]}', { batch: true })!, /item 0/);
  });

  test('the access table refuses the wrong status for each caller', () => {
    assert.equal(allowed('anonymous', 'manage_attendees', { status: 401, code: 'rest_forbidden' }), null);
    assert.ok(allowed('anonymous', 'manage_attendees', { status: 200, code: null }));
    assert.ok(allowed('door key', 'edit_events', { status: 401, code: 'rest_forbidden' }));
    assert.equal(allowed('door key', 'edit_events', { status: 403, code: 'rest_forbidden' }), null);
    assert.equal(allowed('door user', 'manage_attendees', { status: 200, code: null }), null);
    assert.ok(allowed('organizer', 'manage_attendees', { status: 403, code: 'rest_forbidden' }));
    assert.ok(allowed('revoked key', 'public', { status: 200, code: null }));
    assert.equal(allowed('administrator', 'manage_options', { status: 400, code: 'rest_invalid_param' }), null);
    assert.ok(allowed('administrator', 'public', { status: 503, code: null }));
  });
});
