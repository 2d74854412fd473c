/**
 * Signed tickets (CONTRACT section 8): a ticket's QR URL carries `sig`, an Ed25519 signature by its event's key
 * over `{event_id}:{attendee id}:{ticket id}:{security_code}`, and `kid`, the key's ID, so a door device that
 * holds the event's public key can admit a ticket sold after its last download, with no network.
 *
 * Verification uses WebCrypto (Chromium 137+ and Node 20 know Ed25519), so the kiosk and the tests share it.
 * The server signs with node:crypto (server/tickets-signing.ts).
 */

/** A signing key as door devices hold it: the key's ID and the base64url of its 32-byte raw public key. */
export interface PublicSigningKey {
  kid: string;
  key: string;
}

/** A key ID: what the server makes (base64url of 9 bytes) and never more than a short URL-safe word. */
export const SIGNING_KEY_ID = /^[A-Za-z0-9_-]{4,64}$/;
/** base64url (no padding) of 32 bytes. */
export const SIGNING_PUBLIC_KEY = /^[A-Za-z0-9_-]{43}$/;
/** base64url (no padding) of a 64-byte Ed25519 signature. */
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

/** The UTF-8 text a ticket's signature covers. */
export function signedText(t: { eventId: number; attendeeId: number; ticketId: number; securityCode: string }): string {
  return `${t.eventId}:${t.attendeeId}:${t.ticketId}:${t.securityCode}`;
}

/** base64url (RFC 4648 §5, no padding) of bytes, without Buffer. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Inverse of {@link bytesToBase64Url}; `null` for text that is not base64url. */
export function base64UrlToBytes(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  try {
    const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * A QR code's `sig` and `kid` as scanned (trimmed, cut to a bounded length), or `null` when it carries neither
 * (an unsigned code). Their shape is checked when verified: a malformed signature under a trusted key is a forgery.
 */
export function readSignatureParams(sig: string | null | undefined, kid: string | null | undefined): { sig: string; kid: string } | null {
  if (typeof sig !== 'string' && typeof kid !== 'string') return null;
  return { sig: (sig ?? '').trim().slice(0, 128), kid: (kid ?? '').trim().slice(0, 64) };
}

const imported = new Map<string, Promise<CryptoKey | null>>();

/**
 * WebCrypto's `subtle`, or `null` where the page has none: browsers offer it in secure contexts only, and a kiosk
 * opened over plain http from a LAN address is not one (the Electron shell and https are).
 */
function subtle(): SubtleCrypto | null {
  return globalThis.crypto?.subtle ?? null;
}

/**
 * The WebCrypto key of a base64url public key, imported once per key; `null` when it is no Ed25519 key or this
 * runtime cannot verify Ed25519 at all.
 */
function importKey(key: string): Promise<CryptoKey | null> {
  let p = imported.get(key);
  if (!p) {
    const raw = SIGNING_PUBLIC_KEY.test(key) ? base64UrlToBytes(key) : null;
    const s = subtle();
    p =
      raw && s ? s.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']).catch(() => null) : Promise.resolve(null);
    // A handful of keys per device: bounded anyway, so a stream of keys cannot grow it.
    if (imported.size >= 64) imported.clear();
    imported.set(key, p);
  }
  return p;
}

/** Whether `sig` (base64url) is `k`'s Ed25519 signature of `text`; `null` when the runtime could not tell. */
async function verifyWith(k: CryptoKey, text: string, sig: string): Promise<boolean | null> {
  const s = SIGNATURE.test(sig) ? base64UrlToBytes(sig) : null;
  if (!s) return false;
  try {
    return await (subtle() as SubtleCrypto).verify({ name: 'Ed25519' }, k, s as Uint8Array<ArrayBuffer>, new TextEncoder().encode(text));
  } catch {
    return null;
  }
}

/** Whether `sig` (base64url) is `key`'s Ed25519 signature of `text`. Malformed input is simply not valid. */
export async function verifySignature(key: string, text: string, sig: string): Promise<boolean> {
  const k = await importKey(key);
  return k !== null && (await verifyWith(k, text, sig)) === true;
}

/**
 * What a signed code proves, checked against the keys a device trusts for its event:
 * - `valid`: signed by a trusted key for one of `ticketIds` (the QR URL names the attendee, not its ticket, so
 *   each ticket of the event the device knows is tried; there are few).
 * - `forged`: signed under a trusted key ID, but the signature fits none of the tickets.
 * - `unproven`: the key ID is not one the device trusts (a key made after its last download, or revoked), the
 *   device knows no ticket of the event yet, or it cannot verify Ed25519 (no WebCrypto outside a secure context):
 *   the signature proves nothing either way, and the code counts as unsigned.
 */
export type SignatureCheck = { kind: 'valid'; ticketId: number; kid: string } | { kind: 'forged' } | { kind: 'unproven' };

export async function checkTicketSignature(
  code: { eventId: number; attendeeId: number; securityCode: string; sig: string; kid: string },
  keys: readonly PublicSigningKey[],
  ticketIds: readonly number[],
): Promise<SignatureCheck> {
  const key = keys.find((k) => k.kid === code.kid);
  const k = key && ticketIds.length > 0 ? await importKey(key.key) : null;
  if (!key || !k) return { kind: 'unproven' };
  // Keyboard-wedge scanners may change case: the code as scanned, then lower case (how the server makes codes).
  const scanned = code.securityCode.trim();
  const variants = scanned === scanned.toLowerCase() ? [scanned] : [scanned, scanned.toLowerCase()];
  for (const ticketId of ticketIds) {
    for (const securityCode of variants) {
      const text = signedText({ eventId: code.eventId, attendeeId: code.attendeeId, ticketId, securityCode });
      const verdict = await verifyWith(k, text, code.sig);
      if (verdict === null) return { kind: 'unproven' };
      if (verdict) return { kind: 'valid', ticketId, kid: key.kid };
    }
  }
  return { kind: 'forged' };
}
