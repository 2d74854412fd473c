import { Dexie, type EntityTable } from 'dexie';
import type { Lang } from '../../shared/lang.ts';
import { scanMemoryMiddleware } from './scan-memory.ts';
import { packRow } from './snapshot.ts';

/** A cached attendee. Booleans are stored as 0/1 because IndexedDB cannot index booleans. */
export interface AttendeeRow {
  id: number;
  eventId: number;
  ticketId: number;
  /** `publish`, or `trash` when deleted on the server (kept so a scan says "revoked", not "unknown"). */
  status: string;
  orderStatus: string | null;
  /** `hashSecurityCode(id, code)`; the code itself is never stored. */
  codeHash: string | null;
  checkedIn: 0 | 1;
  /** The standing check-in's date as the server or this device wrote it. */
  checkinDate: string | null;
  /**
   * The same moment in ms (0 when checked in at a time that could not be read), `null` when not checked in.
   * Indexed sparsely: IndexedDB leaves null out of an index, so only checked-in rows cost an entry.
   */
  checkinAt: number | null;
  checkinDevice: string | null;
  name: string;
  email: string;
  ticketTitle: string | null;
  /** Lower-case words of name and email, for prefix search. */
  words: string[];
  /** 1 for trashed attendees, absent otherwise: a sparse index for the "total" count. */
  trashed?: 1;
}

/** A scan waiting for upload: an admitted check-in, or a check-out. */
export interface OutboxRow {
  seq?: number;
  nonce: string;
  attendeeId: number;
  checkIn: boolean;
  /** Scan time, ms since epoch, and the ISO string with offset that goes on the wire. */
  scanAt: number;
  scanIso: string;
  deviceId: string;
  attempts: number;
}

/**
 * Two doors admitted the same attendee (one of them offline): our admission reached the server after the
 * other one's. Which scan came first is decided by scan time, not by arrival.
 */
export interface ConflictRow {
  id?: number;
  nonce: string;
  attendeeId: number;
  name: string;
  /** Our scan: ISO with offset, and ms. */
  ourScanIso: string;
  ourScanAt?: number;
  ourDevice: string;
  /** The standing check-in's scan time as the server sent it (site time, second precision), and in ms. */
  theirDate: string | null;
  theirScanAt?: number | null;
  theirDevice: string | null;
  /** The other device's name: the label of its door key ("Door 2"), when the server sends it. */
  theirDeviceLabel?: string | null;
  /** Whose scan came first by scan time; `null` when the other time is unknown. */
  first?: 'ours' | 'theirs' | null;
  /** |our scan - their scan|, ms (`null` when unknown). */
  gapMs?: number | null;
  recordedAt: number;
}

/** An uploaded scan the server refused; kept so staff can see it, never dropped. */
export interface RejectedRow {
  id?: number;
  nonce: string;
  attendeeId: number;
  name: string;
  checkIn: boolean;
  scanIso: string;
  code: string;
  message: string;
  recordedAt: number;
}

/**
 * A scan this device refused on its own (not valid, already checked in, not in the list), waiting to go to
 * the server's check-in log (CONTRACT section 7: every scan is recorded). Changes nothing on the server but
 * the log, so it never counts as a check-in waiting to upload.
 */
export interface RefusalRow {
  seq?: number;
  nonce: string;
  /** The attendee the code names, when it names one. */
  attendeeId: number | null;
  result: 'rejected' | 'conflict';
  reason: string;
  scanIso: string;
  deviceId: string;
  attempts: number;
}

/** Every scan this device decided, for the door log and counts. */
export interface ScanRow {
  id?: number;
  nonce: string;
  at: number;
  attendeeId: number | null;
  verdict: string;
  reason: string | null;
  /** `online` when the server decided, `offline` when this device did. */
  mode: 'online' | 'offline';
}

/**
 * A page of the first full download, stored as one record: 100,000 attendees as ~500 records instead of
 * 100,000 is what lets the first download finish in seconds. `data` is the JSON of the rows packed as tuples
 * (snapshot.ts PackedRow), sorted by id: one string is far cheaper for IndexedDB to clone and store than
 * 200 objects. Anything newer about an attendee (deltas, scans, server answers) lives in `attendees`, which
 * takes precedence.
 */
export interface SnapshotChunk {
  first: number;
  last: number;
  data: string;
}

export interface EventRow {
  id: number;
  title: string;
  startDate: string | null;
  endDate: string | null;
}

export interface TicketRow {
  id: number;
  /** In the language of the pairing URL (as attendees carry it). */
  title: string;
  /** The title in each kiosk language (`translation_language`), for the door's screens. */
  titles?: Partial<Record<Lang, string>>;
}

/**
 * One pass of an attendee through this kiosk's check-in list (CONTRACT section 8): this kiosk's own (kept from
 * the scan on) and every list's pass the server's log holds (refreshed at each sync), one row per scan nonce.
 */
export interface ListPassRow {
  nonce: string;
  listId: number;
  attendeeId: number;
  kind: 'entry' | 'exit';
  /** Scan time, ms. */
  at: number;
  /** `local`: made here, maybe not uploaded yet; `server`: read from the server's log. */
  source: 'local' | 'server';
}

export interface MetaRow {
  key: string;
  value: unknown;
}

/** The kiosk's IndexedDB database. */
export type KioskDb = Dexie & {
  attendees: EntityTable<AttendeeRow, 'id'>;
  outbox: EntityTable<OutboxRow, 'seq'>;
  conflicts: EntityTable<ConflictRow, 'id'>;
  rejected: EntityTable<RejectedRow, 'id'>;
  scans: EntityTable<ScanRow, 'id'>;
  refusals: EntityTable<RefusalRow, 'seq'>;
  listPasses: EntityTable<ListPassRow, 'nonce'>;
  snapshot: EntityTable<SnapshotChunk, 'first'>;
  event: EntityTable<EventRow, 'id'>;
  tickets: EntityTable<TicketRow, 'id'>;
  meta: EntityTable<MetaRow, 'key'>;
};

/** Opens (creating or upgrading) the kiosk database. Tests pass distinct names to simulate devices. */
export function openKioskDb(name = 'doorstep-kiosk'): KioskDb {
  const db = new Dexie(name) as KioskDb;
  const tables = {
    outbox: '++seq, &nonce, attendeeId',
    conflicts: '++id, &nonce, attendeeId',
    rejected: '++id, &nonce, attendeeId',
    scans: '++id, at',
    event: 'id',
    tickets: 'id',
    meta: 'key',
  };
  db.version(1).stores({ attendees: 'id, status, checkedIn, checkinAt, checkinDevice, *words', ...tables });
  // Version 2: only sparse indexes on attendees (every dense index entry costs time when 100,000 are cached).
  db.version(2)
    .stores({ attendees: 'id, checkinAt, checkinDevice, trashed, *words', ...tables })
    .upgrade((tx) =>
      tx
        .table<AttendeeRow, number>('attendees')
        .toCollection()
        .modify((row) => {
          if (row.status === 'trash') row.trashed = 1;
          if (row.checkedIn === 1 && row.checkinAt === null) row.checkinAt = 0;
        }),
    );
  // Version 3: the first download goes to `snapshot` chunks; `attendees` holds what changed since.
  db.version(3).stores({ attendees: 'id, checkinAt, checkinDevice, trashed, *words', snapshot: 'first', ...tables });
  // Version 4: refused scans wait in `refusals` for the server's check-in log.
  db.version(4).stores({ attendees: 'id, checkinAt, checkinDevice, trashed, *words', snapshot: 'first', refusals: '++seq, &nonce', ...tables });
  // Version 5: passes through the kiosk's check-in list, for its offline decisions.
  db.version(5).stores({
    attendees: 'id, checkinAt, checkinDevice, trashed, *words',
    snapshot: 'first',
    refusals: '++seq, &nonce',
    listPasses: 'nonce, attendeeId',
    ...tables,
  });
  // Version 6: snapshot chunks keep their rows packed in one JSON string (`data`) instead of `rows` objects.
  db.version(6)
    .stores({
      attendees: 'id, checkinAt, checkinDevice, trashed, *words',
      snapshot: 'first',
      refusals: '++seq, &nonce',
      listPasses: 'nonce, attendeeId',
      ...tables,
    })
    .upgrade((tx) =>
      tx
        .table('snapshot')
        .toCollection()
        .modify((chunk: SnapshotChunk & { rows?: AttendeeRow[] }) => {
          if (!chunk.rows) return;
          chunk.data = JSON.stringify(chunk.rows.map(packRow));
          delete chunk.rows;
        }),
    );
  // Every write to what a scan decision reads is applied to its in-memory copy too (scan-memory.ts).
  db.use(scanMemoryMiddleware(db));
  return db;
}
