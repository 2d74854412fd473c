import type { DoorAttendee } from '../../shared/checkin/wire.ts';
import type { ScanSubject } from '../../shared/checkin/decide.ts';
import { hashSecurityCode } from '../../shared/checkin/security-code.ts';
import type { AttendeeRow, KioskDb, OutboxRow } from './db.ts';

/**
 * Parses a check-in date as ms. ISO strings carry their offset; the original's `Y-m-d H:i:s` has none and is
 * read as the device's local time, which at a venue is the site's time.
 */
export function parseCheckinDate(date: string | null | undefined): number | null {
  if (!date) return null;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(date) ? date.replace(' ', 'T') : date);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Search keys: each word of the name, and the whole email (a prefix of which is its local part). Domain
 * parts are left out: they match half the list, and each index entry costs time when 100,000 are cached.
 */
function wordsOf(name: string, email: string): string[] {
  const words = new Set<string>();
  for (const w of name.toLowerCase().split(/[\s,]+/)) if (w) words.add(w);
  const mail = email.toLowerCase().trim();
  if (mail) words.add(mail);
  return [...words];
}

/** Maps a downloaded attendee to its cache row; the security code becomes a hash here and goes no further. */
export function toAttendeeRow(a: DoorAttendee): AttendeeRow {
  const details = a.checkin_details || null;
  const name = a.title ?? '';
  const email = a.email ?? '';
  const row: AttendeeRow = {
    id: a.id,
    eventId: a.post_id,
    ticketId: a.ticket_id,
    status: a.status,
    orderStatus: a.order_status ?? null,
    codeHash: a.security_code ? hashSecurityCode(a.id, a.security_code) : null,
    checkedIn: a.checked_in ? 1 : 0,
    checkinDate: a.checked_in && details ? details.date : null,
    checkinAt: a.checked_in ? (parseCheckinDate(details ? details.date : null) ?? 0) : null,
    checkinDevice: a.checked_in && details ? (details.device_id ?? null) : null,
    name,
    email,
    ticketTitle: a.ticket?.title ?? null,
    words: wordsOf(name, email),
  };
  if (a.status === 'trash') row.trashed = 1;
  return row;
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

/**
 * Stores downloaded attendees in one transaction, together with `after` (the download's progress), so a
 * crash leaves either both or neither. Attendees with scans still in the outbox keep the state of the
 * newest such scan: the server has not heard of it yet.
 */
export async function applyAttendees(
  db: KioskDb,
  attendees: readonly DoorAttendee[],
  after?: () => Promise<unknown>,
): Promise<void> {
  const rows = attendees.map(toAttendeeRow);
  await db.transaction('rw', db.attendees, db.outbox, db.meta, async () => {
    const ids = rows.map((r) => r.id);
    const pending = ids.length ? await db.outbox.where('attendeeId').anyOf(ids).sortBy('seq') : [];
    const latest = new Map<number, OutboxRow>();
    for (const p of pending) latest.set(p.attendeeId, p);
    await db.attendees.bulkPut(latest.size ? rows.map((r) => (latest.has(r.id) ? overlayPending(r, latest.get(r.id)!) : r)) : rows);
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

export function getAttendee(db: KioskDb, id: number): Promise<AttendeeRow | undefined> {
  return db.attendees.get(id);
}

/**
 * Staff search: a number finds the attendee (ticket number) with that ID; text matches the start of any
 * word of the name or email, case-insensitively.
 */
export async function searchAttendees(db: KioskDb, query: string, limit = 20): Promise<AttendeeRow[]> {
  const q = query.trim().toLowerCase().replace(/^#/, '');
  if (q === '') return [];
  if (/^\d+$/.test(q)) {
    const row = await db.attendees.get(Number(q));
    return row ? [row] : [];
  }
  const first = q.split(/\s+/)[0];
  const rest = q.split(/\s+/).slice(1);
  const hits = await db.attendees
    .where('words')
    .startsWith(first)
    .distinct()
    .filter((r) => rest.every((w) => r.words.some((x) => x.startsWith(w))))
    .limit(limit)
    .toArray();
  return hits.sort((a, b) => a.name.localeCompare(b.name));
}

export interface DoorCounts {
  checkedIn: number;
  total: number;
  thisDevice: number;
  lastHour: number;
}

/** Door figures from the cache (which includes this device's not-yet-uploaded scans). */
export async function countAttendees(db: KioskDb, deviceId: string, now: number): Promise<DoorCounts> {
  return db.transaction('r', db.attendees, async () => {
    const [checkedIn, all, trashed, thisDevice, lastHour] = await Promise.all([
      db.attendees.where('checkinAt').aboveOrEqual(0).filter((r) => r.status !== 'trash').count(),
      db.attendees.count(),
      db.attendees.where('trashed').equals(1).count(),
      db.attendees.where('checkinDevice').equals(deviceId).filter((r) => r.checkedIn === 1 && r.status !== 'trash').count(),
      db.attendees.where('checkinAt').aboveOrEqual(now - 3_600_000).filter((r) => r.status !== 'trash').count(),
    ]);
    return { checkedIn, total: all - trashed, thisDevice, lastHour };
  });
}
