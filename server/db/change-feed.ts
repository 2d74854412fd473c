import { type TxScope, txScope } from './engine/tx-scope.ts';
import { StateKey } from './engine/types.ts';
import crypto from 'node:crypto';
import type { Db } from './connection.ts';
import { dataVersion } from './repos/database.ts';
import { appendChange, changesAfter, lastChangeSeq, pruneChanges } from './repos/shared-state.ts';

/**
 * How the state several server processes must agree on is kept (issue 15 item 3): 'process' keeps it in memory
 * (one process per database: the SQLite server lock), 'database' in the database, shared by every process on it
 * (the PostgreSQL default). Chosen once, at app creation.
 */
export type SharedState = 'process' | 'database';

/** Cache tags (server/http/cache-tags.ts), or 'all' for a write that did not say what it changed. */
type Changed = readonly string[] | 'all';

/** Changes are kept this long in the log; a process that has not looked for longer drops everything instead. */
export const CHANGE_LOG_KEEP_MS = 5 * 60_000;
/**
 * A missing sequence number is waited for this long: on PostgreSQL a sequence hands out numbers in the order
 * transactions insert, not the order they commit, so a lower number can still appear (a rolled-back one never
 * does). A change later than this shows at the latest when the cached answers' TTL runs out.
 */
export const CHANGE_GAP_WAIT_MS = 10_000;
/** Rows read at once; a reader further behind drops everything and starts again from the end of the log. */
const READ_LIMIT = 1000;

/** One database's change feed (kept on its handle, Db.state, under FEED). */
export interface Feed {
  mode: SharedState;
  /** Names this process's rows in the log (it applied its own changes when it made them). */
  origin: string;
  now: () => number;
  /** Every change up to this sequence number has been applied (or given up on). */
  floor: number;
  /** Changes after `floor` already applied, with their times (to give up on the gaps before them). */
  seen: Map<number, number>;
  /** Moves when another process made a change it did not describe. */
  all: number;
  /** Moves on any change of another process. */
  any: number;
  listeners: ((tags: readonly string[]) => void)[];
  lastRead: number;
  nextPrune: number;
  /** The log read in flight outside a transaction (sharedRead), and the one that starts when it ends. */
  reading: Promise<void> | null;
  next: Promise<void> | null;
}

const FEED = new StateKey<Feed>('change feed');

/**
 * While a group of writes shares one transaction (holdChanges): what they changed, appended as one row. Kept per
 * transaction, not per process: on PostgreSQL several batches hold their groups open at once.
 */
const heldIn = new WeakMap<TxScope, Set<string> | 'all'>();

/** The calling flow's open transaction on `db`, if it holds its changes. */
function heldScope(db: Db): TxScope | undefined {
  const s = txScope.getStore();
  return s && s.owner === db && s.open ? s : undefined;
}

/** Starts the change feed of `db` in `mode` (at app creation); 'database' reads changes from now on. */
export async function openChangeFeed(db: Db, mode: SharedState, now: () => number = Date.now): Promise<void> {
  const t = now();
  db.state.set(FEED, {
    mode,
    origin: crypto.randomBytes(9).toString('base64url'),
    now,
    floor: mode === 'database' ? await lastChangeSeq(db) : 0,
    seen: new Map(),
    all: 0,
    any: 0,
    listeners: [],
    lastRead: t,
    nextPrune: t,
    reading: null,
    next: null,
  });
}

/** The shared-state mode `db`'s feed was opened in ('process' when none was). */
export function sharedStateOf(db: Db): SharedState {
  return db.state.get(FEED)?.mode ?? 'process';
}

/** Calls `fn` with the tags of each described change another process makes (database mode). */
export function onChangedTags(db: Db, fn: (tags: readonly string[]) => void): void {
  db.state.get(FEED)?.listeners.push(fn);
}

/**
 * Tells the other processes what a write changed (database mode; nothing in process mode, where SQLite's
 * `data_version` tells). Call it in the write's transaction, so the change and its record commit together.
 */
export async function recordChange(db: Db, changed: Changed): Promise<void> {
  const f = db.state.get(FEED);
  if (f?.mode !== 'database' || (changed !== 'all' && !changed.length)) return;
  const scope = heldScope(db);
  const held = scope && heldIn.get(scope);
  if (scope && held) {
    if (changed === 'all') heldIn.set(scope, 'all');
    else if (held !== 'all') for (const t of changed) held.add(t);
    return;
  }
  await appendChange(db, changed === 'all' ? 'all' : JSON.stringify(changed), f.origin, f.now());
}

/**
 * Starts collecting the changes recorded on `db` instead of appending a row for each (database mode): for a
 * group of writes in ONE open transaction (a batch's synchronous items, each under its own savepoint), which
 * `releaseChanges` ends with one row, the union of their tags, before the transaction commits. A write that
 * rolls back to its savepoint before recording adds nothing; one that recorded and then rolled back leaves
 * its tags in the union (an extra invalidation, never a missing one).
 */
export function holdChanges(db: Db): void {
  const f = db.state.get(FEED);
  const scope = heldScope(db);
  if (f?.mode === 'database' && scope) heldIn.set(scope, new Set());
}

/** Appends the one row of what was collected since `holdChanges` (inside the transaction, before its COMMIT). */
export async function releaseChanges(db: Db): Promise<void> {
  const f = db.state.get(FEED);
  const scope = heldScope(db);
  const held = scope && heldIn.get(scope);
  if (!f || !scope || !held) return;
  heldIn.delete(scope);
  if (held !== 'all' && !held.size) return;
  await appendChange(db, held === 'all' ? 'all' : JSON.stringify([...held]), f.origin, f.now());
}

/** Forgets what was collected (the transaction rolled back: nothing it recorded committed). */
export function dropHeldChanges(db: Db): void {
  const scope = heldScope(db);
  if (scope) heldIn.delete(scope);
}

/** Records an undescribed change whatever the mode (the CLI, which has no feed, after its writes). */
export async function recordAnyChange(db: Db): Promise<void> {
  const now = Date.now();
  await appendChange(db, 'all', 'cli', now);
  await pruneChanges(db, now - CHANGE_LOG_KEEP_MS);
}

/**
 * A number that moves when another process (or connection) committed a change: scope 'all' a change that may
 * have changed anything (caches keyed on it drop everything), 'any' any change at all. Process mode: SQLite's
 * `data_version`. Database mode: reads the log rows after the last one applied (one indexed query), hands the
 * described changes' tags to the `onChangedTags` listeners (which drop exactly those) and counts the rest.
 * `own`: a read of the log of the caller's own, not shared with concurrent callers (sharedRead), whose statement
 * is sent before this call returns: what the caller reads after it on the same connection (Db.together) is then
 * no older than the stamp (present-cache.ts, a single read's early reads).
 */
export async function changeStamp(db: Db, scope: 'all' | 'any' = 'all', own = false): Promise<number> {
  const f = db.state.get(FEED);
  if (f?.mode !== 'database') return await dataVersion(db);
  if (db.inTransaction || own) await read(db, f);
  else await sharedRead(db, f);
  return scope === 'all' ? f.all : f.any;
}

/**
 * A read of the log that begins no earlier than this call, shared: concurrent requests of a process each asked
 * the database on their own (a round trip each, twenty at a time under load). A read in flight began before
 * this call and may have missed a change committed since, so it does not do; the next one, begun as it ends,
 * serves every caller that asked meanwhile. Outside a transaction only (inside, the log shows the
 * transaction's own rows).
 */
function sharedRead(db: Db, f: Feed): Promise<void> {
  if (!f.reading) return (f.reading = startRead(db, f));
  f.next ??= f.reading
    .then(
      () => undefined,
      () => undefined,
    )
    .then(() => {
      f.next = null;
      return (f.reading = startRead(db, f));
    });
  return f.next;
}

function startRead(db: Db, f: Feed): Promise<void> {
  const p: Promise<void> = read(db, f).finally(() => {
    if (f.reading === p) f.reading = null;
  });
  return p;
}

async function everything(db: Db, f: Feed): Promise<void> {
  f.all++;
  f.any++;
  f.floor = await lastChangeSeq(db);
  f.seen.clear();
}

async function read(db: Db, f: Feed): Promise<void> {
  const now = f.now();
  if (now - f.lastRead > CHANGE_LOG_KEEP_MS / 2) {
    // Rows this process never read may have been pruned: start again.
    f.lastRead = now;
    await everything(db, f);
    return;
  }
  f.lastRead = now;
  const rows = await changesAfter(db, f.floor, READ_LIMIT);
  if (rows.length === READ_LIMIT) return await everything(db, f);
  // Inside a transaction the log shows this transaction's own rows before they commit; a rollback could give
  // their numbers to other processes' rows, so they are taken as read only outside one.
  const settled = !db.inTransaction;
  for (const r of rows) {
    if (f.seen.has(r.seq)) continue;
    if (r.origin === f.origin) {
      if (settled) f.seen.set(r.seq, r.at_ms);
      continue;
    }
    f.seen.set(r.seq, r.at_ms);
    f.any++;
    if (r.tags === 'all') {
      f.all++;
      continue;
    }
    const tags = JSON.parse(r.tags) as string[];
    for (const l of f.listeners) l(tags);
  }
  advance(f, now);
  if (settled && now >= f.nextPrune) {
    f.nextPrune = now + 60_000;
    await pruneChanges(db, now - CHANGE_LOG_KEEP_MS);
  }
}

/** Moves `floor` over the changes applied, and over gaps older than CHANGE_GAP_WAIT_MS. */
function advance(f: Feed, now: number): void {
  for (;;) {
    while (f.seen.has(f.floor + 1)) f.seen.delete(++f.floor);
    if (!f.seen.size) break;
    let next = Number.POSITIVE_INFINITY;
    for (const s of f.seen.keys()) if (s < next) next = s;
    if ((f.seen.get(next) as number) > now - CHANGE_GAP_WAIT_MS) break;
    f.floor = next - 1;
  }
}
