import type { Db } from '../db/connection.ts';
import { beginImmediate, commit as commitTransaction, rollback } from '../db/in-transaction.ts';
import { dropHeldChanges, holdChanges, releaseChanges } from '../db/change-feed.ts';
import { execute, executeSync, type Prepared } from './dispatch.ts';
import { HttpError } from '../kernel/errors.ts';
import { errorResult, type Result } from '../kernel/result.ts';

/**
 * Runs the items of a batch in order, each in its own transaction, sharing one commit.
 *
 * On this kind of disk a SQLite commit costs far more than a check-in's statements, so consecutive synchronous
 * items run inside one outer transaction: `execute` wraps each write handler in `db.transaction`, which
 * better-sqlite3 turns into a SAVEPOINT when a transaction is open. Each item still commits or rolls back on
 * its own (a failing item undoes only its own writes; an `errorResult` keeps its log row), and items see the
 * effects of earlier ones, exactly as with separate transactions. What the items share is durability: they reach
 * the disk together when the batch ends, before the 207 is sent; a crash before that loses the whole batch and
 * the client, having had no answer, sends it again (check-ins carry nonces, so a replay is safe).
 *
 * Synchronous items run back to back with nothing in between, so no other request's statements can enter
 * the open transaction. With shared state in the database the group appends ONE change-log row, the union of
 * what its committed items changed, just before its COMMIT (server/db/change-feed.ts `holdChanges`), instead
 * of a row (a round trip on PostgreSQL) per item. An asynchronous handler (one that awaits real I/O) ends the group first and runs on its own.
 */
export async function runGrouped(db: Db, items: readonly (Prepared | HttpError)[]): Promise<Result[]> {
  const results: Result[] = [];
  let open = false;
  const commit = async () => {
    if (!open) return;
    // The group's one change-log row (what its committed items changed), in the transaction it describes.
    await releaseChanges(db);
    open = false;
    commitTransaction(db);
  };
  try {
    for (const p of items) {
      if (p instanceof HttpError) {
        results.push(errorResult(p));
        continue;
      }
      if (p.endpoint.async) await commit();
      else if (!open && !db.inTransaction) {
        beginImmediate(db);
        open = true;
        holdChanges(db);
      }
      results.push(p.endpoint.async ? await execute(p) : await executeSync(p));
      // SQLite rolls a whole transaction back on some errors (disk full, I/O): then earlier items are lost too.
      if (open && !db.inTransaction) throw new Error('batch transaction was rolled back by SQLite');
    }
    await commit();
  } catch (e) {
    if (open && db.inTransaction) rollback(db);
    throw e;
  } finally {
    // Nothing held may outlive the group: a later write would record into a set no one appends.
    dropHeldChanges(db);
  }
  return results;
}
