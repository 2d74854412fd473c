import crypto from 'node:crypto';

/**
 * Signed, self-contained tokens: `base64url(JSON payload) "." base64url(HMAC-SHA256)`. The HMAC key is
 * derived from the site secret and a purpose, so a token made for one use (a download link) is never
 * accepted for another (a views token).
 */

function key(secret: string, purpose: string): Buffer {
  return crypto.createHmac('sha256', secret).update(`doorstep-forms:${purpose}`).digest();
}

export function signToken(secret: string, purpose: string, payload: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const mac = crypto.createHmac('sha256', key(secret, purpose)).update(body).digest('base64url');
  return `${body}.${mac}`;
}

/** The payload of a token whose signature is good, or null (malformed or tampered). Expiry is the caller's to check. */
export function verifyToken(secret: string, purpose: string, token: string): Record<string, unknown> | null {
  if (typeof token !== 'string' || token.length > 2000) return null;
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  // The signature is compared as text: its last character carries two unused bits, and a decoder ignores
  // them, so comparing decoded bytes would take four spellings of one signature.
  const expected = Buffer.from(crypto.createHmac('sha256', key(secret, purpose)).update(m[1]).digest('base64url'));
  const given = Buffer.from(m[2]);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  try {
    const payload: unknown = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
    return payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A keyed hash of a client address: stable per site, so repeat submitters can be told apart, never reversible to the address. */
export function hashIp(secret: string, ip: string): string {
  return crypto.createHmac('sha256', key(secret, 'ip')).update(ip).digest('hex').slice(0, 32);
}
