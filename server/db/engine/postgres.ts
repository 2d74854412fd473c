import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { type Numbered, numberParams } from './pg-params.ts';
import { type Sql, sqlFor } from './sql.ts';
import { GenerationalCache } from '../../auth/lru.ts';
import { STATEMENT_CACHE_MAX } from './sqlite.ts';
import { currentTx, endScope, type TxScope, txScope } from './tx-scope.ts';
import {
  type Db,
  describeDb,
  HandleState,
  LOCK_WAIT_MS,
  LockTimeout,
  TextRefused,
  type RowReader,
  type RunResult,
  type Statement,
  type TransactionOptions,
} from './types.ts';

/**
 * PostgreSQL through node-postgres (`pg`): a pool of connections per process, every statement asynchronous, so
 * one process keeps as many queries in flight as it has connections while each waits on the network.
 *
 * A transaction takes one connection of the pool for itself (tx-scope.ts finds it from any depth of the flow
 * that opened it); statements outside transactions take whichever connection is free. Transactions run at READ
 * COMMITTED side by side, in this process and in others: what each checks before it writes is kept exact by the
 * locks of the resources it checks (db/repos/locks.ts), never by one lock for the whole database. Every connection waits at
 * most LOCK_WAIT_MS for a row or advisory lock (`lock_timeout`), and a request waits as long for a free
 * connection; past it the request answers 503 with nothing written.
 */

/** Connections a process opens at most (`EVT_PG_POOL`). */
export const DEFAULT_POOL_SIZE = 10;

/**
 * Texts prepared server-side per connection (named statements), at most: some texts are built from a request's
 * shape, so their number is not fixed; past the bound a text runs as an unnamed statement (the same single round
 * trip, parsed each time).
 */
export const NAMED_STATEMENT_MAX = 1000;
/** Numbered texts kept (least recently used out past it). */
const PREPARED_MAX = 2000;

// Values come back as SQLite's do: integers and numerics as JS numbers, booleans as 1/0, JSON and dates as the
// text stored; bytea as a Buffer.
const asNumber = (v: string) => Number(v);
const asText = (v: string) => v;
const parsers: Record<number, (v: string) => unknown> = {
  16: (v) => (v === 't' ? 1 : 0),
  20: asNumber,
  21: asNumber,
  23: asNumber,
  26: asNumber,
  700: asNumber,
  701: asNumber,
  1700: asNumber,
};
const bytea = pg.types.getTypeParser(17, 'text') as (v: string) => unknown;
const types = { getTypeParser: (oid: number) => parsers[oid] ?? (oid === 17 ? bytea : asText) };

/** A value bound to a statement, in text format (PostgreSQL casts the text to the parameter's type). */
export function toParam(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`;
  return v;
}

function nowText(clock: () => number): string {
  return new Date(clock()).toISOString().slice(0, 19).replace('T', ' ');
}

/** A transaction's scope: its connection and its savepoints. */
interface PgScope extends TxScope {
  client: pg.PoolClient;
  /**
   * Nested transactions (savepoints) by level, 1 first: 'pending' until the level's first statement, which sends
   * the SAVEPOINT before it; a level that ran no statement has nothing to roll back and costs no round trip.
   */
  levels: ('pending' | 'open')[];
  /** The shallowest finished level whose RELEASE is still to send (with the next SAVEPOINT; COMMIT makes it moot). */
  releaseFrom: number | null;
  /** Rows written in the transaction: they count in totalChanges() once it commits (others cannot see them before). */
  written: number;
  /**
   * Whether BEGIN has been sent: it goes with the transaction's first statement, in the same round trip
   * (queryIn); a transaction that ran no statement sends neither BEGIN nor COMMIT.
   */
  begun: boolean;
  /** Statements left for the COMMIT (atCommit), sent in its round trip before it. */
  atCommit: { text: string; values: (string | null)[] }[];
  /** The transaction's plan_cache_mode as its statements left it (planControl): 'default' as it begins. */
  plan: PlanMode;
  /** Each nested level's plan mode when its SAVEPOINT went: a rollback to it undoes the SET LOCALs made since. */
  levelPlans: PlanMode[];
}

/**
 * A statement that asks for PostgreSQL's generic plan (`native(..., { plan: 'generic' })`): a keyed read or write
 * whose plan never depends on its values, yet which PostgreSQL planned afresh at every call, since a custom plan
 * sees the values (a bound array's length, a LIMIT's offset, a skewed column's value) and so always looks cheaper
 * than the generic one. pg_stat_statements under bench:scale's checkouts: the rate limiter's take, the cart's
 * ticket read and the checkout's read were planned at (nearly) every call, about 1 ms of PostgreSQL's CPU a
 * checkout. `force_generic_plan` is set for that statement only (a statement that needs custom plans, such as the
 * order-mail read, keeps them): SET LOCAL in its transaction, in the same round trip, and set back before the
 * transaction's next statement that did not ask for it.
 */
export interface NativeOptions {
  plan?: 'generic';
}

type PlanMode = 'default' | 'generic';

const SET_GENERIC = 'SET LOCAL plan_cache_mode = force_generic_plan';
const SET_DEFAULT = 'SET LOCAL plan_cache_mode = DEFAULT';
/**
 * Outside a transaction block SET LOCAL warns (and PostgreSQL logs the warning); set_config(..., true) sets the
 * same for the implicit transaction that runs to the statement's Sync, without a warning. It answers a row, which
 * PrefixThen skips as it skips the prefix's completions.
 */
const SET_GENERIC_IMPLICIT = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)";

/** The SET LOCAL due before a statement of the transaction, if its plan mode is not the one the statement wants. */
function planControl(s: PgScope, generic: boolean): Control[] {
  const want = generic ? 'generic' : 'default';
  if (s.plan === want) return [];
  s.plan = want;
  return [generic ? SET_GENERIC : SET_DEFAULT];
}

/**
 * A query sent after control statements (BEGIN, RELEASE SAVEPOINT, SAVEPOINT), all in one round trip: each
 * control statement as an extended-protocol Parse/Bind/Execute without a Sync of its own, then the query's
 * messages and their Sync (PostgreSQL runs the pipeline in order; a BEGIN turns its implicit transaction into the
 * transaction block that goes on after the Sync; an error skips the rest up to the Sync), or, for a query without
 * parameters, the control statements before its text in one simple query. Their completions are not results.
 */
class PrefixThen extends (pg.Query as unknown as new (config: pg.QueryConfig & { callback?: (err: Error | null, r: unknown) => void }) => PgQuery) {
  private skip: number;
  private wasParsed = false;
  /** ParseComplete messages seen while this query ran: the prefix's first, then its own (when it was parsed). */
  private parses = 0;
  private connection: PgConnection | null = null;
  private readonly onParse = () => {
    this.parses++;
  };

  constructor(
    config: pg.QueryConfig & { callback?: (err: Error | null, r: unknown) => void },
    private readonly prefix: readonly Control[],
  ) {
    super(config);
    this.skip = prefix.length;
  }

  override submit(connection: PgConnection): Error | null {
    const self = this as unknown as PgQuery;
    if (!self.requiresPreparation()) {
      self.text = `${this.prefix.map((c) => (typeof c === 'string' ? c : c.text)).join('; ')}; ${self.text}`;
      return super.submit(connection);
    }
    this.wasParsed =
      !!self.name && (connection.parsedStatements[self.name] !== undefined || connection.submittedNamedStatements[self.name] !== undefined);
    if (self.name && !this.wasParsed) {
      this.connection = connection;
      connection.on('parseComplete', this.onParse);
    }
    connection.stream.cork?.();
    try {
      for (const c of this.prefix) {
        connection.parse({ text: typeof c === 'string' ? c : c.text, name: '', types: [] });
        connection.bind(typeof c === 'string' ? {} : { values: c.values });
        connection.execute({});
      }
    } finally {
      connection.stream.uncork?.();
    }
    return super.submit(connection);
  }

  /** A prefix's rows (set_config answers one) are not the query's: they come before its completion is skipped. */
  override handleDataRow(msg: unknown): void {
    if (this.skip > 0) return;
    super.handleDataRow(msg);
  }

  override handleCommandComplete(msg: unknown, connection: PgConnection): void {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    super.handleCommandComplete(msg, connection);
  }

  override handleError(err: Error, connection: PgConnection): void {
    // pg marks a named statement parsed at any ParseComplete while it runs, a control statement's too. A statement
    // whose own Parse did not complete (an error before it or in it) must be parsed again next time; one whose
    // Parse completed exists on the connection even though its execution failed (a lock timeout): parsed again,
    // PostgreSQL would refuse it ("prepared statement already exists") for as long as the connection lives.
    const self = this as unknown as PgQuery;
    if (self.name && !this.wasParsed && this.parses <= this.prefix.length) delete connection.parsedStatements[self.name];
    this.stopCounting();
    super.handleError(err, connection);
  }

  override handleReadyForQuery(connection: PgConnection): void {
    this.stopCounting();
    super.handleReadyForQuery(connection);
  }

  private stopCounting(): void {
    this.connection?.removeListener('parseComplete', this.onParse);
    this.connection = null;
  }
}

/**
 * A flow's pipeline (Db.together): a connection of the pool, taken when the flow sends a statement while none of
 * its statements is in flight, and given back when the last in flight has answered. So statements started at
 * once go on one connection, one after another before any answer, and the flow holds no connection while it works
 * between them (a read presenting what it read, a request waiting for the CPU under load).
 */
interface Pipe {
  readonly owner: PgDb;
  /** The connection of the statements in flight, or null when none is. */
  client: Promise<pg.PoolClient> | null;
  /** Statements sent on it (or waiting for it) and not answered yet. */
  busy: number;
  /** A statement on it failed so that the connection is gone (connectionLost): it is destroyed, not reused. */
  broken: boolean;
  /** Its connection holds what it is sent until the end of this tick (corkForTick). */
  corked?: boolean;
}

const pipeScope = new AsyncLocalStorage<Pipe>();

/**
 * Whether a failed statement's connection must not be used again: any failure but an error PostgreSQL answered
 * (the socket, the protocol: Node's errors carry a code too, ECONNRESET), and an answered error that ends the
 * session (FATAL or PANIC: the backend was terminated; the socket closes just after, so the pool may not know yet).
 */
function connectionLost(e: unknown): boolean {
  return !(e instanceof pg.DatabaseError) || e.severity === 'FATAL' || e.severity === 'PANIC';
}

/**
 * Holds what the pipe's connection is sent until the statements made at this turn of the event loop are all
 * written, then sends them in one write: on a network, one packet, not one per statement. (node-postgres writes each
 * statement as it is made; cork calls nest, its own per statement included.)
 */
function corkForTick(pipe: Pipe, client: pg.PoolClient): void {
  if (pipe.corked) return;
  const stream = (client as unknown as { connection: { stream: { cork?: () => void; uncork?: () => void } } }).connection.stream;
  if (!stream.cork || !stream.uncork) return;
  pipe.corked = true;
  stream.cork();
  process.nextTick(() => {
    pipe.corked = false;
    stream.uncork?.();
  });
}

/** A control statement (no parameters), or a statement left for the COMMIT with its values (text or null). */
type Control = string | { text: string; values: (string | null)[] };

/** What PrefixThen uses of pg's Query and Connection (not in @types/pg). */
interface PgConnection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void };
  on(event: 'parseComplete', listener: () => void): void;
  removeListener(event: 'parseComplete', listener: () => void): void;
  parse(q: { text: string; name: string; types: unknown[] }): void;
  bind(c: object): void;
  execute(c: object): void;
}
interface PgQuery {
  text: string;
  name?: string;
  requiresPreparation(): boolean;
  submit(connection: PgConnection): Error | null;
  handleCommandComplete(msg: unknown, connection: PgConnection): void;
  handleDataRow(msg: unknown): void;
  handleError(err: Error, connection: PgConnection): void;
  handleReadyForQuery(connection: PgConnection): void;
}

/**
 * Runs `config` on the transaction's connection, in the same round trip as the control statements still to send:
 * the BEGIN when not sent yet, then the RELEASE and SAVEPOINTs of the nested levels (pendingControl).
 */
function queryIn(s: PgScope, config: pg.QueryConfig, more: readonly Control[] = [], generic?: boolean): Promise<pg.QueryResult> {
  // The SAVEPOINTs first, so each records the plan mode from before this statement's SET LOCAL.
  const control = pendingControl(s);
  return queryAfter(s.client, config, [...control, ...(generic === undefined ? [] : planControl(s, generic)), ...more]);
}

/** Runs `config` on `client` after the `prefix` control statements, in one round trip. */
function queryAfter(client: pg.ClientBase, config: pg.QueryConfig, prefix: readonly Control[]): Promise<pg.QueryResult> {
  if (!prefix.length) return client.query(config);
  return new Promise((resolve, reject) => {
    client.query(new PrefixThen({ ...config, callback: (err, r) => (err ? reject(err) : resolve(r as pg.QueryResult)) }, prefix) as never);
  });
}

/**
 * The control statements due before the transaction's next statement: BEGIN when not sent yet, then the RELEASE
 * of the level finished before and the SAVEPOINTs of the levels that have not run a statement yet. Marked sent.
 */
function pendingControl(s: PgScope): string[] {
  const out: string[] = [];
  if (!s.begun) {
    out.push('BEGIN');
    s.begun = true;
  }
  const from = s.levels.indexOf('pending');
  if (from < 0) return out;
  if (s.releaseFrom !== null) out.push(`RELEASE SAVEPOINT evt_sp${s.releaseFrom}`);
  for (let i = from; i < s.levels.length; i++) {
    out.push(`SAVEPOINT evt_sp${i + 1}`);
    s.levels[i] = 'open';
    s.levelPlans[i] = s.plan;
  }
  s.releaseFrom = null;
  return out;
}

interface Prepared {
  tr: Numbered;
  /** Server-side statement name, or undefined past NAMED_STATEMENT_MAX texts. */
  name: string | undefined;
}

/** What a lock or pool wait that ran out looks like, as LockTimeout; anything else as it is. */
function lockError(e: unknown): unknown {
  const err = e as { code?: string; message?: string };
  if (err?.code === '55P03') return new LockTimeout('PostgreSQL lock');
  // Two transactions waited for each other (two batches meeting the same attendees in reverse order): PostgreSQL
  // ended this one; like a lock not granted, nothing of it was written and the client sends it again.
  if (err?.code === '40P01') return new LockTimeout('PostgreSQL lock (deadlock)');
  // A NUL character in a text value (TextRefused): nothing was written (the statement failed).
  if (err?.code === '22021') return new TextRefused();
  if (typeof err?.message === 'string' && /timeout exceeded when trying to connect/i.test(err.message))
    return new LockTimeout('PostgreSQL connection');
  return e;
}

export class PgDb implements Db {
  readonly engine = 'postgres' as const;
  readonly memory = false;
  readonly name: string;
  open = true;
  clock: () => number = Date.now;
  readonly state = new HandleState();
  readonly pool: pg.Pool;
  /** Rows written through this handle (SQLite's total_changes()). */
  private written = 0;
  private readonly statements = new Map<string, Prepared>();
  /** Names of the native texts with parameters (nativeName). */
  private readonly nativeNames = new Map<string, string | undefined>();
  private named = 0;
  private readonly stmts = new GenerationalCache<string, PgStatement>(STATEMENT_CACHE_MAX);
  private readonly readers = new GenerationalCache<string, PgStatement>(STATEMENT_CACHE_MAX);

  constructor(spec: string, opts: { poolSize?: number } = {}) {
    this.name = describeDb(spec);
    this.pool = new pg.Pool({
      connectionString: spec,
      max: opts.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: LOCK_WAIT_MS,
      idleTimeoutMillis: 30_000,
      types,
      // A connection sends a statement without waiting for the answers before it (Db.together); one statement at a
      // time, as every other flow sends them, it behaves as without.
      pipeline: true,
      // Sent once per connection as it opens (in the startup packet: no round trip).
      options: `-c client_min_messages=warning -c TimeZone=UTC -c lock_timeout=${LOCK_WAIT_MS}`,
    });
    // An idle connection the server dropped (restart, network) is discarded by the pool; nothing to do but not crash.
    this.pool.on('error', () => {});
    // The same on a connection in use (a transaction's, a pipe's), which the pool does not listen to: without a
    // listener its 'error' event would end the process. The statements waiting on it fail, and it is destroyed.
    this.pool.on('connect', (client) => client.on('error', () => {}));
  }

  get inTransaction(): boolean {
    return currentTx(this) !== undefined;
  }

  /** Connects once and refuses a database not in the C collation (see checkCollation). */
  async connect(): Promise<void> {
    await this.checkCollation();
  }

  /**
   * Refuses a database whose collation or character type is not C: text order must be SQLite's (bytes, BINARY)
   * and LIKE / NOCASE must fold ASCII only, as SQLite's do. Create it with
   * `CREATE DATABASE doorstep TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`.
   */
  private async checkCollation(): Promise<void> {
    const r = (
      await this.native(
        'SELECT datcollate AS collate, datctype AS ctype, pg_encoding_to_char(encoding) AS enc FROM pg_database WHERE datname = current_database()',
      )
    )[0] as { collate: string; ctype: string; enc: string };
    const c = (v: string) => v === 'C' || v === 'POSIX';
    if (!c(r.collate) || !c(r.ctype) || r.enc !== 'UTF8') {
      throw new Error(
        `the PostgreSQL database must be UTF8 with LC_COLLATE and LC_CTYPE 'C' (it is ${r.enc}, ${r.collate}, ${r.ctype}), so text sorts and matches as on SQLite: CREATE DATABASE <name> TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
      );
    }
  }

  /** The numbered text (and server-side name) of `sql`, a text written for PostgreSQL, made once per text. */
  prepared(sql: string): Prepared {
    let p = this.statements.get(sql);
    if (p) {
      // Least recently used out: a hit moves to the end.
      this.statements.delete(sql);
      this.statements.set(sql, p);
      return p;
    }
    if (this.statements.size >= PREPARED_MAX) this.statements.delete(this.statements.keys().next().value as string);
    p = { tr: numberParams(sql), name: this.named < NAMED_STATEMENT_MAX ? `s${++this.named}` : undefined };
    this.statements.set(sql, p);
    return p;
  }

  /** Runs a prepared text with its arguments on the flow's transaction connection, or on a free one. */
  async execute(p: Prepared, args: unknown[], arrays: boolean): Promise<pg.QueryResult> {
    const scope = currentTx<PgScope>(this);
    const values = this.bind(p.tr, args);
    const config: pg.QueryConfig = { text: p.tr.text, values, ...(p.name ? { name: p.name } : {}), ...(arrays ? { rowMode: 'array' } : {}) };
    let r: pg.QueryResult;
    try {
      r = scope ? await queryIn(scope, config, [], false) : await this.outside((client) => client.query(config));
    } catch (e) {
      throw lockError(e);
    }
    this.noteWritten(scope, [r]);
    return r;
  }

  private bind(tr: Numbered, args: unknown[]): unknown[] {
    const named = args.length === 1 && args[0] !== null && typeof args[0] === 'object' && !Array.isArray(args[0]) && !Buffer.isBuffer(args[0]);
    const flat = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    const positional = named ? [] : flat;
    return tr.params.map((p) => {
      if (typeof p === 'number') return toParam(positional[p]);
      if (typeof p === 'string') return toParam((args[0] as Record<string, unknown>)[p]);
      return nowText(this.clock);
    });
  }

  prepare(sql: Sql): Statement {
    const text = sqlFor('postgres', sql);
    let s = this.stmts.get(text);
    if (!s) this.stmts.set(text, (s = new PgStatement(this, text)));
    return s;
  }

  reader<T>(sql: Sql): RowReader<T> {
    // A statement of its own, always rows as objects (a kept one of the same text may have been plucked).
    const text = sqlFor('postgres', sql);
    let s = this.readers.get(text);
    if (!s) this.readers.set(text, (s = new PgStatement(this, text)));
    return { get: (...p) => s.get(...p) as Promise<T | undefined>, all: (...p) => s.all(...p) as Promise<T[]> };
  }

  /** Rows a statement wrote that its command tag does not count (a SELECT over data-modifying CTEs). */
  countWritten(rows: number): void {
    const scope = currentTx<PgScope>(this);
    if (scope) scope.written += rows;
    else this.written += rows;
  }

  /**
   * A write whose only reader is another transaction (a change-log row): inside a transaction it is sent with the
   * COMMIT, in its round trip, and commits or rolls back with it (one made under a savepoint that rolls back is
   * sent all the same); outside one, at once. Values as toParam makes them.
   */
  async atCommit(sql: string, values: unknown[]): Promise<void> {
    const scope = currentTx<PgScope>(this);
    if (!scope?.open) {
      await this.native(sql, values);
      return;
    }
    scope.atCommit.push({ text: sql, values: values.map((v) => toParam(v) as string | null) });
    scope.written += 1;
  }

  /** A script written for PostgreSQL, run as it is (values bind `$n`); `opts.plan`: see NativeOptions. */
  async native(sql: string, values?: unknown[], opts: NativeOptions = {}): Promise<Record<string, unknown>[]> {
    const scope = currentTx<PgScope>(this);
    // Only a statement with values runs as a prepared one (the extended protocol), where a plan is kept at all.
    const generic = opts.plan === 'generic' && values !== undefined;
    // A text with parameters is one statement written once (a script has none): prepared server-side under a
    // name, as `prepare` does, so it is parsed once per connection and may keep a generic plan. Unnamed, the
    // batch's read of its attendees (seven joins) was planned afresh at every batch: 2-20 ms of PostgreSQL's
    // CPU, more than it took to run.
    const name = values ? this.nativeName(sql) : undefined;
    const config: pg.QueryConfig = name ? { text: sql, values, name } : { text: sql, values };
    try {
      const r = scope
        ? await queryIn(scope, config, [], generic)
        : await this.outside((client) => (generic ? queryAfter(client, config, [SET_GENERIC_IMPLICIT]) : client.query(config)));
      // A script of several statements answers an array of results: the last one's rows.
      const all = Array.isArray(r) ? (r as pg.QueryResult[]) : [r];
      this.noteWritten(scope, all);
      return (all[all.length - 1]?.rows ?? []) as Record<string, unknown>[];
    } catch (e) {
      throw lockError(e);
    }
  }

  /** Counts the rows `results` wrote: in the transaction's count until it commits, else in the handle's. */
  private noteWritten(scope: PgScope | undefined, results: readonly pg.QueryResult[]): void {
    for (const r of results) {
      if (!r.rowCount || (r.command !== 'INSERT' && r.command !== 'UPDATE' && r.command !== 'DELETE' && r.command !== 'MERGE')) continue;
      if (scope) scope.written += r.rowCount;
      else this.written += r.rowCount;
    }
  }

  /**
   * Runs a statement outside any transaction: on the flow's pipeline (Db.together), else on a connection of its
   * own, taken from the pool and given back as its answer comes (a pipeline of one statement). Either way a failure
   * that leaves the connection usable (an error PostgreSQL answered) gives it back; any other destroys it.
   */
  private outside(run: (client: pg.PoolClient) => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    return this.onPipe(this.pipeOf() ?? { owner: this, client: null, busy: 0, broken: false }, run);
  }

  async together<T>(fn: () => Promise<T>): Promise<T> {
    // In a transaction its statements follow each other on its connection; inside a pipeline, they join it.
    if (currentTx(this) || this.pipeOf()) return await fn();
    return await pipeScope.run({ owner: this, client: null, busy: 0, broken: false }, fn);
  }

  /** The calling flow's pipeline on this handle (Db.together). */
  private pipeOf(): Pipe | undefined {
    const p = pipeScope.getStore();
    return p !== undefined && p.owner === this ? p : undefined;
  }

  /**
   * Runs a statement on the pipeline's connection: the one its statements in flight are on, else one taken from
   * the pool. Statements that wait for the same connection are sent one after another as it comes, before any
   * answer (one round trip); it goes back to the pool when the last of them has answered.
   */
  private async onPipe(pipe: Pipe, run: (client: pg.PoolClient) => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    pipe.busy++;
    const taken = (pipe.client ??= this.pool.connect());
    try {
      const client = await taken;
      corkForTick(pipe, client);
      return await run(client);
    } catch (e) {
      if (connectionLost(e)) pipe.broken = true;
      throw e;
    } finally {
      if (--pipe.busy === 0) {
        const broken = pipe.broken;
        pipe.client = null;
        pipe.broken = false;
        taken.then(
          (client) => client.release(broken),
          () => {},
        );
      }
    }
  }

  /** The server-side name of a native text with parameters, or undefined past NAMED_STATEMENT_MAX texts. */
  private nativeName(sql: string): string | undefined {
    let name = this.nativeNames.get(sql);
    if (name === undefined && !this.nativeNames.has(sql)) {
      name = this.named < NAMED_STATEMENT_MAX ? `s${++this.named}` : undefined;
      if (this.nativeNames.size < PREPARED_MAX) this.nativeNames.set(sql, name);
    }
    return name;
  }

  /** A script written for PostgreSQL (the migrations of migrations-pg/), run as it is. */
  async exec(sql: string): Promise<void> {
    await this.native(sql);
  }

  async transaction<T>(fn: () => Promise<T>, _opts?: TransactionOptions): Promise<T> {
    const outer = currentTx<PgScope>(this);
    if (outer) return this.savepoint(outer, fn);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw lockError(e);
    }
    const scope: PgScope = {
      owner: this,
      open: true,
      depth: 0,
      client,
      levels: [],
      releaseFrom: null,
      written: 0,
      begun: false,
      atCommit: [],
      plan: 'default',
      levelPlans: [],
    };
    let broken = false;
    try {
      // BEGIN goes with the first statement (queryIn).
      const result = await txScope.run(scope, fn);
      // Statements the flow makes from here on (it may have left work running) go outside the transaction.
      scope.open = false;
      if (scope.atCommit.length) {
        // The statements left for the COMMIT go before it, in its round trip (an error in one fails the COMMIT).
        const left = scope.atCommit.splice(0);
        await queryIn(scope, { text: 'COMMIT', queryMode: 'extended' } as pg.QueryConfig, left);
      } else if (scope.begun) await client.query('COMMIT');
      this.written += scope.written;
      return result;
    } catch (e) {
      scope.open = false;
      try {
        if (scope.begun) await client.query('ROLLBACK');
      } catch {
        // The connection is gone: the original error says more, and the pool must not hand it out again.
        broken = true;
      }
      throw lockError(e);
    } finally {
      client.release(broken);
      endScope(scope);
    }
  }

  private async savepoint<T>(s: PgScope, fn: () => Promise<T>): Promise<T> {
    // A nested level's SAVEPOINT goes with its first statement (pendingControl), its RELEASE for the next
    // SAVEPOINT or the COMMIT, so a batch item costs one round trip for both instead of two.
    const level = ++s.depth;
    s.levels[level - 1] = 'pending';
    let result: T;
    try {
      result = await fn();
    } catch (e) {
      s.depth--;
      if (s.levels.pop() === 'open') {
        // Rolling back to this level's savepoint ends the deeper ones, released or not.
        s.releaseFrom = null;
        // A SET LOCAL made inside the level is undone with it.
        s.plan = s.levelPlans[level - 1] ?? s.plan;
        await s.client.query(`ROLLBACK TO SAVEPOINT evt_sp${level}; RELEASE SAVEPOINT evt_sp${level}`);
      }
      throw e;
    }
    s.depth--;
    if (s.levels.pop() === 'open') s.releaseFrom = Math.min(s.releaseFrom ?? level, level);
    return result;
  }

  /**
   * SQLite's `data_version` on PostgreSQL: the cluster's WAL insert position, which moves with every commit that
   * wrote anything, in any process (and with other activity of the cluster, which only costs a cache refill).
   */
  async dataVersion(): Promise<number> {
    const lsn = String((await this.native('SELECT pg_current_wal_insert_lsn()::text AS l'))[0]?.l ?? '0/0');
    const [hi, lo] = lsn.split('/').map((h) => Number.parseInt(h, 16));
    return (hi ?? 0) * 2 ** 32 + (lo ?? 0);
  }

  totalChanges(): number {
    return this.written;
  }

  async userVersion(): Promise<number> {
    await this.native('CREATE TABLE IF NOT EXISTS evt_schema (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)');
    return ((await this.native('SELECT version FROM evt_schema WHERE id = 1'))[0]?.version as number | undefined) ?? 0;
  }

  async setUserVersion(v: number): Promise<void> {
    await this.native('INSERT INTO evt_schema (id, version) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version', [
      String(Math.trunc(v)),
    ]);
  }

  statementCount(): number {
    return this.stmts.size + this.readers.size;
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.pool.end();
  }
}

class PgStatement implements Statement {
  private mode: 'rows' | 'pluck' | 'raw' = 'rows';

  constructor(
    private readonly db: PgDb,
    readonly source: string,
  ) {}

  /**
   * `lastInsertRowid` is the first column of the first row an INSERT hands back: its text says `RETURNING id`
   * where the caller wants the new key (SQLite reads the clause alike and reports the same rowid).
   */
  async run(...args: unknown[]): Promise<RunResult> {
    const r = await this.db.execute(this.db.prepared(this.source), args, true);
    const id = r.command === 'INSERT' ? (r.rows[0] as unknown[] | undefined)?.[0] : undefined;
    return { changes: r.rowCount ?? 0, lastInsertRowid: typeof id === 'number' ? id : 0 };
  }

  async get(...args: unknown[]): Promise<unknown> {
    return (await this.all(...args))[0];
  }

  async all(...args: unknown[]): Promise<unknown[]> {
    const mode = this.mode;
    const r = await this.db.execute(this.db.prepared(this.source), args, mode !== 'rows');
    if (mode === 'pluck') return (r.rows as unknown[][]).map((row) => row[0]);
    return r.rows;
  }

  pluck(toggle = true): this {
    this.mode = toggle ? 'pluck' : this.mode === 'pluck' ? 'rows' : this.mode;
    return this;
  }

  raw(toggle = true): this {
    this.mode = toggle ? 'raw' : this.mode === 'raw' ? 'rows' : this.mode;
    return this;
  }
}
