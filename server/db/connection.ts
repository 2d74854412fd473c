import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrate } from './migrate.ts';

export type Db = Database.Database;

/** Opens (creating if needed) and migrates the SQLite database: WAL, foreign keys, busy timeout, page cache and mmap sizes. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // The default 2 MB page cache cannot hold the pages a door rush touches across 100,000 attendees; with a
  // larger cache and reads through mmap, a check-in costs about a third less CPU (npm run bench:checkin).
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  registerFunctions(db);
  migrate(db);
  return db;
}

/** Cache of prepared statements per connection, so repositories prepare each SQL text once. */
const cache = new WeakMap<Db, Map<string, Database.Statement>>();

export function stmt(db: Db, sql: string): Database.Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

/** Great-circle distance in kilometres (haversine), for the venue geolocation filter. */
function registerFunctions(db: Db): void {
  db.function('evt_distance_km', { deterministic: true }, (lat1: unknown, lng1: unknown, lat2: unknown, lng2: unknown) => {
    if (typeof lat1 !== 'number' || typeof lng1 !== 'number' || typeof lat2 !== 'number' || typeof lng2 !== 'number') return null;
    const rad = Math.PI / 180;
    const dLat = (lat2 - lat1) * rad;
    const dLng = (lng2 - lng1) * rad;
    const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
    return 6371.0088 * 2 * Math.asin(Math.min(1, Math.sqrt(a)));
  });
}
