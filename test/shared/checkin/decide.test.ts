import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { decideScan, decideCheckin, type ScanSubject } from '../../../shared/checkin/decide.ts';
import { hashSecurityCode } from '../../../shared/checkin/security-code.ts';
import { orderAllowsCheckin } from '../../../shared/checkin/order-status.ts';

const now = Date.parse('2026-11-22T10:00:00Z');
const ctx = { eventId: 10, now, lastSyncAt: now - 60_000 };
const subject = (over: Partial<ScanSubject> = {}): ScanSubject => ({
  id: 5,
  eventId: 10,
  status: 'publish',
  orderStatus: 'completed',
  securityCodeHash: hashSecurityCode(5, 'c0ffee1234'),
  checkedIn: false,
  checkin: null,
  name: 'Mari Maasikas',
  ticketTitle: 'General',
  ...over,
});
const code = { attendeeId: 5, eventId: 10, securityCode: 'c0ffee1234' };

describe('decideScan', () => {
  test('admits a valid, unused, paid ticket', () => {
    assert.deepEqual(decideScan(code, subject(), ctx), {
      kind: 'admitted',
      attendeeId: 5,
      name: 'Mari Maasikas',
      ticketTitle: 'General',
    });
  });
  test('says when and where an attendee was already checked in', () => {
    const v = decideScan(code, subject({ checkedIn: true, checkin: { date: '2026-11-22 09:58:00', deviceId: 'door-b' } }), ctx);
    assert.deepEqual(v, {
      kind: 'already',
      attendeeId: 5,
      name: 'Mari Maasikas',
      ticketTitle: 'General',
      checkedInAt: '2026-11-22 09:58:00',
      deviceId: 'door-b',
    });
  });
  test('names each reason a ticket is not valid', () => {
    const reason = (v: ReturnType<typeof decideScan>) => (v.kind === 'invalid' ? v.reason : v.kind);
    assert.equal(reason(decideScan(null, undefined, ctx)), 'unreadable');
    assert.equal(reason(decideScan({ ...code, eventId: 11 }, subject(), ctx)), 'other_event');
    assert.equal(reason(decideScan({ ...code, eventId: null }, subject({ eventId: 11 }), ctx)), 'other_event');
    assert.equal(reason(decideScan(code, undefined, ctx)), 'not_in_list', 'only the server can say a code does not exist');
    assert.equal(reason(decideScan({ ...code, securityCode: 'c0ffee1235' }, subject(), ctx)), 'wrong_security_code');
    assert.equal(reason(decideScan(code, subject({ securityCodeHash: null }), ctx)), 'wrong_security_code');
    assert.equal(reason(decideScan(code, subject({ status: 'trash' }), ctx)), 'revoked');
    assert.equal(reason(decideScan(code, subject({ orderStatus: 'refunded' }), ctx)), 'order_not_complete');
    assert.equal(reason(decideScan(code, subject({ orderStatus: null }), ctx)), 'order_not_complete');
  });
  test('a wrong security code reveals nothing about the attendee', () => {
    const v = decideScan({ ...code, securityCode: 'nope' }, subject({ status: 'trash', checkedIn: true }), ctx);
    assert.deepEqual(v, { kind: 'invalid', reason: 'wrong_security_code', attendeeId: 5, name: null });
  });
  test('a well-formed code for this event the cache does not know is "not in the list yet", never not valid', () => {
    assert.deepEqual(decideScan(code, undefined, { ...ctx, lastSyncAt: now - 120_000 }), {
      kind: 'not_in_list',
      attendeeId: 5,
      syncedAgoMs: 120_000,
    });
    assert.deepEqual(decideScan(code, undefined, { ...ctx, lastSyncAt: null }), { kind: 'not_in_list', attendeeId: 5, syncedAgoMs: null });
  });
  test('a re-scan of an attendee this device admitted is "already admitted here", with how long ago', () => {
    const mine = subject({ checkedIn: true, checkin: { date: new Date(now - 12_000).toISOString(), deviceId: 'door-a' } });
    const v = decideScan(code, mine, { ...ctx, deviceId: 'door-a' });
    assert.equal(v.kind, 'already_here');
    assert.equal(v.kind === 'already_here' && v.agoMs, 12_000);
    assert.equal(decideScan(code, mine, { ...ctx, deviceId: 'door-b' }).kind, 'already');
  });
});

describe('decideCheckin and order statuses', () => {
  test('only completed orders allow check-in, whatever the case', () => {
    assert.equal(orderAllowsCheckin('completed'), true);
    assert.equal(orderAllowsCheckin('Completed'), true);
    for (const s of ['pending', 'refunded', 'cancelled', 'failed', '', null, undefined]) assert.equal(orderAllowsCheckin(s), false);
  });
  test('checks revocation before order status before prior check-in', () => {
    const s = subject({ status: 'trash', orderStatus: 'pending', checkedIn: true });
    const v = decideCheckin(s);
    assert.equal(v.kind === 'invalid' ? v.reason : v.kind, 'revoked');
  });
});
