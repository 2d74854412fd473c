import type { Db } from '../db/connection.ts';
import { digest, randomAlnum, slowHash, verifySlowHash } from './hash.ts';
import { findUserByLogin, findUserByEmail, insertUser, setUserRole, type UserRow } from '../db/repos/users.ts';
import { appPasswordsOf, deleteAppPasswordsOf, insertAppPassword, touchAppPassword, type AppPasswordRow } from '../db/repos/app-passwords.ts';
import { getApiKey, insertApiKey, setApiKeyHash, touchApiKey, type ApiKeyRow } from '../db/repos/api-keys.ts';
import { recordAdminPasswordCheck } from '../security/password-strength.ts';

/**
 * Creates an application password. WordPress shows 24 characters in groups of four; spaces are ignored on use.
 * Returns the plain password once: only its hash is stored.
 */
export function createAppPassword(db: Db, userId: number, name: string): { row: AppPasswordRow; password: string } {
  const plain = randomAlnum(24);
  const row = insertAppPassword(db, userId, name, slowHash(plain));
  return { row, password: plain.match(/.{4}/g)!.join(' ') };
}

/** API keys look like `dsk_<id>_<secret>`: the id finds the row, the secret is checked against its slow hash. */
export function createApiKey(db: Db, label: string, eventId: number | null, createdBy: number | null): { row: ApiKeyRow; key: string } {
  const secret = randomAlnum(32);
  const row = db.transaction(() => {
    const r = insertApiKey(db, { label, hash: 'pending', eventId, createdBy });
    const key = `dsk_${r.id}_${secret}`;
    setApiKeyHash(db, r.id, slowHash(key));
    return r;
  })();
  return { row: getApiKey(db, row.id)!, key: `dsk_${row.id}_${secret}` };
}

// Successful slow-hash verifications, keyed by a digest of (presented secret, stored hash): a changed or
// deleted credential misses the cache. Revocation is read from the row on every request.
const verified = new Map<string, number>();
const VERIFIED_MAX = 10_000;

function verifyCached(secret: string, hash: string): boolean {
  const k = digest(`${secret}\u0000${hash}`);
  if (verified.has(k)) return true;
  if (!verifySlowHash(secret, hash)) return false;
  if (verified.size >= VERIFIED_MAX) verified.clear();
  verified.set(k, Date.now());
  return true;
}

const lastTouched = new Map<string, number>();
function throttledTouch(key: string, fn: () => void): void {
  const now = Date.now();
  if ((lastTouched.get(key) ?? 0) > now - 60_000) return;
  lastTouched.set(key, now);
  fn();
}

export type BasicResult =
  | { ok: true; user: UserRow; appPasswordId: number }
  | { ok: false; code: 'invalid_username' | 'incorrect_password' };

export function verifyBasic(db: Db, login: string, password: string, ip: string): BasicResult {
  const user = findUserByLogin(db, login) ?? (login.includes('@') ? findUserByEmail(db, login) : undefined);
  if (!user) return { ok: false, code: 'invalid_username' };
  const plain = password.replace(/\s+/g, '');
  const rows = appPasswordsOf(db, user.id);
  for (const r of rows) {
    if (verifyCached(plain, r.hash)) {
      throttledTouch(`ap${r.id}`, () => touchAppPassword(db, r.id, ip));
      return { ok: true, user, appPasswordId: r.id };
    }
  }
  return { ok: false, code: 'incorrect_password' };
}

export type KeyResult = { ok: true; key: ApiKeyRow } | { ok: false; reason: 'unknown' | 'revoked' };

export function verifyApiKey(db: Db, presented: string): KeyResult {
  const m = /^dsk_(\d{1,12})_([A-Za-z0-9]{16,64})$/.exec(presented.trim());
  if (!m) return { ok: false, reason: 'unknown' };
  const row = getApiKey(db, Number(m[1]));
  if (!row || !verifyCached(presented.trim(), row.hash)) return { ok: false, reason: 'unknown' };
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  throttledTouch(`k${row.id}`, () => touchApiKey(db, row.id));
  return { ok: true, key: row };
}

export function ensureAdmin(db: Db, login: string, password: string): { user: UserRow; created: boolean } {
  return db.transaction(() => {
    let user = findUserByLogin(db, login);
    const created = !user;
    if (!user) user = insertUser(db, { login, email: '', role: 'administrator' });
    else if (user.role !== 'administrator') setUserRole(db, user.id, 'administrator');
    // The configured password becomes the account's one "start-up" application password.
    deleteAppPasswordsOf(db, user.id, 'EVT_ADMIN_PASSWORD');
    const row = insertAppPassword(db, user.id, 'EVT_ADMIN_PASSWORD', slowHash(password.replace(/\s+/g, '')));
    // The security scanner reports a weak start-up password; only the verdict is kept.
    recordAdminPasswordCheck(db, user.id, login, row.id, password);
    return { user: findUserByLogin(db, login)!, created };
  })();
}

