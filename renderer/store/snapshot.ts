import type { AttendeeRow, KioskDb, SnapshotChunk } from './db.ts';

/**
 * The first full download, kept as chunks (see SnapshotChunk). Lookups read one chunk; search and counts
 * read them all once into memory and keep them until the snapshot changes (only this page writes it).
 */

const memory = new WeakMap<KioskDb, { generation: number; rows: AttendeeRow[] | null }>();

function entry(db: KioskDb) {
  let e = memory.get(db);
  if (!e) memory.set(db, (e = { generation: 0, rows: null }));
  return e;
}

/** Forgets the in-memory copy; call after every write to `snapshot`. */
export function snapshotChanged(db: KioskDb): void {
  const e = entry(db);
  e.generation++;
  e.rows = null;
}

/** Rows per chunk: few records to write, yet small enough that a lookup reads little. */
const CHUNK_ROWS = 200;

/** Stores downloaded rows of the first download as chunks (sorted by id here). */
export async function putSnapshotChunk(db: KioskDb, rows: AttendeeRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) => a.id - b.id);
  const chunks: SnapshotChunk[] = [];
  for (let i = 0; i < sorted.length; i += CHUNK_ROWS) {
    const part = sorted.slice(i, i + CHUNK_ROWS);
    chunks.push({ first: part[0].id, last: part[part.length - 1].id, rows: part });
  }
  await db.snapshot.bulkPut(chunks);
  snapshotChanged(db);
}

function find(chunk: SnapshotChunk | undefined, id: number): AttendeeRow | undefined {
  if (!chunk || id > chunk.last) return undefined;
  let lo = 0;
  let hi = chunk.rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = chunk.rows[mid];
    if (r.id === id) return r;
    if (r.id < id) lo = mid + 1;
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

/** Every attendee of the first download, in id order (read once, then from memory). */
export async function snapshotRows(db: KioskDb): Promise<AttendeeRow[]> {
  const e = entry(db);
  if (e.rows) return e.rows;
  const generation = e.generation;
  const chunks = await db.snapshot.orderBy('first').toArray();
  const rows = chunks.flatMap((c) => c.rows);
  // A write while we were reading makes this copy stale: use it once, do not keep it.
  if (e.generation === generation) e.rows = rows;
  return rows;
}
