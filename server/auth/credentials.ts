import type { Db } from '../db/connection.ts';
import { DUMMY_HASH, digest, randomAlnum, slowHash, verifySlowHash, verifySlowHashAsync } from './hash.ts';
import { Lru } from './lru.ts';
import { findUserByLogin, findUserByEmail, insertUser, setUserRole, type UserRow } from '../db/repos/users.ts';
import { appPasswordsOf, deleteAppPasswordsOf, insertAppPassword, touchAppPassword, type AppPasswordRow } from '../db/repos/app-passwords.ts';
import { getApiKey, insertApiKey, setApiKeyHash, touchApiKey, type ApiKeyRow } from '../db/repos/api-keys.ts';
import { recordAdminPasswordCheck } from '../security/password-strength.ts';

/**
 * Creates an application password. WordPress shows 24 characters in groups of four; spaces are ignored on use.
 * Returns the plain password once: only its hash is stored.
 */
export async function createAppPassword(db: Db, userId: number, name: string): Promise<{ row: AppPasswordRow; password: string }> {
  const plain = randomAlnum(24);
  const row = await insertAppPassword(db, userId, name, slowHash(plain));
  return { row, password: plain.match(/.{4}/g)!.join(' ') };
}

/** API keys look like `dsk_<id>_<secret>`: the id finds the row, the secret is checked against its slow hash. */
export async function createApiKey(db: Db, label: string, eventId: number | null, createdBy: number | null): Promise<{ row: ApiKeyRow; key: string }> {
  const secret = randomAlnum(32);
  const row = await db.transaction(async () => {
    const r = await insertApiKey(db, { label, hash: 'pending', eventId, createdBy });
    const key = `dsk_${r.id}_${secret}`;
    await setApiKeyHash(db, r.id, slowHash(key));
    return r;
  });
  return { row: (await getApiKey(db, row.id))!, key: `dsk_${row.id}_${secret}` };
}

// Slow-hash verdicts, keyed by a keyed digest of (presented secret, stored hash): a changed or deleted credential
// misses the cache, and revocation is read from the row on every request. Both maps are LRUs (a flood of
// distinct guesses evicts the oldest verdicts, never everyone's at once). A failed verdict is remembered too: the
// same wrong secret against the same hash always fails, and the QR route's synchronous check then never runs
// scrypt on the request thread for a key authenticate() has already refused.
const verified = new Lru<string, true>(10_000);
const refused = new Lru<string, true>(2_000);
// Verifications under way, so concurrent identical credentials share one scrypt run.
const inFlight = new Map<string, Promise<boolean>>();

function verdict(k: string): boolean | undefined {
  if (verified.get(k)) return true;
  if (refused.get(k)) return false;
  return undefined;
}

function remember(k: string, ok: boolean): boolean {
  if (ok) verified.set(k, true);
  else refused.set(k, true);
  return ok;
}

/** Off the request thread, answered from the caches when it can be, and shared by concurrent identical checks. */
function verifyCachedAsync(secret: string, hash: string): Promise<boolean> {
  const k = digest(`${secret}\u0000${hash}`);
  const known = verdict(k);
  if (known !== undefined) return Promise.resolve(known);
  let p = inFlight.get(k);
  if (!p) {
    p = verifySlowHashAsync(secret, hash).then((ok) => {
      inFlight.delete(k);
      return remember(k, ok);
    });
    inFlight.set(k, p);
  }
  return p;
}

/** The synchronous check, for callers that cannot wait: usually a cache hit, as authenticate() ran first. */
function verifyCachedSync(secret: string, hash: string): boolean {
  const k = digest(`${secret}\u0000${hash}`);
  return verdict(k) ?? remember(k, verifySlowHash(secret, hash));
}

const lastTouched = new Lru<string, number>(10_000);
async function throttledTouch(key: string, fn: () => Promise<void>): Promise<void> {
  const now = Date.now();
  if ((lastTouched.get(key) ?? 0) > now - 60_000) return;
  lastTouched.set(key, now);
  await fn();
}

export type BasicResult = { ok: true; user: UserRow; appPasswordId: number } | { ok: false };

/**
 * Checks a login (or e-mail) and application password. An unknown login, or a user without application
 * passwords, costs one verification against a dummy hash, as a wrong password does; a user's passwords are
 * checked side by side (WordPress also tries each), so the time is that of one check for up to four of them.
 */
export async function verifyBasic(db: Db, login: string, password: string, ip: string): Promise<BasicResult> {
  const user = login ? (await findUserByLogin(db, login) ?? (login.includes('@') ? await findUserByEmail(db, login) : undefined)) : undefined;
  const plain = password.replace(/\s+/g, '');
  const rows = user ? await appPasswordsOf(db, user.id) : [];
  if (!user || !rows.length) {
    await verifyCachedAsync(plain, DUMMY_HASH);
    return { ok: false };
  }
  const matches = await Promise.all(rows.map((r) => verifyCachedAsync(plain, r.hash)));
  const i = matches.indexOf(true);
  if (i < 0) return { ok: false };
  // Read the row again: it may have been revoked while the hash was being checked.
  const row = (await appPasswordsOf(db, user.id)).find((r) => r.id === rows[i].id && r.hash === rows[i].hash);
  if (!row) return { ok: false };
  await throttledTouch(`ap${row.id}`, () => touchAppPassword(db, row.id, ip));
  return { ok: true, user, appPasswordId: row.id };
}

/** `malformed`: not of the `dsk_<id>_<secret>` shape, so it cannot be any key (nothing was checked). */
export type KeyResult = { ok: true; key: ApiKeyRow } | { ok: false; reason: 'unknown' | 'revoked' | 'malformed' };

const KEY_FORMAT = /^dsk_(\d{1,12})_([A-Za-z0-9]{16,64})$/;

function keyResult(row: ApiKeyRow): KeyResult {
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  return { ok: true, key: row };
}

/**
 * Checks an API key off the request thread. A well-formed key with an unknown ID costs one verification
 * against a dummy hash, as a wrong secret does. A malformed one is refused at once (its shape is public).
 */
export async function verifyApiKeyAsync(db: Db, presented: string): Promise<KeyResult> {
  const text = presented.trim();
  const m = KEY_FORMAT.exec(text);
  if (!m) return { ok: false, reason: 'malformed' };
  const row = await getApiKey(db, Number(m[1]));
  if (!row) {
    await verifyCachedAsync(text, DUMMY_HASH);
    return { ok: false, reason: 'unknown' };
  }
  if (!(await verifyCachedAsync(text, row.hash))) return { ok: false, reason: 'unknown' };
  // Read the row again: it may have been revoked while the hash was being checked.
  const now = await getApiKey(db, row.id);
  if (!now || now.hash !== row.hash) return { ok: false, reason: 'unknown' };
  const r = keyResult(now);
  if (r.ok) await throttledTouch(`k${now.id}`, () => touchApiKey(db, now.id));
  return r;
}

/**
 * The synchronous check (the QR check-in route calls it after authenticate() has checked the same key, so it is
 * answered from the verdict caches; a key authenticate() did not see is verified on this thread).
 */
export async function verifyApiKey(db: Db, presented: string): Promise<KeyResult> {
  const text = presented.trim();
  const m = KEY_FORMAT.exec(text);
  if (!m) return { ok: false, reason: 'malformed' };
  const row = await getApiKey(db, Number(m[1]));
  if (!row || !verifyCachedSync(text, row.hash)) return { ok: false, reason: 'unknown' };
  const r = keyResult(row);
  if (r.ok) await throttledTouch(`k${row.id}`, () => touchApiKey(db, row.id));
  return r;
}

export async function ensureAdmin(db: Db, login: string, password: string): Promise<{ user: UserRow; created: boolean }> {
  return await db.transaction(async () => {
    let user = await findUserByLogin(db, login);
    const created = !user;
    if (!user) user = await insertUser(db, { login, email: '', role: 'administrator' });
    else if (user.role !== 'administrator') await setUserRole(db, user.id, 'administrator');
    // The configured password becomes the account's one "start-up" application password.
    await deleteAppPasswordsOf(db, user.id, 'EVT_ADMIN_PASSWORD');
    const row = await insertAppPassword(db, user.id, 'EVT_ADMIN_PASSWORD', slowHash(password.replace(/\s+/g, '')));
    // The security scanner reports a weak start-up password; only the verdict is kept.
    await recordAdminPasswordCheck(db, user.id, login, row.id, password);
    return { user: (await findUserByLogin(db, login))!, created };
  });
}
