import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrate } from './migrate.ts';
import { GenerationalCache } from '../auth/lru.ts';
import { privateDir, privateFile } from '../auth/private-files.ts';

import { engineOf, isPostgresSpec, type Db, type Statement } from './engine.ts';
import { PgDb } from './pg.ts';

export type { Db, Statement } from './engine.ts';
export { engineOf, isPostgresSpec } from './engine.ts';

/**
 * Opens (creating if needed) and migrates the SQLite database: WAL, foreign keys, busy timeout, page cache and mmap
 * sizes. The database holds key and password hashes, ticket security codes and attendees' e-mails, so its folders
 * are created 0700 and the file is made 0600 before anything is written; SQLite gives the -wal and -shm files it
 * creates later the database file's mode, and existing ones are closed up here too (whatever the umask).
 */
export function openDatabase(file: string): Db {
  if (isPostgresSpec(file)) return openPostgres(file);
  const onDisk = file !== ':memory:' && !file.startsWith('file:');
  if (onDisk) {
    privateDir(path.dirname(path.resolve(file)), { existing: false });
    // Created empty with the right mode, so no moment passes with the data readable by others.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    privateFile(file);
  }
  const db: Db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // The default 2 MB page cache holds fewer pages than 100,000 attendees and their check-in log take up; a
  // larger cache and reads through mmap keep them in memory when scans arrive in any order. (bench:checkin,
  // which checks in in ID order, ran alike with the default and with these: batch 98-106 µs against 100-105.)
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  registerFunctions(db as Database.Database);
  migrate(db);
  if (onDisk) for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) privateFile(f);
  return db;
}

/**
 * Opens and migrates a PostgreSQL database (`postgres://` or `postgresql://` spec) through PgDb. pg-native is
 * loaded when the first PgDb connects (pg.ts requires it lazily), so a SQLite install never needs libpq.
 */
function openPostgres(spec: string): Db {
  const db = new PgDb(spec);
  try {
    db.checkDatabase();
    migrate(db);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * Prepared statements per connection, so repositories prepare each SQL text once. Bounded, least recently used
 * first out: some texts are built from the shape of a request (the filters a list sets, the columns an update
 * names), so their number is not fixed; a statement unused for a while is dropped (and prepared again if asked
 * for). A two-generation cache (see GenerationalCache): a hit costs a plain Map lookup on the check-in path.
 */
export const STATEMENT_CACHE_MAX = 500;
const cache = new WeakMap<Db, GenerationalCache<string, Statement>>();

export function stmt(db: Db, sql: string): Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new GenerationalCache(STATEMENT_CACHE_MAX)));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

/** Statements held for `db` (for tests of the bound). */
export function statementCacheSize(db: Db): number {
  return (cache.get(db)?.size ?? 0) + (readers.get(db)?.size ?? 0);
}

/** A `LIKE ? ESCAPE '\\'` pattern matching `s` anywhere, its own `%`, `_` and `\\` taken literally. */
export function likeContains(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A statement that hands back its rows as plain objects of one fixed shape. */
export interface RowReader<T> {
  get(...params: unknown[]): T | undefined;
  all(...params: unknown[]): T[];
}

const readers = new WeakMap<Db, GenerationalCache<string, RowReader<unknown>>>();
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Like `stmt`, for wide rows read on hot paths (an attendee row has 49 columns). better-sqlite3 builds each
 * row object key by key; reading the row as an array and copying it into an object literal compiled from
 * the statement's own column names gives every row one hidden class and costs about 40% less (one attendee
 * row: 16.8 µs before, 9.9 µs after, in a direct loop over 100,000 attendees). The generated code names only the columns of our own SQL text.
 * Bounded as `stmt` is.
 */
export function rowReader<T>(db: Db, sql: string): RowReader<T> {
  let m = readers.get(db);
  if (!m) readers.set(db, (m = new GenerationalCache(STATEMENT_CACHE_MAX)));
  let r = m.get(sql) as RowReader<T> | undefined;
  if (r) return r;
  const s = db.prepare(sql).raw(true);
  const names = s.columns().map((c) => c.name);
  if (new Set(names).size !== names.length || !names.every((n) => IDENTIFIER.test(n))) {
    throw new Error(`rowReader needs distinct plain column names: ${names.join(', ')}`);
  }
  const toRow = new Function('r', `return { ${names.map((n, i) => `${n}: r[${i}]`).join(', ')} };`) as (row: unknown[]) => T;
  r = {
    get: (...params) => {
      const row = s.get(...params) as unknown[] | undefined;
      return row === undefined ? undefined : toRow(row);
    },
    all: (...params) => (s.all(...params) as unknown[][]).map(toRow),
  };
  m.set(sql, r as RowReader<unknown>);
  return r;
}

/** The clock SQL's `evt_now_utc()` reads, per connection (the app's: tests move it); `Date.now` by default. */
const clocks = new WeakMap<Db, () => number>();

/** Now in ms on `db`'s clock (the app's once `setDbClock` ran). */
export function dbNow(db: Db): number {
  return (clocks.get(db) ?? Date.now)();
}

export function setDbClock(db: Db, clock: () => number): void {
  clocks.set(db, clock);
  if (engineOf(db) === 'postgres') (db as PgDb).clock = clock;
}

/** Great-circle distance in kilometres (haversine), for the venue geolocation filter. */
function registerFunctions(db: Database.Database): void {
  // Now as `YYYY-MM-DD HH:MM:SS` UTC: capacity counts leave out pending orders whose hold has run out.
  db.function('evt_now_utc', () => new Date((clocks.get(db) ?? Date.now)()).toISOString().slice(0, 19).replace('T', ' '));
  db.function('evt_distance_km', { deterministic: true }, (lat1: unknown, lng1: unknown, lat2: unknown, lng2: unknown) => {
    if (typeof lat1 !== 'number' || typeof lng1 !== 'number' || typeof lat2 !== 'number' || typeof lng2 !== 'number') return null;
    const rad = Math.PI / 180;
    const dLat = (lat2 - lat1) * rad;
    const dLng = (lng2 - lng1) * rad;
    const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
    return 6371.0088 * 2 * Math.asin(Math.min(1, Math.sqrt(a)));
  });
}
