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

/**
 * An explicit transaction held open across several steps (a batch's group of items, see http batch dispatch),
 * for the cases `inTransaction`'s single function cannot cover: the group ends when an asynchronous item comes.
 * IMMEDIATE takes the write lock at once, so the group does not fail halfway on another writer's lock.
 */
export function beginImmediate(db: Db): void {
  db.exec('BEGIN IMMEDIATE');
}

export function commit(db: Db): void {
  db.exec('COMMIT');
}

export function rollback(db: Db): void {
  db.exec('ROLLBACK');
}
