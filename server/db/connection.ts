import fs from 'node:fs';
import path from 'node:path';
import { migrate } from './migrate.ts';
import { privateDir, privateFile } from '../auth/private-files.ts';
import { isPostgresSpec, type Db, type RowReader, type Statement } from './engine/types.ts';
import { SqliteDb } from './engine/sqlite.ts';
import { DEFAULT_POOL_SIZE, PgDb } from './engine/postgres.ts';
import type { Sql } from './engine/sql.ts';

export type { Db, RowReader, Statement } from './engine/types.ts';
export type { PerEngine, Sql } from './engine/sql.ts';
export { engineOf, isPostgresSpec } from './engine/types.ts';
export { STATEMENT_CACHE_MAX } from './engine/sqlite.ts';

/**
 * Opens (creating if needed) and migrates the database `EVT_DB` names: a SQLite file, or a PostgreSQL URL.
 *
 * SQLite: WAL, foreign keys, busy timeout, page cache and mmap sizes. The database holds key and password
 * hashes, ticket security codes and attendees' e-mails, so its folders are created 0700 and the file is made 0600
 * before anything is written; SQLite gives the -wal and -shm files it creates later the database file's mode, and
 * existing ones are closed up here too (whatever the umask).
 */
export async function openDatabase(file: string, opts: { poolSize?: number } = {}): Promise<Db> {
  if (isPostgresSpec(file)) return await openPostgres(file, opts.poolSize);
  const onDisk = file !== ':memory:' && !file.startsWith('file:');
  if (onDisk) {
    privateDir(path.dirname(path.resolve(file)), { existing: false });
    // Created empty with the right mode, so no moment passes with the data readable by others.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    privateFile(file);
  }
  const db = new SqliteDb(file);
  db.raw.pragma('journal_mode = WAL');
  db.raw.pragma('foreign_keys = ON');
  db.raw.pragma('synchronous = NORMAL');
  db.raw.pragma('busy_timeout = 5000');
  // The default 2 MB page cache holds fewer pages than 100,000 attendees and their check-in log take up; a
  // larger cache and reads through mmap keep them in memory when scans arrive in any order. (bench:checkin,
  // which checks in in ID order, ran alike with the default and with these: batch 98-106 µs against 100-105.)
  db.raw.pragma('cache_size = -65536');
  db.raw.pragma('mmap_size = 268435456');
  await migrate(db);
  if (onDisk) for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) privateFile(f);
  return db;
}

/** Opens and migrates a PostgreSQL database (`postgres://` or `postgresql://` spec): a pool of `poolSize` connections. */
async function openPostgres(spec: string, poolSize = DEFAULT_POOL_SIZE): Promise<Db> {
  const db = new PgDb(spec, { poolSize });
  try {
    await db.connect();
    await migrate(db);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}

/** The prepared statement of `sql` on `db`: the engine's side of it, as it is (kept per text by the handle, bounded). */
export function statement(db: Db, sql: Sql): Statement {
  return db.prepare(sql);
}

/** Statements held for `db` (for tests of the bound). */
export function statementCacheSize(db: Db): number {
  return db.statementCount();
}

/** A `LIKE ? ESCAPE '\\'` pattern matching `s` anywhere, its own `%`, `_` and `\\` taken literally. */
export function likeContains(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Like `statement`, for wide rows read on hot paths: rows as objects of one shape (see SqliteDb.reader). */
export function rowReader<T>(db: Db, sql: Sql): RowReader<T> {
  return db.reader<T>(sql);
}

/** Now in ms on `db`'s clock (the app's once `setDbClock` ran). */
export function dbNow(db: Db): number {
  return db.clock();
}

export function setDbClock(db: Db, clock: () => number): void {
  db.clock = clock;
}
