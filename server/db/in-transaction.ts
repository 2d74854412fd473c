import type { Db } from './connection.ts';
import type { TransactionOptions } from './engine/types.ts';

/**
 * Runs `fn` in a transaction on `db`: BEGIN/COMMIT, or a SAVEPOINT when the calling flow is in one already. A
 * throw rolls back (to the savepoint) and propagates. Every statement `fn` makes through `db`, at any depth,
 * runs in the transaction (engine/tx-scope.ts).
 */
export async function inTransaction<T>(db: Db, fn: () => Promise<T>, opts?: TransactionOptions): Promise<T> {
  return await db.transaction(fn, opts);
}
