import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';
import { nowUtc } from '../clock.ts';

/** A cached proxy answer that has not expired. */
export async function getCachedOEmbed(db: Db, key: string, now: Date): Promise<unknown | undefined> {
  const row = (await stmt(db, 'SELECT data FROM oembed_cache WHERE key = ? AND expires > ?').get(key, nowUtc(now))) as { data: string } | undefined;
  return row ? (JSON.parse(row.data) as unknown) : undefined;
}

/** Stores an answer until `now + ttlSeconds`, and drops expired entries so the table cannot grow without bound. */
export async function putCachedOEmbed(db: Db, key: string, data: unknown, now: Date, ttlSeconds: number): Promise<void> {
  await stmt(db, 'DELETE FROM oembed_cache WHERE expires <= ?').run(nowUtc(now));
  await stmt(db, 'INSERT OR REPLACE INTO oembed_cache (key, data, expires) VALUES (?, ?, ?)').run(
    key,
    JSON.stringify(data),
    nowUtc(new Date(now.getTime() + ttlSeconds * 1000)),
  );
}
