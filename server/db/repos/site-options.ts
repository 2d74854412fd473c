import crypto from 'node:crypto';
import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';

/** Site options (WordPress `get_option`/`update_option`) in the `options` table. */
export async function getOption(db: Db, name: string): Promise<string | undefined> {
  return ((await statement(db, 'SELECT value FROM options WHERE name = ?').get(name)) as { value: string } | undefined)?.value;
}

export async function setOption(db: Db, name: string, value: string): Promise<void> {
  await statement(db, 'INSERT INTO options (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value').run(name, value);
}

export async function deleteOption(db: Db, name: string): Promise<void> {
  await statement(db, 'DELETE FROM options WHERE name = ?').run(name);
}

/** A JSON option; a missing or unparseable value reads as `fallback`. */
export async function getJsonOption<T>(db: Db, name: string, fallback: T): Promise<T> {
  const raw = await getOption(db, name);
  if (raw === undefined) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

export async function setJsonOption(db: Db, name: string, value: unknown): Promise<void> {
  await setOption(db, name, JSON.stringify(value));
}

/** The site secret kept in `options` (signing nonces, cookies, links) when the configuration sets none. */
export async function getSiteSecret(db: Db): Promise<string | undefined> {
  return ((await statement(db, "SELECT value FROM options WHERE name = 'secret'").get()) as { value: string } | undefined)?.value;
}

/** The site secret: the one stored, or `fresh` stored now. Two processes starting together agree on one. */
export async function siteSecretOf(db: Db, fresh: string): Promise<string> {
  await statement(db, "INSERT INTO options (name, value) VALUES ('secret', ?) ON CONFLICT(name) DO NOTHING").run(fresh);
  return (await getSiteSecret(db)) as string;
}

/** The site secret a process uses: the configured one (`EVT_SECRET`), else the one stored (made now when none is). */
export async function resolveSiteSecret(db: Db, configured?: string): Promise<string> {
  return configured || (await siteSecretOf(db, crypto.randomBytes(32).toString('base64url')));
}
