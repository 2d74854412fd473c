import Database from 'better-sqlite3';
import path from 'node:path';
import { privateDir, privateFile } from '../auth/private-files.ts';
import { isPostgresSpec } from '../db/engine/types.ts';

/**
 * One server per SQLite database: `npm start` takes `<db>.lock` before it opens the database, and a second
 * server on the same file refuses to start (two would each hold their own caches, timers and checkpointer on one
 * file). The CLI does not take it: backups and key management run beside the server.
 *
 * The lock is the operating system's (the lock file is a small SQLite database whose read lock the server holds
 * for its whole life, SQLite's `locking_mode = EXCLUSIVE`), so the kernel drops it when the process ends in any
 * way: a crashed or killed server never leaves a stale lock behind, and a reused process ID cannot hold one.
 * Taking it: write our pid (a write needs every other reader gone: it fails at once while a server holds the
 * file), then read it back while keeping the read lock. If two servers start at the same moment, the later
 * writer's pid is what both read back, and only that one runs.
 */
export interface ServerLock {
  file: string;
  release: () => void;
}

export class LockedError extends Error {
  constructor(
    readonly file: string,
    readonly holder: number | null,
  ) {
    super(`another Doorstep server${holder ? ` (process ${holder})` : ''} is already running on this database; it holds ${file}`);
  }
}

function holderOf(db: Database.Database): number | null {
  try {
    const row = db.prepare('SELECT pid FROM holder WHERE id = 1').get() as { pid: number } | undefined;
    return row?.pid ?? null;
  } catch {
    return null;
  }
}

/** Takes the lock of `dbFile` (`<dbFile>.lock`), or throws LockedError. No lock for in-memory databases. */
export function acquireServerLock(dbFile: string): ServerLock | null {
  if (dbFile === ':memory:' || dbFile.startsWith('file:')) return null;
  // PostgreSQL: several server processes on one database is the point; what they share lives in the database.
  if (isPostgresSpec(dbFile)) return null;
  const file = `${dbFile}.lock`;
  privateDir(path.dirname(path.resolve(file)), { existing: false });
  const db = new Database(file, { timeout: 0 });
  privateFile(file);
  try {
    db.pragma('journal_mode = DELETE');
    try {
      db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, started TEXT NOT NULL)');
      db.prepare('INSERT OR REPLACE INTO holder (id, pid, started) VALUES (1, ?, ?)').run(process.pid, new Date().toISOString());
    } catch (e) {
      if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY') || (e as { code?: string }).code?.startsWith('SQLITE_LOCKED')) {
        throw new LockedError(file, holderOf(db));
      }
      throw e;
    }
    // From here on the connection keeps every lock it takes until it closes: this read's lock keeps any other
    // server from writing its pid.
    db.pragma('locking_mode = EXCLUSIVE');
    const holder = holderOf(db);
    if (holder !== process.pid) throw new LockedError(file, holder);
  } catch (e) {
    db.close();
    throw e;
  }
  return {
    file,
    release: () => {
      if (db.open) db.close();
    },
  };
}
