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

/** Stores one page of the first download (rows sorted by id here). */
export async function putSnapshotChunk(db: KioskDb, rows: AttendeeRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) => a.id - b.id);
  const chunk: SnapshotChunk = { first: sorted[0].id, last: sorted[sorted.length - 1].id, rows: sorted };
  await db.snapshot.put(chunk);
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
