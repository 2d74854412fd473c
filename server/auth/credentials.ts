import type { Db } from '../db/connection.ts';
import { DUMMY_HASH, digest, fastHash, isFastHash, randomAlnum, slowHash, verifyFastHash, verifySlowHashAsync } from './hash.ts';
import { Lru } from './lru.ts';
import { findUserByLogin, findUserByEmail, insertUser, setUserRole, type UserRow } from '../db/repos/users.ts';
import {
  appPasswordsOf,
  deleteAppPasswordsOf,
  insertAppPassword,
  setAppPasswordHash,
  touchAppPassword,
  type AppPasswordRow,
} from '../db/repos/app-passwords.ts';
import { getApiKey, insertApiKey, setApiKeyHash, touchApiKey, type ApiKeyRow } from '../db/repos/api-keys.ts';
import { recordAdminPasswordCheck } from '../security/password-strength.ts';

/**
 * Creates an application password. WordPress shows 24 characters in groups of four; spaces are ignored on use.
 * Returns the plain password once: only its (fast) hash is stored, as it is random (see `fastHash`).
 */
export async function createAppPassword(db: Db, userId: number, name: string): Promise<{ row: AppPasswordRow; password: string }> {
  const plain = randomAlnum(24);
  const row = await insertAppPassword(db, userId, name, fastHash(plain));
  return { row, password: plain.match(/.{4}/g)!.join(' ') };
}

/**
 * API keys look like `dsk_<id>_<secret>`: the id finds the row, the key is checked against its fast hash. A key
 * bound to a check-in list (`listId`) carries the list's event as its `eventId`.
 */
export async function createApiKey(
  db: Db,
  label: string,
  eventId: number | null,
  createdBy: number | null,
  listId: number | null = null,
): Promise<{ row: ApiKeyRow; key: string }> {
  const secret = randomAlnum(32);
  const row = await db.transaction(async () => {
    const r = await insertApiKey(db, { label, hash: 'pending', eventId, listId, createdBy });
    await setApiKeyHash(db, r.id, fastHash(`dsk_${r.id}_${secret}`));
    return r;
  });
  return { row: (await getApiKey(db, row.id))!, key: `dsk_${row.id}_${secret}` };
}

/** The start-up password's name: chosen by a person, so it keeps its slow hash. */
const ADMIN_PASSWORD = 'EVT_ADMIN_PASSWORD';
/** What a generated application password looks like once its spaces are removed. */
const GENERATED_PASSWORD = /^[A-Za-z0-9]{24}$/;

// Slow-hash verdicts that succeeded, keyed by a keyed digest of (presented secret, stored hash): a changed or
// deleted credential misses the cache, and revocation is read from the row on every request. Failures are never
// remembered: a remembered failure made a repeated wrong password fast for an unknown login (checked against the
// one dummy hash) and slow for a known one (its own hash), which told who exists.
const verified = new Lru<string, true>(10_000);
// Verifications under way, so concurrent identical credentials share one scrypt run.
const inFlight = new Map<string, Promise<boolean>>();

/** Off the request thread, answered from the cache of successes when it can be, and shared by concurrent identical checks. */
function verifyCachedAsync(secret: string, hash: string): Promise<boolean> {
  const k = digest(`${secret}\u0000${hash}`);
  if (verified.get(k)) return Promise.resolve(true);
  let p = inFlight.get(k);
  if (!p) {
    p = verifySlowHashAsync(secret, hash).then((ok) => {
      inFlight.delete(k);
      if (ok) verified.set(k, true);
      return ok;
    });
    inFlight.set(k, p);
  }
  return p;
}

const lastTouched = new Lru<string, number>(10_000);
async function throttledTouch(key: string, fn: () => Promise<void>): Promise<void> {
  const now = Date.now();
  if ((lastTouched.get(key) ?? 0) > now - 60_000) return;
  lastTouched.set(key, now);
  await fn();
}

/**
 * How a check is limited (authenticate.ts passes the sign-in gate's): `slow` runs a slow-hash check under the
 * limit (refused before it runs when the limit is reached; `counts`: a failure to record); `failed` records a
 * failure of a fast check, refusing with 429 when the limit was already reached. A fast check that succeeds
 * consults no limit: a random secret cannot be guessed, so a right one is accepted wherever others failed.
 */
export interface CheckLimits {
  slow<T>(check: () => Promise<{ counts: boolean; result: T }>): Promise<T>;
  failed(): void | Promise<void>;
}

const unlimited: CheckLimits = { slow: async (check) => (await check()).result, failed: () => {} };

export type BasicResult = { ok: true; user: UserRow; appPasswordId: number } | { ok: false };

/**
 * Checks a login (or e-mail) and application password. A generated password is checked against the fast
 * hashes, at once. Anything else costs exactly one slow check, under the limit: the user's slow hashes side by
 * side (the start-up password; generated ones stored before fast hashes, each rewritten to its fast hash on its
 * first use), or a dummy one for an unknown login or a user without slow hashes. So an unknown login and a wrong
 * password take the same work, whatever was asked before.
 */
export async function verifyBasic(db: Db, login: string, password: string, ip: string, limits: CheckLimits = unlimited): Promise<BasicResult> {
  const user = login ? ((await findUserByLogin(db, login)) ?? (login.includes('@') ? await findUserByEmail(db, login) : undefined)) : undefined;
  const plain = password.replace(/\s+/g, '');
  const rows = await appPasswordsOf(db, user?.id ?? 0);
  const fast = rows.find((r) => verifyFastHash(plain, r.hash));
  if (user && fast) {
    await throttledTouch(`ap${fast.id}`, () => touchAppPassword(db, fast.id, ip));
    return { ok: true, user, appPasswordId: fast.id };
  }
  return await limits.slow(async () => {
    const slow = user ? rows.filter((r) => !isFastHash(r.hash)) : [];
    const matches = slow.length ? await Promise.all(slow.map((r) => verifyCachedAsync(plain, r.hash))) : [await verifyCachedAsync(plain, DUMMY_HASH)];
    const i = matches.indexOf(true);
    if (!user || i < 0) return { counts: true, result: { ok: false } as BasicResult };
    // Read the row again: it may have been revoked while the hash was being checked.
    const row = (await appPasswordsOf(db, user.id)).find((r) => r.id === slow[i].id && r.hash === slow[i].hash);
    if (!row) return { counts: true, result: { ok: false } as BasicResult };
    if (row.name !== ADMIN_PASSWORD && GENERATED_PASSWORD.test(plain)) await setAppPasswordHash(db, row.id, fastHash(plain));
    await throttledTouch(`ap${row.id}`, () => touchAppPassword(db, row.id, ip));
    return { counts: false, result: { ok: true, user, appPasswordId: row.id } as BasicResult };
  });
}

/** `malformed`: not of the `dsk_<id>_<secret>` shape, so it cannot be any key (nothing was checked). */
export type KeyResult = { ok: true; key: ApiKeyRow } | { ok: false; reason: 'unknown' | 'revoked' | 'malformed' };

const KEY_FORMAT = /^dsk_(\d{1,12})_([A-Za-z0-9]{16,64})$/;

async function keyResult(db: Db, row: ApiKeyRow): Promise<KeyResult> {
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  await throttledTouch(`k${row.id}`, () => touchApiKey(db, row.id));
  return { ok: true, key: row };
}

/**
 * Checks an API key: against its fast hash, at once. A key stored before fast hashes (a slow hash) is checked
 * once off the request thread, under the limit, and its hash rewritten to the fast one when it matches. A
 * malformed key is refused at once and not counted (its shape is public, it cannot be a guess).
 */
export async function verifyApiKeyAsync(db: Db, presented: string, limits: CheckLimits = unlimited): Promise<KeyResult> {
  const text = presented.trim();
  const m = KEY_FORMAT.exec(text);
  if (!m) return { ok: false, reason: 'malformed' };
  const row = await getApiKey(db, Number(m[1]));
  if (!row || isFastHash(row.hash)) {
    if (row && verifyFastHash(text, row.hash)) return await keyResult(db, row);
    await limits.failed();
    return { ok: false, reason: 'unknown' };
  }
  return await limits.slow(async () => {
    if (!(await verifyCachedAsync(text, row.hash))) return { counts: true, result: { ok: false, reason: 'unknown' } as KeyResult };
    // Read the row again: it may have been revoked while the hash was being checked.
    const now = await getApiKey(db, row.id);
    if (!now || now.hash !== row.hash) return { counts: true, result: { ok: false, reason: 'unknown' } as KeyResult };
    await setApiKeyHash(db, now.id, fastHash(text));
    return { counts: false, result: await keyResult(db, now) };
  });
}

export async function ensureAdmin(db: Db, login: string, password: string): Promise<{ user: UserRow; created: boolean }> {
  return await db.transaction(async () => {
    let user = await findUserByLogin(db, login);
    const created = !user;
    if (!user) user = await insertUser(db, { login, email: '', role: 'administrator' });
    else if (user.role !== 'administrator') await setUserRole(db, user.id, 'administrator');
    // The configured password becomes the account's one "start-up" application password.
    await deleteAppPasswordsOf(db, user.id, ADMIN_PASSWORD);
    const row = await insertAppPassword(db, user.id, ADMIN_PASSWORD, slowHash(password.replace(/\s+/g, '')));
    // The security scanner reports a weak start-up password; only the verdict is kept.
    await recordAdminPasswordCheck(db, user.id, login, row.id, password);
    return { user: (await findUserByLogin(db, login))!, created };
  });
}
