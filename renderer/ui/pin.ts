import { z } from 'zod';
import { sha256 } from '../../shared/checkin/sha256.ts';
import type { KioskDb } from '../store/db.ts';

/**
 * The supervisor PIN that guards the staff tools (search, manual check-in and out, unpair). Set when the
 * kiosk is paired; stored only as a salted PBKDF2-SHA-256 hash in the kiosk's Dexie `meta` table. Wrong
 * attempts are counted in the same table (a reload does not reset them): every 5 wrong in a row lock the
 * PIN pad, first for 60 s, then twice as long each time, up to 15 min.
 *
 * WebCrypto's `subtle` exists only in a secure context; a kiosk opened over plain http on the venue LAN has
 * none, so the same PBKDF2 is also computed here in plain JavaScript (same algorithm, same result).
 */

export const PIN_MIN = 4;
export const PIN_MAX = 12;
export const PIN_ITERATIONS = 100_000;
export const PIN_MAX_FAILS = 5;
export const PIN_LOCK_MS = 60_000;
export const PIN_LOCK_MAX_MS = 15 * 60_000;

const PIN_KEY = 'supervisorPin';
const ATTEMPTS_KEY = 'supervisorPinAttempts';

const PinRecord = z.object({
  algo: z.literal('PBKDF2-SHA-256'),
  iterations: z.number().int().min(1000).max(10_000_000),
  salt: z.string().regex(/^[0-9a-f]{32,}$/),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type PinRecord = z.infer<typeof PinRecord>;

const Attempts = z.object({
  fails: z.number().int().nonnegative(),
  locks: z.number().int().nonnegative(),
  lockedUntil: z.number(),
});
type Attempts = z.infer<typeof Attempts>;
const NO_ATTEMPTS: Attempts = { fails: 0, locks: 0, lockedUntil: 0 };

/** A PIN door staff can type on a number pad: 4 to 12 digits. */
export function validPin(pin: string): boolean {
  return new RegExp(`^[0-9]{${PIN_MIN},${PIN_MAX}}$`).test(pin);
}

// --- HMAC and PBKDF2 over bytes (on the shared SHA-256), for pages without WebCrypto (insecure contexts) ---

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** PBKDF2-HMAC-SHA-256 with a 32-byte output, in plain JavaScript. */
export function pbkdf2Sha256Js(password: Uint8Array, salt: Uint8Array, iterations: number): Uint8Array {
  const key = password.length > 64 ? sha256(password) : password;
  const block = new Uint8Array(64);
  block.set(key);
  const ipad = block.map((b) => b ^ 0x36);
  const opad = block.map((b) => b ^ 0x5c);
  const hmac = (msg: Uint8Array) => sha256(concat(opad, sha256(concat(ipad, msg))));
  let u = hmac(concat(salt, new Uint8Array([0, 0, 0, 1])));
  const out = u.slice();
  for (let i = 1; i < iterations; i++) {
    u = hmac(u);
    for (let j = 0; j < 32; j++) out[j] ^= u[j];
  }
  return out;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const fromHex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (b) => parseInt(b, 16));

/** PBKDF2-SHA-256 of the PIN: WebCrypto where the page has it, else the JavaScript version. */
export async function derivePin(pin: string, saltHex: string, iterations: number, useSubtle = true): Promise<string> {
  const password = new TextEncoder().encode(pin);
  const salt = fromHex(saltHex);
  const subtle = useSubtle ? globalThis.crypto?.subtle : undefined;
  if (subtle) {
    const key = await subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
    const bits = await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 256);
    return hex(new Uint8Array(bits));
  }
  return hex(pbkdf2Sha256Js(password, salt, iterations));
}

/** Equal-time comparison of two hex digests. */
function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * A PIN being set on this database (derived, then stored): the reads below wait for it, so that none answers from
 * the PIN it replaces, or from none, while its PBKDF2 runs (a pairing stores its PIN while the first download has
 * already started, app.ts).
 */
const storing = new WeakMap<KioskDb, Promise<unknown>>();

const settled = (db: KioskDb): Promise<unknown> => storing.get(db) ?? Promise.resolve();

export async function hasPin(db: KioskDb): Promise<boolean> {
  await settled(db);
  return PinRecord.safeParse((await db.meta.get(PIN_KEY))?.value).success;
}

/** Stores a new PIN (a fresh salt each time) and clears the wrong-attempt count. */
export function setPin(db: KioskDb, pin: string, iterations = PIN_ITERATIONS): Promise<void> {
  if (!validPin(pin)) return Promise.reject(new Error(`the PIN must be ${PIN_MIN} to ${PIN_MAX} digits`));
  const job = (async () => {
    // After any PIN still being set: the last one set is the one stored.
    await settled(db);
    const saltBytes = new Uint8Array(16);
    crypto.getRandomValues(saltBytes);
    const salt = hex(saltBytes);
    const record: PinRecord = { algo: 'PBKDF2-SHA-256', iterations, salt, hash: await derivePin(pin, salt, iterations) };
    await db.transaction('rw', db.meta, async () => {
      await db.meta.put({ key: PIN_KEY, value: record });
      await db.meta.put({ key: ATTEMPTS_KEY, value: NO_ATTEMPTS });
    });
  })();
  const done = job.catch(() => undefined);
  storing.set(db, done);
  void done.then(() => {
    if (storing.get(db) === done) storing.delete(db);
  });
  return job;
}

export type PinCheck =
  | { ok: true }
  /** Wrong PIN: `left` more tries before the pad locks. */
  | { ok: false; reason: 'wrong'; left: number }
  /** Too many wrong PINs: try again at `until` (ms since epoch). The PIN typed was not even checked. */
  | { ok: false; reason: 'locked'; until: number }
  /** No PIN is set on this kiosk: pairing sets one. */
  | { ok: false; reason: 'unset' };

async function attempts(db: KioskDb): Promise<Attempts> {
  const parsed = Attempts.safeParse((await db.meta.get(ATTEMPTS_KEY))?.value);
  return parsed.success ? parsed.data : NO_ATTEMPTS;
}

/** When the pad is locked until, or `null` when it is not. */
export async function pinLockedUntil(db: KioskDb, now = Date.now()): Promise<number | null> {
  await settled(db);
  const a = await attempts(db);
  return a.lockedUntil > now ? a.lockedUntil : null;
}

/** Checks a PIN, counting wrong ones; while locked, nothing is checked. */
export async function checkPin(db: KioskDb, pin: string, now = Date.now()): Promise<PinCheck> {
  await settled(db);
  const record = PinRecord.safeParse((await db.meta.get(PIN_KEY))?.value);
  if (!record.success) return { ok: false, reason: 'unset' };
  const before = await attempts(db);
  if (before.lockedUntil > now) return { ok: false, reason: 'locked', until: before.lockedUntil };
  const { salt, iterations, hash } = record.data;
  const right = validPin(pin) && sameDigest(await derivePin(pin, salt, iterations), hash);
  // Read again after the (slow) hash: a second pad must not slip in attempts between read and write.
  return db.transaction('rw', db.meta, async () => {
    const a = await attempts(db);
    if (a.lockedUntil > now) return { ok: false, reason: 'locked', until: a.lockedUntil } as const;
    if (right) {
      await db.meta.put({ key: ATTEMPTS_KEY, value: NO_ATTEMPTS });
      return { ok: true } as const;
    }
    const fails = a.fails + 1;
    if (fails >= PIN_MAX_FAILS) {
      const until = now + Math.min(PIN_LOCK_MAX_MS, PIN_LOCK_MS * 2 ** a.locks);
      await db.meta.put({ key: ATTEMPTS_KEY, value: { fails: 0, locks: a.locks + 1, lockedUntil: until } });
      return { ok: false, reason: 'locked', until } as const;
    }
    await db.meta.put({ key: ATTEMPTS_KEY, value: { ...a, fails } });
    return { ok: false, reason: 'wrong', left: PIN_MAX_FAILS - fails } as const;
  });
}
