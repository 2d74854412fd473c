import type { Db } from '../db/connection.ts';
import { nowUtc } from '../db/clock.ts';
import { setJsonOption } from '../db/repos/site-options.ts';

/**
 * Weak-password checks for the start-up administrator password (`EVT_ADMIN_PASSWORD`). Application passwords
 * are random, so this is the one password a person chose; only the verdict is stored, never the password.
 */

// The most used passwords of public breach corpora (a short list: the check is for defaults, not a cracker).
const COMMON = new Set([
  '123456',
  '123456789',
  '12345678',
  '12345',
  '1234567',
  '1234567890',
  '111111',
  '000000',
  '123123',
  '654321',
  'password',
  'password1',
  'password123',
  'passw0rd',
  'p@ssw0rd',
  'p@ssword',
  'qwerty',
  'qwerty123',
  'qwertyuiop',
  'abc123',
  'iloveyou',
  'admin',
  'admin123',
  'administrator',
  'root',
  'toor',
  'letmein',
  'welcome',
  'welcome1',
  'monkey',
  'dragon',
  'football',
  'baseball',
  'master',
  'shadow',
  'sunshine',
  'princess',
  'trustno1',
  'superman',
  'changeme',
  'default',
  'secret',
  'test',
  'test123',
  'guest',
  'login',
  'starwars',
  'whatever',
  'qazwsx',
  'zaq12wsx',
  '1q2w3e4r',
  '1qaz2wsx',
  'asdfghjkl',
  'asdf1234',
  'doorstep',
  'wordpress',
  'events',
  'tickets',
]);

export type Weakness = 'too_short' | 'common' | 'contains_login' | 'single_character_class' | 'repetitive';

export const MIN_LENGTH = 12;

function sequential(s: string): boolean {
  if (s.length < 4) return false;
  const step = s.charCodeAt(1) - s.charCodeAt(0);
  if (Math.abs(step) !== 1) return false;
  for (let i = 2; i < s.length; i++) if (s.charCodeAt(i) - s.charCodeAt(i - 1) !== step) return false;
  return true;
}

/** Every reason the password is weak (empty: no weakness found). */
export function passwordWeaknesses(login: string, password: string): Weakness[] {
  const out: Weakness[] = [];
  const p = password.replace(/\s+/g, '');
  const lower = p.toLowerCase();
  if (p.length < MIN_LENGTH) out.push('too_short');
  const stem = lower.replace(/[0-9!@#$%^&*.?_-]+$/, '');
  if (
    COMMON.has(lower) ||
    COMMON.has(stem) ||
    (stem.length >= 3 && COMMON.has(stem.replace(/[@4]/g, 'a').replace(/0/g, 'o').replace(/[1!]/g, 'i').replace(/3/g, 'e').replace(/\$/g, 's')))
  ) {
    out.push('common');
  }
  if (login.length >= 3 && lower.includes(login.toLowerCase())) out.push('contains_login');
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(p)).length;
  if (classes <= 1) out.push('single_character_class');
  if (/^(.)\1+$/.test(p) || /^(.{1,3})\1{2,}$/.test(p) || sequential(lower)) out.push('repetitive');
  return out;
}

export const ADMIN_PASSWORD_CHECK = 'security.admin_password_check';

export interface AdminPasswordCheck {
  user_id: number;
  login: string;
  app_password_id: number;
  weaknesses: Weakness[];
  checked: string;
}

/** Called where the start-up password is set (ensureAdmin): records the verdict for the security scanner. */
export async function recordAdminPasswordCheck(db: Db, userId: number, login: string, appPasswordId: number, password: string): Promise<void> {
  const check: AdminPasswordCheck = {
    user_id: userId,
    login,
    app_password_id: appPasswordId,
    weaknesses: passwordWeaknesses(login, password),
    checked: nowUtc(),
  };
  await setJsonOption(db, ADMIN_PASSWORD_CHECK, check);
}
