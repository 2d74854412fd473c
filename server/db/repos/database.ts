import type { Db } from '../connection.ts';

/**
 * Whether the database answers a query (`GET /health`): a statement prepared afresh on every call (on SQLite
 * through the handle's cache, on PostgreSQL a round trip on a pooled connection); a failure throws.
 */
export async function databaseAnswers(db: Db): Promise<boolean> {
  return (await db.prepare('SELECT 1 AS one').pluck().get()) === 1;
}

/**
 * Moves when another connection (another process) commits a change, so what a process keeps from earlier reads is
 * dropped when someone else wrote: SQLite's `data_version`; on PostgreSQL the WAL insert position (engine/postgres.ts).
 */
export async function dataVersion(db: Db): Promise<number> {
  return await db.dataVersion();
}
