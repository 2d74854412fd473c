import crypto from 'node:crypto';
import type { Db } from '../db/connection.ts';
import type { Config } from '../config.ts';
import type { SecurityConfig } from '../../shared/routes/security.ts';
import { getJsonOption, getOption } from '../db/repos/site-options.ts';
import { administratorLogins, administratorsWithLogins } from '../db/repos/users.ts';
import { liveApiKeys } from '../db/repos/api-keys.ts';
import { appPasswordExists, appPasswordsWithLogins } from '../db/repos/app-passwords.ts';
import { ADMIN_PASSWORD_CHECK, passwordWeaknesses, type AdminPasswordCheck } from './password-strength.ts';

/**
 * The scan: checks of this site's own configuration. Each finding names its subject (`key`), so a dismissal
 * follows the same problem from scan to scan, and digests its details, so "ignore until it changes" lapses when
 * they change.
 */

export const SEVERITY = { critical: 100, high: 75, medium: 50, low: 25 } as const;

export interface Finding {
  type: string;
  severity: number;
  key: string;
  shortMsg: string;
  longMsg: string;
  data: Record<string, unknown>;
}

export const detailHash = (f: Finding) => crypto.createHash('sha256').update(JSON.stringify(f.data)).digest('hex').slice(0, 32);

export const DEFAULT_LOGINS = ['admin', 'administrator', 'root', 'test', 'user', 'demo', 'wordpress', 'webmaster'];
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

const daysAgo = (utc: string, now: Date) => (now.getTime() - Date.parse(`${utc.replace(' ', 'T')}Z`)) / 86_400_000;

async function weakPasswords(db: Db, config: Config): Promise<Finding[]> {
  // The configured value when the process has it; otherwise the verdict recorded when it was set, as long as
  // that application password still exists.
  let check: Pick<AdminPasswordCheck, 'login' | 'weaknesses'> | undefined;
  if (config.adminUser && config.adminPassword) {
    check = { login: config.adminUser, weaknesses: passwordWeaknesses(config.adminUser, config.adminPassword) };
  } else {
    const recorded = await getJsonOption<AdminPasswordCheck | null>(db, ADMIN_PASSWORD_CHECK, null);
    if (recorded && (await appPasswordExists(db, recorded.app_password_id))) check = recorded;
  }
  if (!check || check.weaknesses.length === 0) return [];
  return [
    {
      type: 'weak_admin_password',
      severity: SEVERITY.critical,
      key: `weak_admin_password:${check.login.toLowerCase()}`,
      shortMsg: `The start-up administrator password of "${check.login}" is weak`,
      longMsg: `EVT_ADMIN_PASSWORD is ${check.weaknesses.join(', ').replaceAll('_', ' ')}. Set a long random password (or remove it and use application passwords).`,
      data: { login: check.login, weaknesses: check.weaknesses },
    },
  ];
}

async function defaultLogins(db: Db): Promise<Finding[]> {
  const rows = await administratorsWithLogins(db, DEFAULT_LOGINS);
  return rows.map((u) => ({
    type: 'default_admin_login',
    severity: SEVERITY.high,
    key: `default_admin_login:${u.id}`,
    shortMsg: `An administrator uses the guessable login "${u.login}"`,
    longMsg: 'Attackers try default logins first. Create an administrator with another login and demote or remove this one.',
    data: { user_id: u.id, login: u.login },
  }));
}

async function idleCredentials(db: Db, settings: SecurityConfig, now: Date): Promise<Finding[]> {
  const out: Finding[] = [];
  const keys = await liveApiKeys(db);
  for (const k of keys) {
    if (k.last_used === null) {
      out.push({
        type: 'api_key_never_used',
        severity: SEVERITY.medium,
        key: `api_key_never_used:${k.id}`,
        shortMsg: `API key "${k.label}" has never been used`,
        longMsg: 'A door key nobody uses is a credential nobody watches. Revoke it if no device needs it.',
        data: { key_id: k.id, label: k.label, created: k.created },
      });
    } else if (daysAgo(k.last_used, now) >= settings.apiKeyMaxIdleDays) {
      out.push({
        type: 'api_key_unused',
        severity: SEVERITY.medium,
        key: `api_key_unused:${k.id}`,
        shortMsg: `API key "${k.label}" has not been used for ${Math.floor(daysAgo(k.last_used, now))} days`,
        longMsg: `Keys idle for ${settings.apiKeyMaxIdleDays} days or more should be revoked.`,
        data: { key_id: k.id, label: k.label, last_used: k.last_used },
      });
    }
  }
  const passwords = await appPasswordsWithLogins(db);
  for (const p of passwords) {
    const since = p.last_used ?? p.created;
    if (daysAgo(since, now) < settings.apiKeyMaxIdleDays) continue;
    out.push({
      type: 'app_password_unused',
      severity: SEVERITY.low,
      key: `app_password_unused:${p.id}`,
      shortMsg: `Application password "${p.name}" of "${p.login}" has not been used for ${Math.floor(daysAgo(since, now))} days`,
      longMsg: 'Revoke application passwords that are no longer in use.',
      data: { app_password_id: p.id, login: p.login, last_used: p.last_used },
    });
  }
  return out;
}

function https(config: Config): Finding[] {
  const u = new URL(config.publicUrl);
  if (u.protocol === 'https:') return [];
  const loopback = LOOPBACK.test(u.hostname);
  return [
    {
      type: 'public_url_not_https',
      severity: loopback ? SEVERITY.low : SEVERITY.high,
      key: 'public_url_not_https',
      shortMsg: 'The public URL does not use HTTPS',
      longMsg: `${config.publicUrl} is plain HTTP: passwords, API keys and tickets cross the network readable by anyone on it. Serve the site over HTTPS and set EVT_PUBLIC_URL to the https:// address.`,
      data: { public_url: config.publicUrl, loopback },
    },
  ];
}

async function registration(db: Db): Promise<Finding[]> {
  if ((await getOption(db, 'users_can_register')) !== '1') return [];
  const role = (await getOption(db, 'default_role')) ?? 'subscriber';
  const privileged = role === 'administrator' || role === 'organizer';
  return [
    {
      type: 'open_registration',
      severity: privileged ? SEVERITY.critical : SEVERITY.medium,
      key: 'open_registration',
      shortMsg: privileged ? `Anyone can register and becomes "${role}"` : 'Anyone can register an account',
      longMsg: 'The users_can_register option is on. Turn it off unless visitors really need accounts.',
      data: { default_role: role },
    },
  ];
}

async function administrators(db: Db, settings: SecurityConfig): Promise<Finding[]> {
  const logins = await administratorLogins(db);
  if (logins.length <= settings.maxAdministrators) return [];
  return [
    {
      type: 'too_many_administrators',
      severity: SEVERITY.medium,
      key: 'too_many_administrators',
      shortMsg: `${logins.length} users are administrators (at most ${settings.maxAdministrators} expected)`,
      longMsg: 'Every administrator account is a way in. Give people the organizer or door role where that is enough.',
      data: { count: logins.length, logins },
    },
  ];
}

/** Runs the enabled checks. */
export async function runChecks(db: Db, config: Config, settings: SecurityConfig, now = new Date()): Promise<Finding[]> {
  return [
    ...(settings.scansEnabled_weakPasswords ? await weakPasswords(db, config) : []),
    ...(settings.scansEnabled_defaultLogins ? await defaultLogins(db) : []),
    ...(settings.scansEnabled_apiKeys ? await idleCredentials(db, settings, now) : []),
    ...(settings.scansEnabled_https ? https(config) : []),
    ...(settings.scansEnabled_registration ? await registration(db) : []),
    ...(settings.scansEnabled_administrators ? await administrators(db, settings) : []),
  ];
}
