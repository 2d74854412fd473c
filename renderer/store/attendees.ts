import type { DoorAttendee } from '../../shared/checkin/wire.ts';
import { checkinDateMs, type ScanSubject } from '../../shared/checkin/decide.ts';
import { hashSecurityCode } from '../../shared/checkin/security-code.ts';
import type { AttendeeRow, KioskDb, OutboxRow } from './db.ts';
import { type PackedRow, putSnapshotChunk, snapshotGet, snapshotPacked, snapshotRows, unpackRow } from './snapshot.ts';

/**
 * Parses a check-in date as ms. ISO strings carry their offset; the original's `Y-m-d H:i:s` has none and is
 * read as the device's local time, which at a venue is the site's time.
 */
export const parseCheckinDate = checkinDateMs;

/**
 * A downloaded attendee as the snapshot stores it (snapshot.ts PackedRow); the security code becomes a hash here
 * and goes no further.
 */
export function packAttendee(a: DoorAttendee): PackedRow {
  const details = a.checkin_details || null;
  return [
    a.id,
    a.post_id,
    a.ticket_id,
    a.status,
    a.order_status ?? null,
    a.security_code ? hashSecurityCode(a.id, a.security_code) : (a.security_code_hash ?? null),
    a.checked_in ? 1 : 0,
    a.checked_in && details ? details.date : null,
    a.checked_in ? (parseCheckinDate(details ? details.date : null) ?? 0) : null,
    a.checked_in && details ? (details.device_id ?? null) : null,
    a.title ?? '',
    a.email ?? '',
    a.ticket?.title ?? null,
  ];
}

/** Maps a downloaded attendee to its cache row; the security code becomes a hash here and goes no further. */
export function toAttendeeRow(a: DoorAttendee): AttendeeRow {
  return unpackRow(packAttendee(a));
}

/** The server's row; a single-attendee or check-in answer may omit the security code, so the hash we have stays. */
export function keepCodeHash(fresh: AttendeeRow, before: AttendeeRow | undefined): AttendeeRow {
  return fresh.codeHash === null && before?.codeHash ? { ...fresh, codeHash: before.codeHash } : fresh;
}

/** Applies this device's own not-yet-uploaded scan on top of a row, so the server's older view cannot undo it. */
export function overlayPending(row: AttendeeRow, pending: OutboxRow): AttendeeRow {
  return pending.checkIn
    ? { ...row, checkedIn: 1, checkinDate: pending.scanIso, checkinAt: pending.scanAt, checkinDevice: pending.deviceId }
    : notCheckedIn(row);
}

/** The row with no standing check-in. */
export function notCheckedIn(row: AttendeeRow): AttendeeRow {
  return { ...row, checkedIn: 0, checkinDate: null, checkinAt: null, checkinDevice: null };
}

/** The newest queued scan of each of these attendees that has one (read inside the caller's transaction). */
async function latestPending(db: KioskDb, ids: readonly number[]): Promise<Map<number, OutboxRow>> {
  const latest = new Map<number, OutboxRow>();
  if (ids.length === 0) return latest;
  const pending = await db.outbox.where('attendeeId').anyOf(ids).sortBy('seq');
  for (const p of pending) latest.set(p.attendeeId, p);
  return latest;
}

/**
 * Stores downloaded attendees (a delta) in one transaction. Attendees with scans still in the outbox keep
 * the state of the newest such scan: the server has not heard of it yet.
 */
export async function applyAttendees(db: KioskDb, attendees: readonly DoorAttendee[]): Promise<void> {
  const rows = attendees.map(toAttendeeRow);
  await db.transaction('rw', db.attendees, db.outbox, async () => {
    const latest = await latestPending(
      db,
      rows.map((r) => r.id),
    );
    await db.attendees.bulkPut(latest.size ? rows.map((r) => (latest.has(r.id) ? overlayPending(r, latest.get(r.id)!) : r)) : rows);
  });
}

/**
 * Stores one page of the first full download as a snapshot chunk, with `after` in the same transaction.
 * Attendees this device has already scanned (a resumed download) also get a row in `attendees` carrying
 * that scan, since `attendees` takes precedence over the snapshot.
 */
export async function applySnapshotPage(db: KioskDb, attendees: readonly DoorAttendee[], after?: () => Promise<unknown>): Promise<void> {
  const packed = attendees.map(packAttendee);
  await db.transaction('rw', [db.snapshot, db.attendees, db.outbox, db.meta], async () => {
    const latest = await latestPending(
      db,
      packed.map((p) => p[0]),
    );
    await putSnapshotChunk(db, packed);
    if (latest.size) await db.attendees.bulkPut(packed.filter((p) => latest.has(p[0])).map((p) => overlayPending(unpackRow(p), latest.get(p[0])!)));
    await after?.();
  });
}

/** The rules' view of a cached attendee. */
export function toSubject(row: AttendeeRow): ScanSubject {
  return {
    id: row.id,
    eventId: row.eventId,
    status: row.status,
    orderStatus: row.orderStatus,
    securityCodeHash: row.codeHash,
    checkedIn: row.checkedIn === 1,
    checkin: row.checkedIn === 1 ? { date: row.checkinDate ?? '', deviceId: row.checkinDevice } : null,
    name: row.name,
    ticketTitle: row.ticketTitle,
  };
}

/**
 * The cached attendee: the newest row in `attendees`, else the first download's. Callers inside a
 * transaction must include both `attendees` and `snapshot` in its scope.
 */
export async function getAttendee(db: KioskDb, id: number): Promise<AttendeeRow | undefined> {
  // Both reads go out at once: a scan waits on the database once, not twice (most scanned attendees are only in
  // the snapshot, so its chunk is read either way).
  const [newer, first] = await Promise.all([db.attendees.get(id), snapshotGet(db, id)]);
  return newer ?? first;
}

/**
 * Staff search: a number finds the attendee (ticket number) with that ID; text matches the start of any
 * word of the name or email, case-insensitively.
 */
export async function searchAttendees(db: KioskDb, query: string, limit = 20): Promise<AttendeeRow[]> {
  const q = query.trim().toLowerCase().replace(/^#/, '');
  if (q === '') return [];
  if (/^\d+$/.test(q)) {
    const row = await getAttendee(db, Number(q));
    return row ? [row] : [];
  }
  const [first, ...rest] = q.split(/\s+/);
  const matches = (r: AttendeeRow) => r.words.some((x) => x.startsWith(first)) && rest.every((w) => r.words.some((x) => x.startsWith(w)));
  const snapshotHits: AttendeeRow[] = [];
  for (const r of await snapshotRows(db)) {
    if (matches(r) && snapshotHits.push(r) >= limit * 2) break;
  }
  const byId = new Map<number, AttendeeRow>(snapshotHits.map((r) => [r.id, r]));
  // Newer rows replace the snapshot's (and may no longer match).
  const newer = await db.attendees.bulkGet(snapshotHits.map((r) => r.id));
  newer.forEach((r, i) => {
    if (r) byId.set(snapshotHits[i].id, r);
  });
  const changed = await db.attendees.where('words').startsWith(first).distinct().filter(matches).limit(limit).toArray();
  for (const r of changed) byId.set(r.id, r);
  return [...byId.values()]
    .filter(matches)
    .sort((a, b) => a.name.localeCompare(b.name))
    .slice(0, limit);
}

export interface DoorCounts {
  checkedIn: number;
  total: number;
  thisDevice: number;
  lastHour: number;
}

/** Door figures from the cache (which includes this device's not-yet-uploaded scans). */
export async function countAttendees(db: KioskDb, deviceId: string, now: number): Promise<DoorCounts> {
  const snapshot = await snapshotPacked(db);
  const hourAgo = now - 3_600_000;
  return db.transaction('r', db.attendees, async () => {
    // The rows with a check-in read at once and counted here: a filtered Dexie count walks a cursor, one round trip
    // to IndexedDB per row, three times over, and a scan's write on `attendees` waited behind those walks (the
    // door's counters are refreshed after each verdict, so right as the next guest is scanned).
    const [keys, trashed, checkedRows] = await Promise.all([
      db.attendees.toCollection().primaryKeys(),
      db.attendees.where('trashed').equals(1).count(),
      db.attendees.where('checkinAt').aboveOrEqual(0).toArray(),
    ]);
    const counts = { checkedIn: 0, total: keys.length - trashed, thisDevice: 0, lastHour: 0 };
    for (const r of checkedRows) {
      if (r.status === 'trash') continue;
      counts.checkedIn++;
      // A row checked in has its check-in time (checkinAt), so every one of them is among these rows.
      if (r.checkinDevice === deviceId && r.checkedIn === 1) counts.thisDevice++;
      if ((r.checkinAt ?? -1) >= hourAgo) counts.lastHour++;
    }
    const newer = new Set(keys);
    for (const [id, , , status, , , checked, , checkinAt, checkinDevice] of snapshot) {
      if (newer.has(id) || status === 'trash') continue;
      counts.total++;
      if (checked !== 1) continue;
      counts.checkedIn++;
      if (checkinDevice === deviceId) counts.thisDevice++;
      if ((checkinAt ?? -1) >= hourAgo) counts.lastHour++;
    }
    return counts;
  });
}
