/**
 * The database seam: the structural subset of better-sqlite3's `Database` (and `Statement`) the server uses.
 * better-sqlite3's own `Database` satisfies it as it is (no wrapper: the SQLite path keeps its speed), and
 * `PgDb` (pg.ts) implements it over PostgreSQL with pg-native's synchronous calls. `engineOf` tells them apart.
 *
 * SQL is written once, in the SQLite dialect; on PostgreSQL `dialect.ts` translates each text at prepare time.
 */

export type Engine = 'sqlite' | 'postgres';

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface ColumnInfo {
  name: string;
}

export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows as their first column's value (better-sqlite3's `pluck`; sticky on the statement). */
  pluck(toggle?: boolean): this;
  /** Rows as arrays (better-sqlite3's `raw`; sticky on the statement). */
  raw(toggle?: boolean): this;
  columns(): ColumnInfo[];
  readonly reader: boolean;
  readonly source: string;
}

/** better-sqlite3's transaction function: call it to run `fn` in BEGIN/COMMIT (a SAVEPOINT when nested). */
type VariableArgFunction = (...params: any[]) => unknown;
type ArgumentTypes<F extends VariableArgFunction> = F extends (...args: infer A) => unknown ? A : never;
export interface Transaction<F extends VariableArgFunction> {
  (...params: ArgumentTypes<F>): ReturnType<F>;
  default(...params: ArgumentTypes<F>): ReturnType<F>;
  deferred(...params: ArgumentTypes<F>): ReturnType<F>;
  immediate(...params: ArgumentTypes<F>): ReturnType<F>;
  exclusive(...params: ArgumentTypes<F>): ReturnType<F>;
}

export interface Db {
  /** Set by non-SQLite engines only (better-sqlite3's Database has no such property). */
  readonly engine?: Engine;
  prepare(sql: string): Statement;
  exec(sql: string): this;
  transaction<F extends VariableArgFunction>(fn: F): Transaction<F>;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): this;
  readonly inTransaction: boolean;
  readonly open: boolean;
  readonly name: string;
  readonly memory: boolean;
}

export function engineOf(db: Db): Engine {
  return db.engine ?? 'sqlite';
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
