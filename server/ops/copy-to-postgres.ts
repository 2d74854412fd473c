import Database from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../db/connection.ts';
import { describeDb, isPostgresSpec } from '../db/engine/types.ts';
import { listMigrations } from '../db/migrate.ts';
import { PgDb, toParam } from '../db/engine/postgres.ts';
import type { SqliteDb } from '../db/engine/sqlite.ts';
import { acquireServerLock, LockedError } from './server-lock.ts';

/**
 * `cli migrate-to-postgres`: copies a Doorstep SQLite database into an empty PostgreSQL database and proves the
 * copy. The SQLite file is opened read-only under the server lock (no server can start on it meanwhile), read in
 * one read transaction (one consistent snapshot), streamed table by table in dependency order (foreign keys) in
 * bounded chunks; everything on PostgreSQL happens in one transaction holding the write lock every Doorstep
 * writer takes: IDs are kept as they are, user triggers are off while rows go in (term counts, attendee change
 * sequence numbers and statuses are copied, not recomputed), identities continue after the highest ID (or the
 * highest SQLite's AUTOINCREMENT ever handed out: deleted IDs are not reused). Before committing, every copied
 * table is read back and its count and checksum compared with what was read from SQLite; any difference rolls
 * the whole copy back.
 *
 * The checksum is SHA-256 over the rows in primary key order, each value written with its kind (integer, real,
 * text, blob, null), so a value that changed type on the way (an integer become text) counts as different.
 */

/** A reason not to start (exit code 2): nothing was changed. */
export class MigrationRefused extends Error {}

export interface TableCheck {
  table: string;
  sqliteRows: number;
  pgRows: number;
  sqliteSum: string;
  pgSum: string;
  /** The next ID its identity hands out, for tables with one. */
  nextId: number | null;
  ok: boolean;
}

export interface MigrationReport {
  checks: TableCheck[];
  skipped: { table: string; rows: number; reason: string }[];
  committed: boolean;
}

/** Tables not copied: state of the running processes, or caches, none of which a fresh server needs. */
export const SKIPPED_TABLES: Record<string, string> = {
  evt_change_log: 'cache invalidation log between running processes; a server on the new database starts with an empty one',
  evt_rate_events: 'rate limit and sign-in throttle counts; they expire within the hour and start again at zero',
  oembed_cache: 'cache of external oEmbed answers; fetched again when asked for',
};

/** Rows per INSERT (bounded further by the 65,535 parameters of one statement) and bytes per INSERT. */
const CHUNK_ROWS = 1000;
const CHUNK_PARAMS = 30_000;
const CHUNK_BYTES = 8 * 1024 * 1024;
const FETCH_ROWS = 2000;

interface TableInfo {
  name: string;
  columns: string[];
  key: string[];
  references: string[];
  /** What SQLite reads the rows from, when not the table of that name (a column PostgreSQL keeps apart). */
  from?: string;
}

/**
 * Columns SQLite keeps in a table's rows that PostgreSQL keeps in a table of their own, keyed by the row's key:
 * the attendee change cursor's numbers (migrations-pg/025). Copied and checked as that table.
 */
const MOVED_COLUMNS = [{ table: 'attendees', column: 'change_seq', into: 'attendee_cursor', key: 'post_id' }];

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

function latestVersion(): number {
  return Math.max(...listMigrations('sqlite').map((m) => m.version));
}

/** One value in the form both sides hash: its kind and its text. */
function sqliteValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return `i${v}`;
  if (typeof v === 'number') return `r${v}`;
  if (Buffer.isBuffer(v)) return `b${v.toString('hex')}`;
  return `t${v as string}`;
}

type PgKind = 'i' | 'r' | 'b' | 't';
function pgKind(type: string): PgKind {
  if (/^(bigint|integer|smallint|boolean)$/.test(type)) return 'i';
  if (/^(double precision|real|numeric)$/.test(type)) return 'r';
  if (type === 'bytea') return 'b';
  return 't';
}

function pgValue(v: unknown, kind: PgKind): string | null {
  if (v === null || v === undefined) return null;
  if (kind === 'r') return `r${Number(v)}`;
  if (kind === 'b') return `b${(v as Buffer).toString('hex')}`;
  return `${kind}${v as string}`;
}

const hashRow = (h: crypto.Hash, values: (string | null)[]) => h.update(`${JSON.stringify(values)}\n`);

/** The Doorstep tables of a SQLite database, in an order where each comes after the tables it references. */
function sqliteTables(db: Database.Database): TableInfo[] {
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
    .pluck()
    .all() as string[];
  const tables = names.map((name): TableInfo => {
    const cols = db.prepare(`PRAGMA table_info(${q(name)})`).all() as { name: string; pk: number }[];
    const key = cols
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const fks = db.prepare(`PRAGMA foreign_key_list(${q(name)})`).all() as { table: string }[];
    return {
      name,
      columns: cols.map((c) => c.name),
      key: key.length ? key : cols.map((c) => c.name),
      references: [...new Set(fks.map((f) => f.table).filter((t) => t !== name))],
    };
  });
  for (const m of MOVED_COLUMNS) {
    const t = tables.find((x) => x.name === m.table);
    if (!t?.columns.includes(m.column)) continue;
    t.columns = t.columns.filter((c) => c !== m.column);
    tables.push({
      name: m.into,
      columns: [m.key, m.column],
      key: [m.key],
      references: [m.table],
      from: `(SELECT ${q(m.key)}, ${q(m.column)} FROM ${q(m.table)})`,
    });
  }
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const next = tables.find((t) => !placed.has(t.name) && t.references.every((r) => placed.has(r) || !names.includes(r)));
    if (!next)
      throw new Error(
        `foreign keys form a cycle between ${tables
          .filter((t) => !placed.has(t.name))
          .map((t) => t.name)
          .join(', ')}`,
      );
    ordered.push(next);
    placed.add(next.name);
  }
  return ordered;
}

/** Count and checksum of a SQLite table's rows in key order, streamed. */
function sqliteChecksum(db: Database.Database, t: TableInfo): { rows: number; sum: string } {
  const h = crypto.createHash('sha256');
  let rows = 0;
  const s = db
    .prepare(`SELECT ${t.columns.map(q).join(', ')} FROM ${t.from ?? q(t.name)} ORDER BY ${t.key.map(q).join(', ')}`)
    .raw(true)
    .safeIntegers(true);
  for (const r of s.iterate() as IterableIterator<unknown[]>) {
    hashRow(h, r.map(sqliteValue));
    rows++;
  }
  return { rows, sum: h.digest('hex') };
}

/** Column types of a table on PostgreSQL (current schema), by name. */
async function pgColumns(pg: PgDb, table: string): Promise<Map<string, string>> {
  const rows = (await pg.native(
    'SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
    [table],
  )) as { name: string; type: string }[];
  return new Map(rows.map((r) => [r.name, r.type === 'USER-DEFINED' ? 'text' : r.type]));
}

/** Count and checksum of a PostgreSQL table's rows in key order, read back through a cursor (bounded memory). */
async function pgChecksum(pg: PgDb, t: TableInfo, types: Map<string, string>): Promise<{ rows: number; sum: string }> {
  const kinds = t.columns.map((c) => pgKind(types.get(c) ?? 'text'));
  // Integers as text: a bigint past 2^53 must not be rounded on its way into JavaScript.
  const select = t.columns
    .map((c, i) => (kinds[i] !== 'i' ? q(c) : types.get(c) === 'boolean' ? `${q(c)}::int::text AS ${q(c)}` : `${q(c)}::text AS ${q(c)}`))
    .join(', ');
  // ORDER BY the table's columns (qualified: an output column of the same name is the text cast).
  const order = t.key.map((k) => `evt_src.${q(k)}`).join(', ');
  await pg.native(`DECLARE evt_copy_check NO SCROLL CURSOR FOR SELECT ${select} FROM ${q(t.name)} AS evt_src ORDER BY ${order}`);
  const h = crypto.createHash('sha256');
  let rows = 0;
  try {
    for (;;) {
      const batch = await pg.native(`FETCH FORWARD ${FETCH_ROWS} FROM evt_copy_check`);
      if (!batch.length) break;
      for (const r of batch) {
        hashRow(
          h,
          t.columns.map((c, i) => pgValue(r[c], kinds[i] as PgKind)),
        );
        rows++;
      }
    }
  } finally {
    await pg.native('CLOSE evt_copy_check');
  }
  return { rows, sum: h.digest('hex') };
}

/** Streams one table from SQLite into PostgreSQL in multi-row INSERTs; returns the source's count and checksum. */
async function copyTable(src: Database.Database, pg: PgDb, t: TableInfo): Promise<{ rows: number; sum: string }> {
  const h = crypto.createHash('sha256');
  const perChunk = Math.max(1, Math.min(CHUNK_ROWS, Math.floor(CHUNK_PARAMS / t.columns.length)));
  const cols = t.columns.map(q).join(', ');
  let values: (string | null)[] = [];
  let rowsInChunk = 0;
  let bytes = 0;
  let rows = 0;
  const flush = async () => {
    if (!rowsInChunk) return;
    const n = t.columns.length;
    const tuples = Array.from({ length: rowsInChunk }, (_, r) => `(${Array.from({ length: n }, (_, c) => `$${r * n + c + 1}`).join(', ')})`);
    await pg.native(`INSERT INTO ${q(t.name)} (${cols}) VALUES ${tuples.join(', ')}`, values);
    values = [];
    rowsInChunk = 0;
    bytes = 0;
  };
  const s = src
    .prepare(`SELECT ${cols} FROM ${t.from ?? q(t.name)} ORDER BY ${t.key.map(q).join(', ')}`)
    .raw(true)
    .safeIntegers(true);
  for (const r of s.iterate() as IterableIterator<unknown[]>) {
    hashRow(h, r.map(sqliteValue));
    for (const v of r) {
      // A SQLite value (bigint, number, text, blob, null) in PostgreSQL's text format; PostgreSQL casts it to the column's type.
      const p = toParam(v) as string | null;
      values.push(p);
      bytes += p?.length ?? 0;
    }
    rows++;
    if (++rowsInChunk >= perChunk || bytes >= CHUNK_BYTES) await flush();
  }
  await flush();
  return { rows, sum: h.digest('hex') };
}

/** Checks the source: a SQLite file holding a Doorstep database at this version's schema. */
function openSource(file: string): Database.Database {
  if (isPostgresSpec(file)) throw new MigrationRefused('--from must be a SQLite file, not a PostgreSQL URL');
  if (file === ':memory:' || file.startsWith('file:')) throw new MigrationRefused('--from must be a SQLite database file');
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new MigrationRefused(`no SQLite database at ${file}`);
  let db: Database.Database;
  let version: number;
  let names: string[];
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new MigrationRefused(`${file} cannot be opened as a SQLite database: ${(e as Error).message}`);
  }
  try {
    version = db.pragma('user_version', { simple: true }) as number;
    names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  } catch (e) {
    db.close();
    throw new MigrationRefused(`${file} is not a SQLite database (${(e as Error).message})`);
  }
  const missing = ['options', 'users', 'posts', 'events', 'attendees'].filter((t) => !names.includes(t));
  if (version === 0 || missing.length) {
    db.close();
    throw new MigrationRefused(`${file} is not a Doorstep database (no schema version${missing.length ? `, no ${missing.join(', ')} table` : ''})`);
  }
  const latest = latestVersion();
  if (version !== latest) {
    db.close();
    throw new MigrationRefused(
      version < latest
        ? `${file} is at schema version ${version}, this Doorstep's is ${latest}: start this version's server on it once (it migrates on start), stop it, then migrate`
        : `${file} is at schema version ${version}, newer than this Doorstep's (${latest}): migrate with the Doorstep version that wrote it`,
    );
  }
  return db;
}

/** Checks the target before anything is written: reachable, C collation, no Doorstep schema or this version's. */
async function checkTarget(url: string, tables: string[]): Promise<void> {
  const pg = new PgDb(url, { poolSize: 1 });
  try {
    try {
      await pg.connect();
    } catch (e) {
      const m = (e as Error).message.trim();
      throw new MigrationRefused(/LC_COLLATE/.test(m) ? m : `cannot connect to ${describeDb(url)}: ${m}`);
    }
    const has = (await pg.native("SELECT to_regclass('evt_schema') IS NOT NULL AS has"))[0]?.has === 1;
    const version = has ? (((await pg.native('SELECT version FROM evt_schema WHERE id = 1'))[0]?.version as number | undefined) ?? 0) : 0;
    const latest = latestVersion();
    if (version !== 0 && version !== latest)
      throw new MigrationRefused(
        `the PostgreSQL database holds a Doorstep schema at version ${version}, not ${latest}: migrate into an empty database`,
      );
    if (version === 0) {
      const found = (await pg.native('SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename = ANY($1::text[])', [
        `{${tables.join(',')}}`,
      ])) as { name: string }[];
      if (found.length)
        throw new MigrationRefused(
          `the PostgreSQL database has tables named as Doorstep's (${found
            .map((r) => r.name)
            .slice(0, 5)
            .join(', ')}) but no Doorstep schema version: migrate into an empty database`,
        );
    }
  } finally {
    await pg.close();
  }
}

/**
 * Refuses a target holding anything but what the migrations themselves insert (compared with a freshly
 * migrated database: the same counts, and the same checksum where the migrations seed rows).
 */
async function checkEmpty(pg: PgDb, tables: TableInfo[]): Promise<void> {
  const freshDb = (await openDatabase(':memory:')) as SqliteDb;
  const fresh = freshDb.raw;
  try {
    const busy: string[] = [];
    for (const t of tables) {
      const n = Number((await pg.native(`SELECT count(*) AS n FROM ${q(t.name)}`))[0]?.n);
      const seeded = sqliteChecksum(fresh, t);
      if (n !== seeded.rows || (n > 0 && (await pgChecksum(pg, t, await pgColumns(pg, t.name))).sum !== seeded.sum))
        busy.push(`${t.name} (${n} rows)`);
    }
    if (busy.length)
      throw new MigrationRefused(
        `the PostgreSQL database is not empty: ${busy.slice(0, 8).join(', ')}${busy.length > 8 ? ', ...' : ''}. Migrate into an empty database (or drop and recreate this one if its content is expendable)`,
      );
  } finally {
    await freshDb.close();
  }
}

/** Sets the identity of `t` (if it has one) past the highest ID; returns the next ID it hands out. */
async function continueIdentity(pg: PgDb, t: TableInfo, autoincrement: Map<string, number>): Promise<number | null> {
  if (t.key.length !== 1) return null;
  const key = t.key[0] as string;
  const seq = (await pg.native('SELECT pg_get_serial_sequence($1, $2) AS seq', [q(t.name), key]))[0]?.seq as string | null;
  if (!seq) return null;
  const max = Number((await pg.native(`SELECT coalesce(max(${q(key)}), 0)::text AS m FROM ${q(t.name)}`))[0]?.m);
  const next = Math.max(max, autoincrement.get(t.name) ?? 0) + 1;
  await pg.native('SELECT setval($1::regclass, $2::bigint, false)', [seq, String(next)]);
  return next;
}

/**
 * Copies the SQLite database `from` into the PostgreSQL database `to` (see the file comment). Throws
 * MigrationRefused before changing anything when it should not run; any other error rolls the copy back.
 * `committed` is false when the read-back differed (rolled back too).
 */
export async function migrateToPostgres(from: string, to: string, out: (line: string) => void): Promise<MigrationReport> {
  if (!isPostgresSpec(to)) throw new MigrationRefused('--to must be a postgres:// or postgresql:// URL');
  const file = path.resolve(from);
  const src = openSource(file);
  let lock;
  try {
    lock = acquireServerLock(file);
  } catch (e) {
    src.close();
    if (e instanceof LockedError)
      throw new MigrationRefused(`${e.message}. Stop that server first: the copy must be of a database nobody is writing`);
    throw e;
  }
  try {
    const tables = sqliteTables(src);
    await checkTarget(
      to,
      tables.map((t) => t.name),
    );
    const pg = (await openDatabase(to, { poolSize: 1 })) as PgDb;
    try {
      return await copyAll(src, pg, tables, out);
    } finally {
      await pg.close();
    }
  } finally {
    src.close();
    lock?.release();
  }
}

/** Thrown inside the target's transaction to roll the copy back when its read-back differed. */
class ReadBackDiffered extends Error {
  constructor(readonly checks: TableCheck[]) {
    super('read-back differed');
  }
}

async function copyAll(src: Database.Database, pg: PgDb, tables: TableInfo[], out: (line: string) => void): Promise<MigrationReport> {
  for (const t of tables) {
    const have = await pgColumns(pg, t.name);
    const missing = t.columns.filter((c) => !have.has(c));
    if (!have.size || missing.length)
      throw new MigrationRefused(`the PostgreSQL schema has no ${have.size ? `${t.name}.${missing.join(', ')}` : t.name}`);
  }
  // One snapshot of the source; one transaction on the target.
  src.exec('BEGIN');
  try {
    const autoincrement = new Map<string, number>(
      src.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'").pluck().get()
        ? (src.prepare('SELECT name, seq FROM sqlite_sequence').raw(true).all() as [string, number][])
        : [],
    );
    const copied = tables.filter((t) => !SKIPPED_TABLES[t.name]);
    const skipped = tables
      .filter((t) => SKIPPED_TABLES[t.name])
      .map((t) => ({
        table: t.name,
        rows: Number(
          src
            .prepare(`SELECT count(*) FROM ${q(t.name)}`)
            .pluck()
            .get(),
        ),
        reason: SKIPPED_TABLES[t.name] as string,
      }));
    let checks: TableCheck[];
    try {
      checks = await pg.transaction(async () => {
        await checkEmpty(pg, tables);
        for (const t of copied) await pg.native(`ALTER TABLE ${q(t.name)} DISABLE TRIGGER USER`);
        const source = new Map<string, { rows: number; sum: string }>();
        for (const t of copied) {
          // Only the rows the migrations seed can be there (checkEmpty): the source's take their place.
          await pg.native(`DELETE FROM ${q(t.name)}`);
          try {
            source.set(t.name, await copyTable(src, pg, t));
          } catch (e) {
            throw new Error(`copying ${t.name}: ${(e as Error).message.trim()}`);
          }
        }
        for (const t of copied) await pg.native(`ALTER TABLE ${q(t.name)} ENABLE TRIGGER USER`);
        const list: TableCheck[] = [];
        for (const t of copied) {
          const nextId = await continueIdentity(pg, t, autoincrement);
          const back = await pgChecksum(pg, t, await pgColumns(pg, t.name));
          const s = source.get(t.name) as { rows: number; sum: string };
          list.push({
            table: t.name,
            sqliteRows: s.rows,
            pgRows: back.rows,
            sqliteSum: s.sum,
            pgSum: back.sum,
            nextId,
            ok: s.rows === back.rows && s.sum === back.sum,
          });
        }
        if (!list.every((c) => c.ok)) throw new ReadBackDiffered(list);
        return list;
      });
    } catch (e) {
      if (!(e instanceof ReadBackDiffered)) throw e;
      for (const s of skipped) out(`Skipped ${s.table} (${s.rows} rows): ${s.reason}.`);
      return { checks: e.checks, skipped, committed: false };
    }
    // Fresh tables have no statistics until autovacuum's first pass (about a minute); until then PostgreSQL plans
    // every query as if the tables were empty (sequential scans over 100,000 attendees). Gather them now.
    await pg.native('ANALYZE');
    for (const s of skipped) out(`Skipped ${s.table} (${s.rows} rows): ${s.reason}.`);
    return { checks, skipped, committed: true };
  } finally {
    src.exec('COMMIT');
  }
}
