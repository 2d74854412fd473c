import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';
import { nowUtc } from '../clock.ts';

/** A cached proxy answer that has not expired. */
export function getCachedOEmbed(db: Db, key: string, now: Date): unknown | undefined {
  const row = stmt(db, 'SELECT data FROM oembed_cache WHERE key = ? AND expires > ?').get(key, nowUtc(now)) as { data: string } | undefined;
  return row ? (JSON.parse(row.data) as unknown) : undefined;
}

/** Stores an answer until `now + ttlSeconds`, and drops expired entries so the table cannot grow without bound. */
export function putCachedOEmbed(db: Db, key: string, data: unknown, now: Date, ttlSeconds: number): void {
  stmt(db, 'DELETE FROM oembed_cache WHERE expires <= ?').run(nowUtc(now));
  stmt(db, 'INSERT OR REPLACE INTO oembed_cache (key, data, expires) VALUES (?, ?, ?)').run(
    key,
    JSON.stringify(data),
    nowUtc(new Date(now.getTime() + ttlSeconds * 1000)),
  );
}
