import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { classifyCheckinResponse, BatchRequest, BatchResponse, CheckinBody, checkinBatchItem } from '../../../shared/checkin/wire.ts';
import { isoWithOffset, makeNonce } from '../../../shared/checkin/ids.ts';

const attendee = {
  id: 5,
  post_id: 10,
  ticket_id: 3,
  status: 'publish',
  title: 'A',
  checked_in: true,
  checkin_details: { date: '2026-11-22 10:00:00', date_details: {}, source: 'kiosk', author: '1', device_id: 'door-a' },
};

describe('classifyCheckinResponse', () => {
  test('sorts every answer the contract names', () => {
    assert.equal(classifyCheckinResponse(201, attendee).kind, 'accepted');
    const conflict = classifyCheckinResponse(400, {
      code: 'tec-et-attendee-already-checked-in',
      message: 'Attendee is already checked in.',
      data: { status: 400, checkin_details: attendee.checkin_details },
    });
    assert.equal(conflict.kind, 'conflict');
    assert.equal(conflict.kind === 'conflict' && conflict.standing?.device_id, 'door-a');
    const invalid = classifyCheckinResponse(400, { code: 'tec-et-attendee-invalid-check-in', message: 'm', data: { status: 400 } });
    assert.deepEqual(invalid, { kind: 'rejected', code: 'tec-et-attendee-invalid-check-in', message: 'm', status: 400 });
    assert.equal(classifyCheckinResponse(404, { code: 'attendee-not-found', message: 'm', data: { status: 404 } }).kind, 'rejected');
    assert.equal(classifyCheckinResponse(401, { code: 'rest_forbidden', message: 'm', data: { status: 401 } }).kind, 'device');
    assert.equal(classifyCheckinResponse(403, { code: 'rest_forbidden', message: 'm', data: { status: 403 } }).kind, 'device');
    assert.equal(classifyCheckinResponse(500, { code: 'rest_internal_error', message: 'm', data: { status: 500 } }).kind, 'retry');
    assert.equal(classifyCheckinResponse(429, { code: 'rest_too_many_requests', message: 'm', data: { status: 429 } }).kind, 'retry');
    assert.equal(classifyCheckinResponse(502, '<html>').kind, 'retry');
    assert.equal(classifyCheckinResponse(201, { nope: 1 }).kind, 'retry');
  });
});

describe('batch answer shapes', () => {
  test("an item's headers may be an object (with Allow) or PHP's empty array []", () => {
    const r = BatchResponse.parse({
      responses: [
        { body: attendee, status: 201, headers: { Allow: 'GET, POST, PUT, PATCH' } },
        { body: { code: 'rest_no_route' }, status: 404, headers: [] },
        { body: {}, status: 400 },
        null,
      ],
    });
    assert.deepEqual(
      r.responses.map((x) => x?.headers),
      [{ Allow: 'GET, POST, PUT, PATCH' }, {}, {}, undefined],
    );
  });
});

describe('check-in request shapes', () => {
  test('a batch item built from a fresh scan validates', () => {
    const body = { check_in: true, check_in_date: isoWithOffset(Date.UTC(2026, 10, 22, 8), 120), device_id: 'door-a', nonce: makeNonce() };
    assert.equal(body.check_in_date, '2026-11-22T10:00:00.000+02:00');
    assert.equal(CheckinBody.parse(body).nonce.length, 32);
    const req = BatchRequest.parse({ requests: [checkinBatchItem(5, body)] });
    assert.equal(req.validation, 'normal');
    assert.equal(req.requests[0].path, '/evt/tickets/v1/attendees/5');
    assert.throws(() => BatchRequest.parse({ requests: Array.from({ length: 26 }, () => checkinBatchItem(5, body)) }));
    assert.throws(() => CheckinBody.parse({ ...body, nonce: 'short' }));
    assert.throws(() => CheckinBody.parse({ ...body, check_in_date: '2026-11-22 10:00:00' }));
  });
  test('negative offsets are written with a minus sign', () => {
    assert.equal(isoWithOffset(Date.UTC(2026, 0, 1, 3, 30), -330), '2025-12-31T22:00:00.000-05:30');
  });
});
