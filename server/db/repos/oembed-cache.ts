import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { nowUtc } from '../clock.ts';

/** A cached proxy answer that has not expired. */
export async function getCachedOEmbed(db: Db, key: string, now: Date): Promise<unknown | undefined> {
  const row = (await statement(db, 'SELECT data FROM oembed_cache WHERE key = ? AND expires > ?').get(key, nowUtc(now))) as
    | { data: string }
    | undefined;
  return row ? (JSON.parse(row.data) as unknown) : undefined;
}

/** Stores an answer until `now + ttlSeconds`, and drops expired entries so the table cannot grow without bound. */
export async function putCachedOEmbed(db: Db, key: string, data: unknown, now: Date, ttlSeconds: number): Promise<void> {
  await statement(db, 'DELETE FROM oembed_cache WHERE expires <= ?').run(nowUtc(now));
  await statement(
    db,
    'INSERT INTO oembed_cache (key, data, expires) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET data = excluded.data, expires = excluded.expires',
  ).run(key, JSON.stringify(data), nowUtc(new Date(now.getTime() + ttlSeconds * 1000)));
}
