import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { parsePairing, pairingLink, toBase64Url, fromBase64Url } from '../../../shared/checkin/pairing.ts';

const payload = { url: 'http://127.0.0.1:8080/en/wp-json/', api_key: 'k3y-Ü', event_id: 7 };

describe('pairing payload', () => {
  test('base64url round-trips UTF-8 without padding or + and /', () => {
    const text = '{"a":"ÿ?>>>~~~"}';
    const enc = toBase64Url(text);
    assert.doesNotMatch(enc, /[+/=]/);
    assert.equal(fromBase64Url(enc), text);
  });
  test('reads the link, the raw JSON and the bare fragment', () => {
    const link = pairingLink('http://127.0.0.1:8080/', payload);
    assert.match(link, /^http:\/\/127\.0\.0\.1:8080\/kiosk\/#pair=[A-Za-z0-9_-]+$/);
    assert.deepEqual(parsePairing(link), payload);
    assert.deepEqual(parsePairing(JSON.stringify(payload)), payload);
    assert.deepEqual(parsePairing(link.split('#pair=')[1]), payload);
  });
  test('normalises the interface root and coerces the event id', () => {
    assert.deepEqual(parsePairing('{"url":"http://h:1/et/wp-json","api_key":"x","event_id":"3"}'), {
      url: 'http://h:1/et/wp-json/',
      api_key: 'x',
      event_id: 3,
    });
  });
  test('refuses ticket codes and broken payloads', () => {
    for (const raw of [
      'http://h/?event_qr_code=1&ticket_id=1&event_id=2&security_code=abc',
      '{"url":"ftp://h/","api_key":"x","event_id":1}',
      '{"url":"http://h/","api_key":"","event_id":1}',
      '{"url":"http://h/","api_key":"x","event_id":0}',
      '{not json',
      'http://h/kiosk/#pair=%%%',
    ]) {
      assert.equal(parsePairing(raw), null, raw);
    }
  });
  test("carries the event's signing key and its ID (CONTRACT section 8), checked for shape", () => {
    const signed = { ...payload, signing_key: `${'A'.repeat(42)}Q`, signing_key_id: 'L6PcsSjG8CXG' };
    const link = pairingLink('http://127.0.0.1:8080/', signed);
    assert.deepEqual(parsePairing(link), signed);
    // A pairing without one is as before.
    assert.equal('signing_key' in parsePairing(pairingLink('http://127.0.0.1:8080/', payload))!, false);
    for (const bad of [
      { ...signed, signing_key: 'A'.repeat(42) },
      { ...signed, signing_key: `${'A'.repeat(42)}+` },
      { ...signed, signing_key_id: 'a b' },
      { ...signed, signing_key_id: 'x'.repeat(65) },
    ]) {
      assert.equal(parsePairing(JSON.stringify(bad)), null, JSON.stringify(bad));
    }
  });
});
