import crypto from 'node:crypto';

// scrypt cost: about 40 ms per verification on this 2-core machine (median of 10); verified credentials are cached in
// memory, and request-path verifications run on the thread pool (verifySlowHashAsync).
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

interface Parsed {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  expected: Buffer;
}

function parse(stored: string): Parsed | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const expected = Buffer.from(parts[5], 'base64');
  if (!expected.length) return null;
  return { n, r, p, salt: Buffer.from(parts[4], 'base64'), expected };
}

const MAXMEM = 64 * 1024 * 1024;
let verifications = 0;

/** Slow-hash verifications run so far in this process (tests count them: coalescing, dummy checks). */
export function slowHashVerifications(): number {
  return verifications;
}

/** Verifies on the calling thread. Only for callers that cannot wait; the request path uses `verifySlowHashAsync`. */
export function verifySlowHash(secret: string, stored: string): boolean {
  const h = parse(stored);
  if (!h) return false;
  verifications++;
  try {
    const actual = crypto.scryptSync(secret, h.salt, h.expected.length, { N: h.n, r: h.r, p: h.p, maxmem: MAXMEM });
    return crypto.timingSafeEqual(actual, h.expected);
  } catch {
    return false;
  }
}

// At most this many scrypt runs on libuv's pool at once (its default size is 4): a flood of wrong passwords
// then leaves pool threads free for file reads and DNS lookups, and the rest wait their turn in order.
const POOL_SHARE = 2;
let running = 0;
const waiting: (() => void)[] = [];

function next(): void {
  running--;
  const go = waiting.shift();
  if (go) go();
}

/**
 * Verifies on libuv's thread pool (async `crypto.scrypt`), so the event loop keeps answering other requests
 * while a flood of wrong passwords is checked.
 */
export function verifySlowHashAsync(secret: string, stored: string): Promise<boolean> {
  const h = parse(stored);
  if (!h) return Promise.resolve(false);
  verifications++;
  return new Promise((resolve) => {
    const run = () => {
      running++;
      try {
        crypto.scrypt(secret, h.salt, h.expected.length, { N: h.n, r: h.r, p: h.p, maxmem: MAXMEM }, (err, actual) => {
          next();
          resolve(!err && crypto.timingSafeEqual(actual, h.expected));
        });
      } catch {
        // Cost parameters scrypt refuses (a damaged stored hash) throw at once.
        next();
        resolve(false);
      }
    };
    if (running < POOL_SHARE) run();
    else waiting.push(run);
  });
}

/**
 * A hash no secret matches, with the real cost parameters: verified in place of a missing one (unknown login,
 * user without application passwords, unknown key ID) so those answers take as long as a wrong password.
 */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$${crypto.randomBytes(16).toString('base64')}$${crypto.randomBytes(KEYLEN).toString('base64')}`;

/**
 * A fast hash for random secrets (door keys, generated application passwords): `sha256$<base64>`. Those carry
 * 143 bits and more of entropy, so no slow hash is needed to stop an offline search, and checking one costs
 * microseconds: no limit has to shield the CPU from a flood of them (CONTRACT section 3). Human-chosen
 * passwords (the start-up `EVT_ADMIN_PASSWORD`) keep the slow hash.
 */
export function fastHash(secret: string): string {
  return `sha256$${crypto.createHash('sha256').update(secret).digest('base64')}`;
}

export function isFastHash(stored: string): boolean {
  return stored.startsWith('sha256$');
}

/** Whether `secret` matches a fast hash, in constant time (a slow or damaged hash never matches). */
export function verifyFastHash(secret: string, stored: string): boolean {
  const expected = Buffer.from(stored);
  const actual = Buffer.from(fastHash(secret));
  return isFastHash(stored) && expected.length === actual.length && crypto.timingSafeEqual(actual, expected);
}

// Keyed with a per-process random key: a memory dump holds no fast unkeyed hash of a secret to brute-force.
const DIGEST_KEY = crypto.randomBytes(32);

/** Fast keyed digest used only as an in-memory cache key, never stored. */
export function digest(s: string): string {
  return crypto.createHmac('sha256', DIGEST_KEY).update(s).digest('base64');
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
