import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';

/** Site options (WordPress `get_option`/`update_option`) in the `options` table. */
export function getOption(db: Db, name: string): string | undefined {
  return (stmt(db, 'SELECT value FROM options WHERE name = ?').get(name) as { value: string } | undefined)?.value;
}

export function setOption(db: Db, name: string, value: string): void {
  stmt(db, 'INSERT INTO options (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value').run(name, value);
}

export function deleteOption(db: Db, name: string): void {
  stmt(db, 'DELETE FROM options WHERE name = ?').run(name);
}

/** A JSON option; a missing or unparseable value reads as `fallback`. */
export function getJsonOption<T>(db: Db, name: string, fallback: T): T {
  const raw = getOption(db, name);
  if (raw === undefined) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

export function setJsonOption(db: Db, name: string, value: unknown): void {
  setOption(db, name, JSON.stringify(value));
}

/** The site secret kept in `options` (signing nonces, cookies, links) when the configuration sets none. */
export function getSiteSecret(db: Db): string | undefined {
  return (stmt(db, "SELECT value FROM options WHERE name = 'secret'").get() as { value: string } | undefined)?.value;
}

/** The site secret: the one stored, or `fresh` stored now. Two processes starting together agree on one. */
export function siteSecretOf(db: Db, fresh: string): string {
  stmt(db, "INSERT INTO options (name, value) VALUES ('secret', ?) ON CONFLICT(name) DO NOTHING").run(fresh);
  return getSiteSecret(db) as string;
}
