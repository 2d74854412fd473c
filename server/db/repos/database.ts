import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';

/**
 * Whether the database answers a query (`GET /health`). Prepared afresh on every call, not taken from the
 * statement cache, so a database that can no longer compile a statement reads as down; a failure throws.
 */
export async function databaseAnswers(db: Db): Promise<boolean> {
  return await db.prepare('SELECT count(*) FROM sqlite_master').pluck().get() !== undefined;
}

/**
 * SQLite's `data_version`: changes when another connection (another process) commits to the database file, so
 * what a process keeps from earlier reads is dropped when someone else wrote.
 */
export async function dataVersion(db: Db): Promise<number> {
  return await stmt(db, 'PRAGMA data_version').pluck().get() as number;
}
