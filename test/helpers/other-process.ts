import { openDatabase, type Db } from '../../server/db/connection.ts';
import { recordAnyChange } from '../../server/db/change-feed.ts';
import { isPostgresSpec } from '../../server/db/engine/types.ts';
import type { TestServer } from './server.ts';

/**
 * Writes as another process would, on its own connection. SQLite: raw SQL on the file (the server sees the
 * commit through `PRAGMA data_version`). PostgreSQL: raw SQL on another connection, then an "everything changed"
 * row in the change feed, as the CLI appends after each command (server/cli.ts `withDb`) and as every Doorstep
 * process records its writes: a write that records nothing (psql) is seen only when the caches' bounds run out.
 */
export async function writeAsAnotherProcess(s: TestServer, write: (db: Db) => Promise<void>): Promise<void> {
  const pg = isPostgresSpec(s.dbSpec);
  const other = await openDatabase(s.dbSpec);
  try {
    await write(other);
    if (pg) await recordAnyChange(other);
  } finally {
    await other.close();
  }
}
