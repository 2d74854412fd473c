import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { parseTicketCode, ticketCodeUrl } from '../../../shared/checkin/ticket-code.ts';

describe('parseTicketCode', () => {
  test('reads the original Event Tickets check-in URL', () => {
    const url = 'http://127.0.0.1:8080/?event_qr_code=1&ticket_id=57&event_id=12&security_code=0a1b2c3d4e&path=%2Fevt%2Ftickets%2Fv1%2Fqr';
    assert.deepEqual(parseTicketCode(url), { attendeeId: 57, eventId: 12, securityCode: '0a1b2c3d4e' });
  });
  test('round-trips what ticketCodeUrl builds', () => {
    const code = { attendeeId: 9001, eventId: 44, securityCode: 'ffee001122' };
    assert.deepEqual(parseTicketCode(ticketCodeUrl('https://tickets.example/', code)), code);
  });
  test('accepts the bare query string and a code without event_id when the flag is set', () => {
    assert.deepEqual(parseTicketCode('event_qr_code=1&ticket_id=3&security_code=abc123abc1'), {
      attendeeId: 3,
      eventId: null,
      securityCode: 'abc123abc1',
    });
  });
  test('refuses what is not a ticket code', () => {
    for (const raw of [
      '',
      '4006381333931',
      'http://127.0.0.1/kiosk/#pair=eyJ1cmwiOiJ4In0',
      'https://example.com/?ticket_id=5',
      '?event_qr_code=1&ticket_id=abc&security_code=x',
      '?event_qr_code=1&ticket_id=5&security_code=',
      '?event_qr_code=1&ticket_id=0&security_code=abc',
      '?event_qr_code=1&ticket_id=5&event_id=x&security_code=abc',
      '?event_qr_code=0&ticket_id=5&event_id=1&security_code=abc',
    ]) {
      assert.equal(parseTicketCode(raw), null, raw);
    }
  });
});
