import { describe, test, vi } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import {
  base64UrlToBytes,
  bytesToBase64Url,
  checkTicketSignature,
  readSignatureParams,
  signedText,
  verifySignature,
} from '../../../shared/checkin/signature.ts';
import { parseTicketCode, ticketCodeUrl } from '../../../shared/checkin/ticket-code.ts';

/** A key pair as the server makes one: the public key as base64url of its 32 raw bytes. */
function keyPair(kid: string) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const key = publicKey.export({ type: 'spki', format: 'der' }).subarray(12).toString('base64url');
  const sign = (text: string) => crypto.sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64url');
  return { kid, key, sign };
}

const ticket = { eventId: 12, attendeeId: 57, ticketId: 13, securityCode: '0a1b2c3d4e' };

describe('signedText', () => {
  test('is {event_id}:{attendee id}:{ticket id}:{security_code}', () => {
    assert.equal(signedText(ticket), '12:57:13:0a1b2c3d4e');
  });
});

describe('base64url', () => {
  test('round-trips bytes, without padding', () => {
    const bytes = Uint8Array.from({ length: 33 }, (_, i) => (i * 37) & 0xff);
    const text = bytesToBase64Url(bytes);
    assert.doesNotMatch(text, /[=+/]/);
    assert.equal(text, Buffer.from(bytes).toString('base64url'));
    assert.deepEqual(base64UrlToBytes(text), bytes);
  });
  test('refuses what is not base64url', () => {
    for (const bad of ['a+b', 'a/b', 'ab=', 'a', 'ä']) assert.equal(base64UrlToBytes(bad), null, bad);
  });
});

describe('verifySignature (WebCrypto Ed25519)', () => {
  const k = keyPair('k1');
  test("accepts the key's signature of the text, and nothing else", async () => {
    const text = signedText(ticket);
    const sig = k.sign(text);
    assert.equal(await verifySignature(k.key, text, sig), true);
    assert.equal(await verifySignature(k.key, `${text}0`, sig), false);
    assert.equal(await verifySignature(keyPair('k2').key, text, sig), false);
    // One bit flipped in the signature.
    const raw = base64UrlToBytes(sig)!;
    raw[10] ^= 1;
    assert.equal(await verifySignature(k.key, text, bytesToBase64Url(raw)), false);
  });
  test('malformed keys and signatures are simply not valid (no throw)', async () => {
    const text = signedText(ticket);
    const sig = k.sign(text);
    for (const [key, s] of [
      ['', sig],
      ['short', sig],
      [k.key, ''],
      [k.key, 'x'.repeat(86)],
      [k.key, sig.slice(1)],
      [k.key, `${sig}A`],
      ['A'.repeat(43), sig],
    ]) {
      assert.equal(await verifySignature(key, text, s), false, `${key} ${s}`);
    }
  });
});

describe('checkTicketSignature', () => {
  const k1 = keyPair('kid-one');
  const k2 = keyPair('kid-two');
  const keys = [
    { kid: k1.kid, key: k1.key },
    { kid: k2.kid, key: k2.key },
  ];
  const code = (sig: string, kid: string, securityCode = ticket.securityCode) => ({ ...ticket, securityCode, sig, kid });

  test('valid under a trusted key, finding the ticket among the ones the device knows', async () => {
    const sig = k2.sign(signedText(ticket));
    assert.deepEqual(await checkTicketSignature(code(sig, 'kid-two'), keys, [11, 13, 14]), { kind: 'valid', ticketId: 13, kid: 'kid-two' });
  });
  test('forged: a trusted key ID whose signature fits no known ticket (another attendee, code or key signed it)', async () => {
    assert.deepEqual(await checkTicketSignature(code(k1.sign(signedText(ticket)), 'kid-two'), keys, [13]), { kind: 'forged' });
    assert.deepEqual(await checkTicketSignature(code(k2.sign(signedText({ ...ticket, attendeeId: 58 })), 'kid-two'), keys, [13]), { kind: 'forged' });
    assert.deepEqual(await checkTicketSignature(code(k2.sign(signedText(ticket)), 'kid-two', 'ffffffffff'), keys, [13]), { kind: 'forged' });
    assert.deepEqual(await checkTicketSignature(code('garbage', 'kid-two'), keys, [13]), { kind: 'forged' });
    // A ticket the device does not know of cannot be matched: not proven.
    assert.deepEqual(await checkTicketSignature(code(k2.sign(signedText(ticket)), 'kid-two'), keys, [11]), { kind: 'forged' });
  });
  test('unproven: a key ID the device does not trust, or no known ticket, proves nothing either way', async () => {
    assert.deepEqual(await checkTicketSignature(code(k1.sign(signedText(ticket)), 'kid-three'), keys, [13]), { kind: 'unproven' });
    assert.deepEqual(await checkTicketSignature(code(k1.sign(signedText(ticket)), 'kid-one'), [], [13]), { kind: 'unproven' });
    // No ticket of the event known yet (paired, nothing downloaded): not a forgery, just not proven.
    assert.deepEqual(await checkTicketSignature(code('garbage', 'kid-one'), keys, []), { kind: 'unproven' });
  });
  test('where WebCrypto is missing (a page outside a secure context) a signature is unproven, never forged', async () => {
    const k3 = keyPair('kid-web');
    const sig = k3.sign(signedText(ticket));
    vi.stubGlobal('crypto', {});
    try {
      assert.deepEqual(await checkTicketSignature(code(sig, 'kid-web'), [{ kid: k3.kid, key: k3.key }], [13]), { kind: 'unproven' });
      assert.deepEqual(await checkTicketSignature(code('garbage', 'kid-web'), [{ kid: k3.kid, key: k3.key }], [13]), { kind: 'unproven' });
    } finally {
      vi.unstubAllGlobals();
    }
  });
  test('a security code whose case a keyboard wedge changed still verifies', async () => {
    const sig = k1.sign(signedText(ticket));
    assert.equal((await checkTicketSignature(code(sig, 'kid-one', ' 0A1B2C3D4E '), keys, [13])).kind, 'valid');
  });
});

describe('signed QR URLs', () => {
  const k = keyPair('kid-url');
  const sig = k.sign(signedText(ticket));

  test("sig and kid follow the original's parameters, and parse back", () => {
    const code = { attendeeId: ticket.attendeeId, eventId: ticket.eventId, securityCode: ticket.securityCode, signature: { sig, kid: k.kid } };
    const url = ticketCodeUrl('https://tickets.example', code);
    assert.equal(
      url,
      `https://tickets.example/?event_qr_code=1&ticket_id=57&event_id=12&security_code=0a1b2c3d4e&path=%2Fevt%2Ftickets%2Fv1%2Fqr&sig=${sig}&kid=kid-url`,
    );
    assert.deepEqual(parseTicketCode(url), code);
  });
  test('an unsigned code parses with no signature key at all', () => {
    const url = ticketCodeUrl('https://tickets.example', { attendeeId: 57, eventId: 12, securityCode: '0a1b2c3d4e' });
    assert.equal('signature' in parseTicketCode(url)!, false);
  });
  test('a half or malformed signature is kept as scanned, bounded, for verification to refuse', () => {
    const base = 'https://t.example/?event_qr_code=1&ticket_id=57&event_id=12&security_code=0a1b2c3d4e';
    assert.deepEqual(parseTicketCode(`${base}&kid=abcd`)?.signature, { sig: '', kid: 'abcd' });
    assert.deepEqual(parseTicketCode(`${base}&sig=${'x'.repeat(500)}&kid=abcd`)?.signature, { sig: 'x'.repeat(128), kid: 'abcd' });
    assert.equal(readSignatureParams(null, undefined), null);
  });
});
