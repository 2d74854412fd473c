import type { Db } from './connection.ts';

// better-sqlite3 builds a new wrapper (and its four variants) on every `db.transaction(fn)` call, which costs
// more than a check-in's own statements; one wrapper per connection, taking the work as an argument, does not.
const runners = new WeakMap<Db, (fn: () => unknown) => unknown>();

/**
 * Runs `fn` in a transaction on `db`: BEGIN/COMMIT, or a SAVEPOINT when one is already open. A throw rolls
 * back (to the savepoint) and propagates.
 */
export function inTransaction<T>(db: Db, fn: () => T): T {
  let run = runners.get(db);
  if (!run) runners.set(db, (run = db.transaction((f: () => unknown) => f())));
  return run(fn) as T;
}
