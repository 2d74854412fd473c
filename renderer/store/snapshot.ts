import type { AttendeeRow, KioskDb, SnapshotChunk } from './db.ts';

/**
 * The first full download, kept as chunks (see SnapshotChunk) of packed rows: each chunk's rows are one JSON
 * string of tuples, so storing 100,000 attendees clones ~500 strings rather than 100,000 objects with their word
 * lists. Search words are built when a row is read (a lookup builds one row; search builds them all once).
 * Lookups read one chunk; counts and search read them all once into memory and keep them until the snapshot
 * changes (only this page writes it).
 */

/** An AttendeeRow as the snapshot stores it: its fields in this order, without `words` and `trashed` (derived). */
export type PackedRow = [
  id: number,
  eventId: number,
  ticketId: number,
  status: string,
  orderStatus: string | null,
  codeHash: string | null,
  checkedIn: 0 | 1,
  checkinDate: string | null,
  checkinAt: number | null,
  checkinDevice: string | null,
  name: string,
  email: string,
  ticketTitle: string | null,
];

/**
 * Search keys: each word of the name, and the whole email (a prefix of which is its local part). Domain
 * parts are left out: they match half the list, and each index entry costs time when 100,000 are cached.
 */
export function wordsOf(name: string, email: string): string[] {
  const words = new Set<string>();
  for (const w of name.toLowerCase().split(/[\s,]+/)) if (w) words.add(w);
  const mail = email.toLowerCase().trim();
  if (mail) words.add(mail);
  return [...words];
}

export function packRow(r: AttendeeRow): PackedRow {
  return [
    r.id,
    r.eventId,
    r.ticketId,
    r.status,
    r.orderStatus,
    r.codeHash,
    r.checkedIn,
    r.checkinDate,
    r.checkinAt,
    r.checkinDevice,
    r.name,
    r.email,
    r.ticketTitle,
  ];
}

export function unpackRow(p: PackedRow): AttendeeRow {
  const [id, eventId, ticketId, status, orderStatus, codeHash, checkedIn, checkinDate, checkinAt, checkinDevice, name, email, ticketTitle] = p;
  const row: AttendeeRow = {
    id,
    eventId,
    ticketId,
    status,
    orderStatus,
    codeHash,
    checkedIn,
    checkinDate,
    checkinAt,
    checkinDevice,
    name,
    email,
    ticketTitle,
    words: wordsOf(name, email),
  };
  if (status === 'trash') row.trashed = 1;
  return row;
}

/** A chunk's packed rows (sorted by id). */
export function chunkRows(chunk: SnapshotChunk): PackedRow[] {
  return JSON.parse(chunk.data) as PackedRow[];
}

interface Memory {
  generation: number;
  packed: PackedRow[] | null;
  rows: AttendeeRow[] | null;
}

const memory = new WeakMap<KioskDb, Memory>();

function entry(db: KioskDb): Memory {
  let e = memory.get(db);
  if (!e) memory.set(db, (e = { generation: 0, packed: null, rows: null }));
  return e;
}

/** Forgets the in-memory copy; call after every write to `snapshot`. */
export function snapshotChanged(db: KioskDb): void {
  const e = entry(db);
  e.generation++;
  e.packed = null;
  e.rows = null;
}

/** Rows per chunk: few records to write, yet small enough that a lookup reads and parses little. */
const CHUNK_ROWS = 200;

/** Stores packed rows of the first download as chunks (sorted by id here). */
export async function putSnapshotChunk(db: KioskDb, rows: PackedRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) => a[0] - b[0]);
  const chunks: SnapshotChunk[] = [];
  for (let i = 0; i < sorted.length; i += CHUNK_ROWS) {
    const part = sorted.slice(i, i + CHUNK_ROWS);
    chunks.push({ first: part[0][0], last: part[part.length - 1][0], data: JSON.stringify(part) });
  }
  await db.snapshot.bulkPut(chunks);
  snapshotChanged(db);
}

function find(chunk: SnapshotChunk | undefined, id: number): AttendeeRow | undefined {
  if (!chunk || id > chunk.last || id < chunk.first) return undefined;
  const rows = chunkRows(chunk);
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = rows[mid];
    if (r[0] === id) return unpackRow(r);
    if (r[0] < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** The attendee as of the first download, if it was in it. */
export async function snapshotGet(db: KioskDb, id: number): Promise<AttendeeRow | undefined> {
  return find(await db.snapshot.where('first').belowOrEqual(id).last(), id);
}

/** Several attendees as of the first download; neighbouring IDs share one chunk read. */
export async function snapshotBulkGet(db: KioskDb, ids: readonly number[]): Promise<Map<number, AttendeeRow>> {
  const out = new Map<number, AttendeeRow>();
  let chunk: SnapshotChunk | undefined;
  for (const id of [...ids].sort((a, b) => a - b)) {
    if (!chunk || id < chunk.first || id > chunk.last) chunk = await db.snapshot.where('first').belowOrEqual(id).last();
    const row = find(chunk, id);
    if (row) out.set(id, row);
  }
  return out;
}

/** Every packed row of the first download, in id order (read once, then from memory): for counts. */
export async function snapshotPacked(db: KioskDb): Promise<PackedRow[]> {
  const e = entry(db);
  if (e.packed) return e.packed;
  const generation = e.generation;
  const chunks = await db.snapshot.orderBy('first').toArray();
  const packed = chunks.flatMap(chunkRows);
  // A write while we were reading makes this copy stale: use it once, do not keep it.
  if (e.generation === generation) e.packed = packed;
  return packed;
}

/** Every attendee of the first download, in id order, with search words (built once, then from memory). */
export async function snapshotRows(db: KioskDb): Promise<AttendeeRow[]> {
  const e = entry(db);
  if (e.rows) return e.rows;
  const generation = e.generation;
  const rows = (await snapshotPacked(db)).map(unpackRow);
  if (e.generation === generation) e.rows = rows;
  return rows;
}
