/**
 * The database seam: what repositories speak to, neither driver's API. Every call that reaches the database
 * answers a promise: on PostgreSQL it is a network round trip, and a process keeps many in flight (a pool of
 * connections); on SQLite the statement runs at once (better-sqlite3 is synchronous) and the promise is
 * already settled.
 *
 * A transaction belongs to the asynchronous flow that opened it (tx-scope.ts): statements made from inside
 * `transaction(fn)`, however deep in the call tree, run in it; statements from any other flow do not see it
 * (PostgreSQL: another connection of the pool; SQLite: they wait until it ends, see sqlite.ts).
 */

import type { Sql } from './sql.ts';

export type Engine = 'sqlite' | 'postgres';

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement {
  run(...params: unknown[]): Promise<RunResult>;
  get(...params: unknown[]): Promise<unknown>;
  all(...params: unknown[]): Promise<unknown[]>;
  /** Rows as their first column's value (sticky on the statement). */
  pluck(toggle?: boolean): this;
  /** Rows as arrays (sticky on the statement). */
  raw(toggle?: boolean): this;
  readonly source: string;
}

/** A statement that hands back its rows as plain objects of one fixed shape (see SqliteDb.reader). */
export interface RowReader<T> {
  get(...params: unknown[]): Promise<T | undefined>;
  all(...params: unknown[]): Promise<T[]>;
}

export interface TransactionOptions {
  /** SQLite: BEGIN IMMEDIATE (take the write lock at once). PostgreSQL transactions always start alike. */
  immediate?: boolean;
}

/** A part of HandleState, declared by the module that owns it (its type travels with the key). */
export class StateKey<T> {
  declare readonly _type: T;
  constructor(readonly name: string) {}
}

/**
 * What the server keeps in memory for one database beside its statements: owned by the database's handle, so it
 * lives and goes with it and two databases in one process never share it (no module-level maps keyed by the
 * handle). Each part is kept under a key its module declares (change-feed.ts the feed, repos/attendee-query.ts
 * the query memos, repos/analytics.ts the day's salt, auth/authenticate.ts the sign-in limits of an app-less
 * caller): the engine knows none of their types.
 */
export class HandleState {
  private readonly parts = new Map<StateKey<unknown>, unknown>();

  get<T>(key: StateKey<T>): T | undefined {
    return this.parts.get(key) as T | undefined;
  }

  set<T>(key: StateKey<T>, value: T | undefined): void {
    if (value === undefined) this.parts.delete(key);
    else this.parts.set(key, value);
  }

  /** The part under `key`, made by `make` the first time it is asked for. */
  of<T>(key: StateKey<T>, make: () => T): T {
    let v = this.parts.get(key) as T | undefined;
    if (v === undefined) this.parts.set(key, (v = make()));
    return v;
  }
}

/** One handle per database: its connections, its prepared statements, its clock, its state in memory. */
export interface Db {
  readonly engine: Engine;
  /** The file (SQLite) or the URL without its password (PostgreSQL). */
  readonly name: string;
  readonly open: boolean;
  readonly memory: boolean;
  /** True when the calling flow is inside a transaction of this database. */
  readonly inTransaction: boolean;
  /** The clock SQL's `evt_now_utc()` reads (the app's: tests move it). */
  clock: () => number;
  /** What the server keeps for this database in memory (see HandleState). */
  readonly state: HandleState;
  /** A prepared statement for `sql` (this engine's side of it, as it is), kept per text (bounded, least recently used out). */
  prepare(sql: Sql): Statement;
  /** Like `prepare`, rows as objects of one shape, read fast on hot paths. */
  reader<T>(sql: Sql): RowReader<T>;
  /** A script of statements without parameters, written for this engine. */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in a transaction: BEGIN/COMMIT, or a SAVEPOINT when the calling flow is in one already. A throw
   * rolls back (to the savepoint) and propagates.
   */
  transaction<T>(fn: () => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Runs `fn` with the statements it makes outside a transaction on one connection, each sent without waiting
   * for the answers before it (PostgreSQL's pipeline, node-postgres's pipeline mode): statements `fn` starts
   * together (`Promise.all`, or a read started early and awaited later) cost one round trip between them, not
   * one each. A connection is taken when `fn` sends a statement while none of its statements is in flight, and
   * goes back to the pool when the last in flight has answered: `fn` holds none while it works between them. For
   * reads: a transaction opened inside `fn` takes a connection of its own. SQLite: runs `fn` (no round trips to
   * save).
   */
  together<T>(fn: () => Promise<T>): Promise<T>;
  /** Moves whenever any connection (any process) commits a change. */
  dataVersion(): Promise<number>;
  /** Rows written through this handle so far (SQLite's total_changes()). */
  totalChanges(): number;
  /** The schema version the migrations reached. */
  userVersion(): Promise<number>;
  setUserVersion(v: number): Promise<void>;
  /** Prepared statements held (for tests of the bound). */
  statementCount(): number;
  close(): Promise<void>;
}

/**
 * A lock or a connection not granted in time (3 s by default): the request answers 503 with `Retry-After` and
 * has written nothing (its transaction rolled back).
 */
export class LockTimeout extends Error {
  constructor(what: string) {
    super(`database busy: ${what} not granted in time`);
    this.name = 'LockTimeout';
  }
}

/**
 * A text value the database cannot store: PostgreSQL's text holds no NUL character (U+0000), SQLite's does. The
 * statement failed, so nothing of it was written; the REST layer answers it as bad input (http/dispatch.ts).
 */
export class TextRefused extends Error {
  constructor() {
    super('text may not contain the NUL character (\\u0000), which PostgreSQL cannot store');
    this.name = 'TextRefused';
  }
}

/** How long a statement waits for a lock, a connection or a transaction of another flow. */
export const LOCK_WAIT_MS = 3000;

export function engineOf(db: Db): Engine {
  return db.engine;
}

/** True for an `EVT_DB` that names a PostgreSQL database rather than a SQLite file. */
export function isPostgresSpec(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** `spec` as it may be shown (logs, messages): a PostgreSQL URL without its password. */
export function describeDb(spec: string): string {
  if (!isPostgresSpec(spec) || !URL.canParse(spec)) return spec;
  const u = new URL(spec);
  if (u.password) u.password = '***';
  for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
  return u.toString();
}
