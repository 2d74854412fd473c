import { createRequire } from 'node:module';
import { translate, translateDdl, type TableKey, type Translation } from './dialect.ts';
import { type ColumnInfo, type Db, describeDb, type RunResult, type Statement, type Transaction } from './engine.ts';

/**
 * PostgreSQL behind the same synchronous `Db` interface as better-sqlite3, over pg-native's synchronous calls
 * (libpq; about 65 µs a round trip on loopback). Like the PHP original, a process serves one query at a time and
 * scales by processes, so no call site becomes async.
 *
 * Write transactions across processes: every top-level `transaction()` first takes one transaction-scoped
 * advisory lock (`pg_advisory_xact_lock(WRITE_LOCK)`), so transactions are serialized across every process on
 * the database exactly as SQLite's single writer serializes them, and what the code checks inside a transaction
 * (capacity, check-in idempotency, nonces) stays exact under READ COMMITTED: each statement's snapshot is taken
 * after the lock, so it sees every earlier transaction. This bounds write throughput to one transaction at a
 * time (plus its round trips), which is SQLite's bound too; it is the honest first step because it keeps every
 * invariant the code already relies on. Finer locks (row locks on the ticket, SERIALIZABLE with retry) are a
 * later step, per invariant, with tests of their own.
 */
export const WRITE_LOCK = 0x0d00_5e7;

interface PqLike {
  cmdTuples(): string;
  cmdStatus(): string;
  nfields(): number;
  fname(i: number): string;
}
interface Client {
  connectSync(params: string): void;
  querySync(text: string, values?: unknown[]): Record<string, unknown>[];
  prepareSync(name: string, text: string, n: number): void;
  executeSync(name: string, values: unknown[]): unknown[];
  end(cb?: () => void): void;
  pq: PqLike & { finish(): void; describePrepared(name: string): void };
  arrayMode: boolean;
}

const require = createRequire(import.meta.url);
const closing = new Set<Client>();
let ClientCtor: (new (opts: { types: unknown }) => Client) | undefined;

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
function typesFor(): { getTypeParser: (oid: number) => (v: string) => unknown } {
  const pgTypes = require('pg-types') as { getTypeParser: (oid: number) => (v: string) => unknown };
  const bytea = pgTypes.getTypeParser(17);
  return { getTypeParser: (oid) => parsers[oid] ?? (oid === 17 ? bytea : asText) };
}

/**
 * pg-native is an optional dependency (its addon builds against libpq, which a SQLite-only machine may lack), so
 * its absence is said plainly instead of as a module-resolution stack.
 */
function loadPgNative(): new (opts: { types: unknown }) => Client {
  try {
    return require('pg-native') as new (opts: {
      types: unknown;
    }) => Client;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(
      "PostgreSQL support needs the optional package pg-native, which was not installed (its addon builds against libpq): install Debian's libpq-dev (apt-get install -y libpq-dev), then run npm ci again",
    );
  }
}

/** A value bound to a statement, in libpq's text format (PostgreSQL casts the text to the parameter's type). */
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

/** Statements that ask SQLite about itself, answered on PostgreSQL without a round trip. */
type Virtual = (db: PgDb) => Record<string, unknown>[];
const VIRTUAL: Record<string, Virtual> = {
  // data_version must change when another connection commits (the kept rows and the response cache key on it).
  // The cluster's WAL insert position moves with every commit that wrote anything, in any process: a version
  // that never misses another process's change (it also moves on this connection's own writes and on other
  // activity of the cluster, which only costs a cache refill).
  'PRAGMA data_version': (db) => [{ data_version: db.dataVersion() }],
  'SELECT total_changes() AS c': (db) => [{ c: db.totalChanges }],
  'SELECT count(*) FROM sqlite_master': () => [{ 'count(*)': 1 }],
};

class PgStatement implements Statement {
  private plucked = false;
  private rawRows = false;
  private tr: Translation | null = null;
  private name: string | null = null;
  /** The PgDb's statement generation `name` belongs to (a newer one deallocated it: prepare again). */
  private generation = -1;
  private virtual: Virtual | undefined;
  private cols: ColumnInfo[] | null = null;

  constructor(
    private readonly db: PgDb,
    readonly source: string,
  ) {
    this.virtual = VIRTUAL[source.trim()];
    if (!this.virtual) this.prepareNow();
  }

  get reader(): boolean {
    return this.virtual !== undefined || (this.tr as Translation).reader;
  }

  private prepareNow(): void {
    const p = this.db.prepared(this.source);
    this.tr = p.tr;
    this.name = p.name;
    this.generation = this.db.generation;
  }

  /** The server-side statement's name, prepared again when the connection's statements were dropped since. */
  private current(): string {
    if (this.generation !== this.db.generation) this.prepareNow();
    return this.name as string;
  }

  private bind(args: unknown[]): unknown[] {
    const tr = this.tr as Translation;
    const named = args.length === 1 && args[0] !== null && typeof args[0] === 'object' && !Array.isArray(args[0]) && !Buffer.isBuffer(args[0]);
    const flat = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    const positional = named ? [] : flat;
    return tr.params.map((p) => {
      if (typeof p === 'number') return toParam(positional[p]);
      if (typeof p === 'string') return toParam((args[0] as Record<string, unknown>)[p]);
      return nowText(this.db.clock);
    });
  }

  private exec(args: unknown[], arrays: boolean): unknown[] {
    if (this.virtual) {
      const rows = this.virtual(this.db);
      return arrays ? rows.map((r) => Object.values(r)) : rows;
    }
    const name = this.current();
    return this.db.execute(name, this.bind(args), arrays);
  }

  private shape(rows: unknown[]): unknown[] {
    if (this.plucked) return rows.map((r) => (r as unknown[])[0]);
    return rows;
  }

  run(...args: unknown[]): RunResult {
    const rows = this.exec(args, true) as unknown[][];
    const changes = this.db.lastChanges();
    const tr = this.tr as Translation;
    const id = tr?.returning ? rows[0]?.[0] : undefined;
    return { changes, lastInsertRowid: typeof id === 'number' ? id : 0 };
  }

  get(...args: unknown[]): unknown {
    return this.shape(this.exec(args, this.plucked || this.rawRows))[0];
  }

  all(...args: unknown[]): unknown[] {
    return this.shape(this.exec(args, this.plucked || this.rawRows));
  }

  *iterate(...args: unknown[]): IterableIterator<unknown> {
    yield* this.all(...args);
  }

  pluck(toggle = true): this {
    this.plucked = toggle;
    if (toggle) this.rawRows = false;
    return this;
  }

  raw(toggle = true): this {
    this.rawRows = toggle;
    if (toggle) this.plucked = false;
    return this;
  }

  columns(): ColumnInfo[] {
    if (this.virtual) return Object.keys(this.virtual(this.db)[0] ?? {}).map((name) => ({ name }));
    if (!this.cols) this.cols = this.db.describe(this.current());
    return this.cols;
  }
}

export class PgDb implements Db {
  readonly engine = 'postgres' as const;
  readonly memory = false;
  open = true;
  /** Rows changed by this connection's statements (SQLite's total_changes()). */
  totalChanges = 0;
  /** The clock `evt_now_utc()` reads (setDbClock moves it). */
  clock: () => number = Date.now;
  private readonly client: Client;
  /**
   * Translations and server-side prepared statements by text. Some texts are built from the shape of a request
   * (see connection.ts's STATEMENT_CACHE_MAX): past `statementLimit` texts all are deallocated and `generation`
   * moves, so each PgStatement prepares its text again on its next use.
   */
  private readonly statements = new Map<string, { tr: Translation; name: string }>();
  statementLimit = 2000;
  generation = 0;
  private readonly keys = new Map<string, TableKey | null>();
  /**
   * Texts whose first PREPARE failed on a parameter PostgreSQL could not type (a failed round trip, and one more
   * inside a transaction, on each connection's first use): the dialect types what it can, so this stays empty.
   */
  readonly untypedRetries: string[] = [];
  private depth = 0;
  /**
   * Nested transactions (savepoints) by level, 1 first: 'pending' until the level's first statement, which sends
   * the SAVEPOINT with it; a level that ran no statement has nothing to roll back and costs no round trip.
   */
  private levels: ('pending' | 'open')[] = [];
  /** The shallowest finished level whose RELEASE is still to send (with the next SAVEPOINT; COMMIT makes it moot). */
  private releaseFrom: number | null = null;
  private seq = 0;
  private changes = 0;

  /** The database URL without its password (better-sqlite3's `name` is the file). */
  readonly name: string;

  constructor(spec: string) {
    this.name = describeDb(spec);
    ClientCtor ??= loadPgNative();
    this.client = new ClientCtor({ types: typesFor() });
    this.client.connectSync(spec);
    this.query("SET client_min_messages = warning; SET TIME ZONE 'UTC'");
  }

  /**
   * Refuses a database whose collation or character type is not C: text order must be SQLite's (bytes, BINARY)
   * and LIKE / NOCASE must fold ASCII only, as SQLite's do. Create it with
   * `CREATE DATABASE doorstep TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`.
   */
  checkDatabase(): void {
    const r = this.query(
      'SELECT datcollate AS collate, datctype AS ctype, pg_encoding_to_char(encoding) AS enc FROM pg_database WHERE datname = current_database()',
    )[0] as { collate: string; ctype: string; enc: string };
    const c = (v: string) => v === 'C' || v === 'POSIX';
    if (!c(r.collate) || !c(r.ctype) || r.enc !== 'UTF8') {
      throw new Error(
        `the PostgreSQL database must be UTF8 with LC_COLLATE and LC_CTYPE 'C' (it is ${r.enc}, ${r.collate}, ${r.ctype}), so text sorts and matches as on SQLite: CREATE DATABASE <name> TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
      );
    }
  }

  /** A simple or parameterized query, rows as objects. */
  private query(text: string, values?: unknown[]): Record<string, unknown>[] {
    this.client.arrayMode = false;
    return this.client.querySync(text, values);
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  /** Primary key of `table`, from the catalog (cached; null when it has none or is not a table). */
  keyOf(table: string): TableKey | null {
    if (this.keys.has(table)) return this.keys.get(table) ?? null;
    const rows = this.query(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = to_regclass($1) AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
      [table],
    ) as { name: string; type: string }[];
    const key = rows.length
      ? { columns: rows.map((r) => r.name), integer: rows.length === 1 && /^(bigint|integer|smallint)$/.test(rows[0]?.type ?? '') }
      : null;
    this.keys.set(table, key);
    return key;
  }

  /** The translation and server-side prepared statement of `sql` (made once per text per connection). */
  prepared(sql: string): { tr: Translation; name: string } {
    let p = this.statements.get(sql);
    if (p) return p;
    if (this.statements.size >= this.statementLimit) {
      this.query('DEALLOCATE ALL');
      this.statements.clear();
      this.generation++;
    }
    const tr = translate(sql, (t) => this.keyOf(t));
    const name = `s${++this.seq}`;
    // Inside a transaction a failed PREPARE would abort it: try under a savepoint (first use of a text only).
    const guard = this.depth > 0;
    for (let tries = 0; ; tries++) {
      try {
        if (guard) this.query('SAVEPOINT evt_prepare');
        this.client.prepareSync(name, tr.text, tr.params.length);
        if (guard) this.query('RELEASE SAVEPOINT evt_prepare');
        break;
      } catch (e) {
        if (guard) this.query('ROLLBACK TO SAVEPOINT evt_prepare; RELEASE SAVEPOINT evt_prepare');
        // SQLite's parameters have no type; one PostgreSQL cannot infer (`? IS NULL` alone) is taken as text.
        const untyped = /could not determine data type of parameter \$(\d+)/.exec((e as Error).message);
        if (untyped && tries < tr.params.length) {
          if (tries === 0) this.untypedRetries.push(sql);
          tr.text = tr.text.replace(new RegExp(`\\$${untyped[1]}(?![\\d:])`, 'g'), (m) => `${m}::text`);
          continue;
        }
        throw new Error(`${(e as Error).message.trim()}\n  in: ${tr.text}`);
      }
    }
    p = { tr, name };
    this.statements.set(sql, p);
    return p;
  }

  /**
   * Sends the savepoints of the levels that have not run a statement yet, after the RELEASE of the level
   * finished before them: one round trip per batch item instead of a SAVEPOINT and a RELEASE each.
   */
  private flushSavepoints(): void {
    const from = this.levels.indexOf('pending');
    if (from < 0) return;
    let text = this.releaseFrom !== null ? `RELEASE SAVEPOINT evt_sp${this.releaseFrom}; ` : '';
    for (let i = from; i < this.levels.length; i++) {
      text += `SAVEPOINT evt_sp${i + 1}; `;
      this.levels[i] = 'open';
    }
    this.releaseFrom = null;
    this.query(text);
  }

  private endTransaction(verb: 'COMMIT' | 'ROLLBACK'): void {
    this.depth = 0;
    this.levels = [];
    this.releaseFrom = null;
    this.query(verb);
  }

  execute(name: string, values: unknown[], arrays: boolean): unknown[] {
    this.flushSavepoints();
    this.client.arrayMode = arrays;
    const rows = this.client.executeSync(name, values);
    const n = Number.parseInt(this.client.pq.cmdTuples(), 10);
    this.changes = Number.isNaN(n) ? 0 : n;
    // cmdTuples is also a SELECT's row count; total_changes() counts rows written only, as SQLite's does.
    if (this.changes && /^(?:INSERT|UPDATE|DELETE|MERGE)\b/.test(this.client.pq.cmdStatus())) this.totalChanges += this.changes;
    return rows;
  }

  /** SQLite's `PRAGMA data_version` on PostgreSQL: the WAL insert position as a number. */
  dataVersion(): number {
    const lsn = String(this.query('SELECT pg_current_wal_insert_lsn()::text AS l')[0]?.l ?? '0/0');
    const [hi, lo] = lsn.split('/').map((h) => Number.parseInt(h, 16));
    return (hi ?? 0) * 2 ** 32 + (lo ?? 0);
  }

  lastChanges(): number {
    return this.changes;
  }

  /** Result columns of a prepared statement (libpq's PQdescribePrepared). */
  describe(name: string): ColumnInfo[] {
    const pq = this.client.pq;
    pq.describePrepared(name);
    const cols: ColumnInfo[] = [];
    for (let i = 0; i < pq.nfields(); i++) cols.push({ name: pq.fname(i) });
    return cols;
  }

  prepare(sql: string): Statement {
    return new PgStatement(this, sql);
  }

  /** Runs a script (several statements, no parameters), translated as DDL. */
  exec(sql: string): this {
    const control = /^\s*(BEGIN|COMMIT|END|ROLLBACK)\b(?:\s+(?:IMMEDIATE|DEFERRED|EXCLUSIVE|TRANSACTION))?\s*;?\s*$/i.exec(sql);
    if (control) {
      // Transaction control by hand (the batch groups its items in one): the same write lock as transaction().
      const verb = (control[1] as string).toUpperCase();
      if (verb === 'BEGIN') {
        this.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
        this.depth++;
      } else {
        this.endTransaction(verb === 'ROLLBACK' ? 'ROLLBACK' : 'COMMIT');
      }
      return this;
    }
    this.flushSavepoints();
    this.query(translateDdl(sql));
    return this;
  }

  /** Runs a script already written for PostgreSQL. */
  execNative(sql: string, values?: unknown[]): Record<string, unknown>[] {
    this.flushSavepoints();
    return this.query(sql, values);
  }

  transaction<F extends (...params: any[]) => unknown>(fn: F): Transaction<F> {
    const run = (...args: unknown[]): ReturnType<F> => {
      const top = this.depth === 0;
      // A nested level's SAVEPOINT waits for its first statement (flushSavepoints), its RELEASE for the next
      // SAVEPOINT or the COMMIT, so a batch item costs one round trip for both instead of two.
      const level = this.depth;
      if (top) {
        this.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
        this.levels = [];
        this.releaseFrom = null;
      } else this.levels[level - 1] = 'pending';
      this.depth++;
      let result: ReturnType<F>;
      try {
        result = fn(...args) as ReturnType<F>;
      } catch (e) {
        this.depth--;
        try {
          if (top) this.endTransaction('ROLLBACK');
          else if (this.levels.pop() === 'open') {
            // Rolling back to this level's savepoint ends the deeper ones, released or not.
            this.releaseFrom = null;
            this.query(`ROLLBACK TO SAVEPOINT evt_sp${level}; RELEASE SAVEPOINT evt_sp${level}`);
          }
        } catch {
          // The connection is gone: the original error says more.
        }
        throw e;
      }
      this.depth--;
      if (top) this.endTransaction('COMMIT');
      else if (this.levels.pop() === 'open') this.releaseFrom = Math.min(this.releaseFrom ?? level, level);
      return result;
    };
    return Object.assign(run, { default: run, deferred: run, immediate: run, exclusive: run }) as Transaction<F>;
  }

  /**
   * SQLite pragmas: the schema version is a row of `evt_schema`; the rest (journal, cache, mmap, busy timeout,
   * foreign keys) have no PostgreSQL counterpart the server needs (foreign keys are always on; writers wait on
   * locks; the server's own settings do the caching).
   */
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const m = /^\s*(\w+)\s*(?:=\s*(.+))?$/.exec(source);
    const key = m?.[1]?.toLowerCase();
    if (key === 'user_version') {
      this.query('CREATE TABLE IF NOT EXISTS evt_schema (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)');
      if (m?.[2] !== undefined) {
        this.query('INSERT INTO evt_schema (id, version) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version', [
          String(Number(m[2])),
        ]);
        return [];
      }
      const v = (this.query('SELECT version FROM evt_schema WHERE id = 1')[0]?.version as number | undefined) ?? 0;
      return options.simple ? v : [{ user_version: v }];
    }
    if (key === 'data_version') {
      const v = this.dataVersion();
      return options.simple ? v : [{ data_version: v }];
    }
    return options.simple ? undefined : [];
  }

  close(): this {
    if (this.open) {
      this.open = false;
      this.client.pq.finish();
      // libpq's binding closes its socket watcher with uv_close and no callback: the connection object must
      // outlive the event loop turn that finishes the close, or a garbage collection in between frees the handle
      // libuv is still closing (an assertion in uv__finish_close aborts the process).
      closing.add(this.client);
      setTimeout(() => closing.delete(this.client), 1000).unref();
    }
    return this;
  }
}
