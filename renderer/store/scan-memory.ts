import type { DBCore, DBCoreMutateRequest, DBCoreMutateResponse, DBCoreTable, DBCoreTransaction, Middleware } from 'dexie';
import type { AttendeeRow, KioskDb, ListPassRow, MetaRow, TicketRow } from './db.ts';
import { type PackedRow, snapshotPacked, unpackRow } from './snapshot.ts';

/**
 * What a scan decision reads, kept in memory so a scan makes no IndexedDB read before its verdict: which attendees
 * the `attendees` table holds (and the rows written since the kiosk started), the first download's rows, the
 * list passes, the attendees with scans in the outbox, the `meta` rows (check-in list, signing keys, ticket IDs) and
 * the ticket list. IndexedDB stays the record: every write to these tables, by any code, passes through a Dexie
 * middleware (DBCore `mutate`) that applies it here as its request succeeds, and a transaction that aborts makes the
 * tables it wrote be read afresh. Until it is loaded (`loadScanMemory`, at warm-up) a scan reads IndexedDB as before.
 *
 * A row of `attendees` the kiosk has not written since it loaded is known to be there but not held (100,000 rows
 * changed at a busy door would be a lot of memory for rows hardly ever scanned again): a scan of it reads that one row.
 */

type Table = 'attendees' | 'snapshot' | 'listPasses' | 'outbox' | 'meta' | 'tickets';
const WATCHED: ReadonlySet<string> = new Set<Table>(['attendees', 'snapshot', 'listPasses', 'outbox', 'meta', 'tickets']);

interface Memory {
  /** Raised by every write to a table: a load or a row read that straddles one is not kept. */
  generation: Record<Table, number>;
  /** IDs in `attendees`; the row itself when written since the load (`null`: there, not held). */
  attendees: Map<number, AttendeeRow | null> | null;
  /** The first download's rows by ID. */
  snapshot: Map<number, PackedRow> | null;
  passes: Map<string, ListPassRow> | null;
  passesOf: Map<number, Map<string, ListPassRow>>;
  /** Outbox `seq` -> attendee, and how many queued scans each attendee has. */
  outbox: Map<number, number> | null;
  queued: Map<number, number>;
  meta: Map<string, unknown> | null;
  tickets: Map<number, TicketRow> | null;
  loading: Promise<void> | null;
}

const memories = new WeakMap<object, Memory>();

function memoryOf(db: object): Memory {
  let m = memories.get(db);
  if (!m) {
    m = {
      generation: { attendees: 0, snapshot: 0, listPasses: 0, outbox: 0, meta: 0, tickets: 0 },
      attendees: null,
      snapshot: null,
      passes: null,
      passesOf: new Map(),
      outbox: null,
      queued: new Map(),
      meta: null,
      tickets: null,
      loading: null,
    };
    memories.set(db, m);
  }
  return m;
}

/** Forgets a table's copy (a write this module cannot follow, or an aborted transaction): read again at the next load. */
function forget(m: Memory, table: Table): void {
  m.generation[table]++;
  switch (table) {
    case 'attendees':
      m.attendees = null;
      break;
    case 'snapshot':
      m.snapshot = null;
      break;
    case 'listPasses':
      m.passes = null;
      m.passesOf = new Map();
      break;
    case 'outbox':
      m.outbox = null;
      m.queued = new Map();
      break;
    case 'meta':
      m.meta = null;
      break;
    case 'tickets':
      m.tickets = null;
      break;
  }
}

function addPass(m: Memory, p: ListPassRow): void {
  removePass(m, p.nonce);
  m.passes!.set(p.nonce, p);
  let of = m.passesOf.get(p.attendeeId);
  if (!of) m.passesOf.set(p.attendeeId, (of = new Map()));
  of.set(p.nonce, p);
}

function removePass(m: Memory, nonce: string): void {
  const old = m.passes!.get(nonce);
  if (!old) return;
  m.passes!.delete(nonce);
  const of = m.passesOf.get(old.attendeeId);
  of?.delete(nonce);
  if (of?.size === 0) m.passesOf.delete(old.attendeeId);
}

function setQueued(m: Memory, seq: number, attendeeId: number | undefined): void {
  const old = m.outbox!.get(seq);
  if (old !== undefined) {
    const n = (m.queued.get(old) ?? 1) - 1;
    if (n > 0) m.queued.set(old, n);
    else m.queued.delete(old);
    m.outbox!.delete(seq);
  }
  if (attendeeId === undefined) return;
  m.outbox!.set(seq, attendeeId);
  m.queued.set(attendeeId, (m.queued.get(attendeeId) ?? 0) + 1);
}

/** Applies one successful write request to the copy of its table. */
function apply(m: Memory, table: Table, req: DBCoreMutateRequest, res: DBCoreMutateResponse): void {
  m.generation[table]++;
  if (req.type === 'deleteRange') return forget(m, table);
  const failed = (i: number) => res.failures[i] !== undefined;
  if (req.type === 'delete') {
    for (const [i, key] of req.keys.entries()) {
      if (failed(i)) continue;
      if (table === 'attendees') m.attendees?.delete(key as number);
      else if (table === 'listPasses' && m.passes) removePass(m, key as string);
      else if (table === 'outbox' && m.outbox) setQueued(m, key as number, undefined);
      else if (table === 'meta') m.meta?.delete(key as string);
      else if (table === 'tickets') m.tickets?.delete(key as number);
      else if (table === 'snapshot') return forget(m, table);
    }
    return;
  }
  // add / put: the values as stored (copied: IndexedDB stored a clone, the caller keeps its object).
  if (table === 'snapshot') return forget(m, table);
  for (const [i, value] of req.values.entries()) {
    if (failed(i)) continue;
    if (table === 'attendees') m.attendees?.set((value as AttendeeRow).id, copyRow(value as AttendeeRow));
    else if (table === 'listPasses' && m.passes) addPass(m, { ...(value as ListPassRow) });
    else if (table === 'outbox' && m.outbox) {
      const seq = (value as { seq?: number }).seq ?? (res.results?.[i] as number | undefined);
      if (typeof seq !== 'number') forget(m, table);
      else setQueued(m, seq, (value as { attendeeId: number }).attendeeId);
    } else if (table === 'meta') m.meta?.set((value as MetaRow).key, structuredClone((value as MetaRow).value));
    else if (table === 'tickets') m.tickets?.set((value as TicketRow).id, structuredClone(value as TicketRow));
  }
}

/** The middleware that keeps the copies in step with every write (installed by openKioskDb). */
export function scanMemoryMiddleware(db: object): Middleware<DBCore> {
  return {
    stack: 'dbcore',
    name: 'scanMemory',
    create: (down) => ({
      ...down,
      transaction(stores, mode, options) {
        const trans = down.transaction(stores, mode, options);
        if (mode === 'readwrite')
          watchAbort(
            memoryOf(db),
            trans,
            stores.filter((s): s is Table => WATCHED.has(s)),
          );
        return trans;
      },
      table(name: string): DBCoreTable {
        const table = down.table(name);
        if (!WATCHED.has(name)) return table;
        const t = name as Table;
        return {
          ...table,
          mutate(req) {
            const m = memoryOf(db);
            return table.mutate(req).then(
              (res) => {
                apply(m, t, req, res);
                return res;
              },
              (err) => {
                // A request refused as a whole: whatever it did or did not do, the table is read afresh.
                forget(m, t);
                throw err;
              },
            );
          },
        };
      },
    }),
  };
}

/**
 * A transaction that fails undoes its writes in IndexedDB: the copies of the tables it may have written are read
 * again. Dropped as the abort is asked for (Dexie asks when a transaction's code throws, before it rejects), or as a
 * failed request or the abort is heard of (IndexedDB aborting on its own); dropping a copy is always safe.
 */
function watchAbort(m: Memory, trans: DBCoreTransaction, tables: Table[]): void {
  if (tables.length === 0) return;
  const idb = trans as unknown as IDBTransaction;
  if (typeof idb?.addEventListener !== 'function') return;
  const drop = () => {
    for (const t of tables) forget(m, t);
  };
  idb.addEventListener('abort', drop);
  idb.addEventListener('error', drop);
  const abort = idb.abort;
  idb.abort = function (this: IDBTransaction) {
    drop();
    return abort.call(this);
  };
}

/**
 * Reads what the copies start from. The tables are read in one read-write transaction, so no write of another
 * transaction falls between the read and the copy taking over; the first download's rows come from the snapshot's
 * own memory (snapshot.ts), kept only if no chunk was written meanwhile. Concurrent calls share one load.
 */
export async function loadScanMemory(db: KioskDb): Promise<void> {
  const m = memoryOf(db);
  // A load under way may have begun before a write that dropped a copy again: then once more (a few times at most,
  // while writes keep coming the scans read IndexedDB).
  for (let i = 0; i < 3 && !loaded(m); i++) await loadOnce(db, m);
}

function loaded(m: Memory): boolean {
  return Boolean(m.attendees && m.snapshot && m.passes && m.outbox && m.meta && m.tickets);
}

function loadOnce(db: KioskDb, m: Memory): Promise<void> {
  m.loading ??= (async () => {
    try {
      // Both reads go out at once (warm-up makes them just before the page's thread is taken for a while).
      await Promise.all([loadSnapshot(db, m), loadTables(db, m)]);
    } finally {
      m.loading = null;
    }
  })();
  return m.loading;
}

async function loadSnapshot(db: KioskDb, m: Memory): Promise<void> {
  if (m.snapshot) return;
  const generation = m.generation.snapshot;
  const packed = await snapshotPacked(db);
  if (m.generation.snapshot !== generation) return;
  const byId = new Map<number, PackedRow>();
  for (const p of packed) byId.set(p[0], p);
  m.snapshot = byId;
}

async function loadTables(db: KioskDb, m: Memory): Promise<void> {
  if (m.attendees && m.passes && m.outbox && m.meta && m.tickets) return;
  await db.transaction('rw', [db.attendees, db.listPasses, db.outbox, db.meta, db.tickets], async () => {
    const [ids, passes, outbox, meta, tickets] = await Promise.all([
      m.attendees ? null : db.attendees.toCollection().primaryKeys(),
      m.passes ? null : db.listPasses.toArray(),
      m.outbox ? null : db.outbox.toArray(),
      m.meta ? null : db.meta.toArray(),
      m.tickets ? null : db.tickets.toArray(),
    ]);
    if (ids) m.attendees = new Map(ids.map((id) => [id, null]));
    if (passes) {
      m.passes = new Map();
      m.passesOf = new Map();
      for (const p of passes) addPass(m, p);
    }
    if (outbox) {
      m.outbox = new Map();
      m.queued = new Map();
      for (const r of outbox) setQueued(m, r.seq!, r.attendeeId);
    }
    if (meta) m.meta = new Map(meta.map((r) => [r.key, r.value]));
    if (tickets) m.tickets = new Map(tickets.map((r) => [r.id, r]));
  });
}

/** What a scan reads, from memory; `null` while any of it is not loaded (the scan then reads IndexedDB). */
export interface ScanMemory {
  /**
   * The cached attendee as `getAttendee` reads it (the `attendees` row, else the first download's); `'read'` when
   * the `attendees` table holds a row not kept in memory (read it, then `keepAttendee`).
   */
  attendee(id: number): AttendeeRow | undefined | 'read';
  /** The first download's row of the attendee, if any (what `getAttendee` falls back on). */
  snapshotRow(id: number): AttendeeRow | undefined;
  /** Every pass of the attendee this kiosk knows of, on any list. */
  passes(attendeeId: number): ListPassRow[];
  /** Whether this device still has scans of the attendee that the server has not heard of. */
  hasPending(attendeeId: number): boolean;
  /** Whether the scan queued as `seq` is the only one in the outbox (check-ins and check-outs waiting for upload). */
  onlyQueued(seq: number): boolean;
  /** How many scans are queued (check-ins and check-outs waiting for upload). */
  queuedCount(): number;
  /** A `meta` row's value. */
  meta(key: string): unknown;
  tickets(): TicketRow[];
  /** The generation of `attendees`, to pass to `keepAttendee` with a row read from IndexedDB. */
  readonly attendeesGeneration: number;
}

/** The loaded copies, or `null` (not loaded yet, or a write since made a table be read again). */
export function scanMemory(db: KioskDb): ScanMemory | null {
  const m = memoryOf(db);
  const { attendees, snapshot, passes, outbox, meta, tickets } = m;
  // Not loaded, or a write since made a table be read again: the scan reads IndexedDB; loadScanMemory loads the copies
  // (at warm-up, and after each sync run: ui/app.ts). Loaded from here, on a task of its own, a load left one of
  // Dexie's promises rejected with nobody to hear it (an unhandled DatabaseClosedError in checkin-service.test.ts).
  if (!attendees || !snapshot || !passes || !outbox || !meta || !tickets) return null;
  const snapshotRow = (id: number) => {
    const p = snapshot.get(id);
    return p ? unpackRow(p) : undefined;
  };
  return {
    attendee(id) {
      if (!attendees.has(id)) return snapshotRow(id);
      const row = attendees.get(id);
      return row ? copyRow(row) : 'read';
    },
    snapshotRow,
    passes: (attendeeId) => [...(m.passesOf.get(attendeeId)?.values() ?? [])].map((p) => ({ ...p })),
    hasPending: (attendeeId) => (m.queued.get(attendeeId) ?? 0) > 0,
    onlyQueued: (seq) => outbox.size === 1 && outbox.has(seq),
    queuedCount: () => outbox.size,
    meta: (key) => meta.get(key),
    tickets: () => [...tickets.values()].sort((a, b) => a.id - b.id),
    attendeesGeneration: m.generation.attendees,
  };
}

/** Keeps a row of `attendees` read from IndexedDB, unless the table was written since `generation` was read. */
export function keepAttendee(db: KioskDb, row: AttendeeRow, generation: number): void {
  const m = memoryOf(db);
  if (m.attendees && m.generation.attendees === generation && m.attendees.has(row.id)) m.attendees.set(row.id, copyRow(row));
}

/** A row as IndexedDB stores it (plain data): the copy kept and the copy handed out are nobody else's. */
function copyRow(row: AttendeeRow): AttendeeRow {
  return { ...row, words: [...row.words] };
}
