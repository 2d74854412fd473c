import crypto from 'node:crypto';

// scrypt cost: about 40 ms per verification on this 2-core machine (median of 10); verified credentials are cached in memory.
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

/** A slow salted hash: `scrypt$N$r$p$salt$hash` (base64). */
export function slowHash(secret: string): string {
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync(secret, salt, KEYLEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export function verifySlowHash(secret: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  const actual = crypto.scryptSync(secret, salt, expected.length, { N: n, r, p, maxmem: 64 * 1024 * 1024 });
  return crypto.timingSafeEqual(actual, expected);
}

/** Fast digest used only as an in-memory cache key, never stored. */
export function digest(s: string): string {
  return crypto.createHash('sha256').update(s).digest('base64');
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomAlnum(length: number): string {
  const bytes = crypto.randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length; i++) {
    const b = bytes[i % bytes.length];
    if (b < 248) out += ALNUM[b % 62];
    if (i >= bytes.length - 1 && out.length < length) return out + randomAlnum(length - out.length);
  }
  return out;
}
