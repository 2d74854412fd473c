import type { CheckinFate, DoorAttendee } from '../../shared/checkin/wire.ts';
import { keepCodeHash, notCheckedIn, overlayPending, parseCheckinDate, toAttendeeRow } from './attendees.ts';
import type { AttendeeRow, ConflictRow, KioskDb, OutboxRow, RejectedRow } from './db.ts';
import { snapshotBulkGet } from './snapshot.ts';

export interface SettleResult {
  conflicts: ConflictRow[];
  rejected: RejectedRow[];
  /** Attempts of each row left queued for a retry, by `seq`. */
  attempts: Map<number, number>;
}

/** The conflict as the door shows it: both scans, the other device's name, and who came first by scan time. */
export function conflictRow(
  row: OutboxRow,
  name: string,
  standing: Extract<CheckinFate, { kind: 'conflict' }>['standing'],
  now: number,
): ConflictRow {
  const theirScanAt = parseCheckinDate(standing?.date ?? null);
  return {
    nonce: row.nonce,
    attendeeId: row.attendeeId,
    name,
    ourScanIso: row.scanIso,
    ourScanAt: row.scanAt,
    ourDevice: row.deviceId,
    theirDate: standing?.date ?? null,
    theirScanAt,
    theirDevice: standing?.device_id ?? null,
    theirDeviceLabel: standing?.device_label ?? null,
    first: theirScanAt === null ? null : theirScanAt <= row.scanAt ? 'theirs' : 'ours',
    gapMs: theirScanAt === null ? null : Math.abs(row.scanAt - theirScanAt),
    recordedAt: now,
  };
}

/**
 * Applies the answers to one uploaded batch in one transaction with a handful of bulk requests (not one
 * request per item: on a busy door PC each IndexedDB round trip waits for the main thread).
 *
 * Accepted rows leave the outbox and the server's attendee replaces the local one; conflicts go to the
 * conflicts list with both times and devices, and the cache takes the standing check-in; refusals go to the
 * rejected list (a refused admission stops counting as inside). Where this device still has later scans of
 * the same attendee queued, the newest of them stays on top. `device` and `retry` fates leave the row queued.
 *
 * `live` nonces were answered while the door still waited for them: the verdict on screen already says
 * "already checked in" or "not valid", nobody was let in on the strength of the local decision, so they go
 * to neither list.
 */
export async function settleBatch(
  db: KioskDb,
  items: ReadonlyArray<{ row: OutboxRow; fate: CheckinFate }>,
  now: number,
  live: ReadonlySet<string> = new Set(),
): Promise<SettleResult> {
  return db.transaction('rw', [db.outbox, db.attendees, db.snapshot, db.conflicts, db.rejected], async () => {
    const ids = [...new Set(items.map((i) => i.row.attendeeId))];
    const nonces = items.map((i) => i.row.nonce);
    const [current, queued, knownConflicts, knownRejected] = await Promise.all([
      db.attendees.bulkGet(ids),
      db.outbox.where('attendeeId').anyOf(ids).sortBy('seq'),
      db.conflicts.where('nonce').anyOf(nonces).toArray(),
      db.rejected.where('nonce').anyOf(nonces).toArray(),
    ]);
    const rows = new Map<number, AttendeeRow>();
    current.forEach((r) => r && rows.set(r.id, r));
    // Attendees never changed since the first download are only in the snapshot.
    const missing = ids.filter((id) => !rows.has(id));
    if (missing.length) for (const [id, r] of await snapshotBulkGet(db, missing)) rows.set(id, r);
    const touched = new Set<number>();
    const done = new Set<number>();
    const seen = new Set([...knownConflicts.map((c) => c.nonce), ...knownRejected.map((r) => r.nonce)]);
    const out: SettleResult = { conflicts: [], rejected: [], attempts: new Map() };

    for (const { row, fate: result } of items) {
      const before = rows.get(row.attendeeId);
      if (result.kind === 'retry') {
        out.attempts.set(row.seq!, row.attempts + 1);
        continue;
      }
      if (result.kind === 'device') continue;
      done.add(row.seq!);
      touched.add(row.attendeeId);
      if (result.kind === 'accepted') {
        rows.set(row.attendeeId, keepCodeHash(toAttendeeRow(result.attendee), before));
      } else if (result.kind === 'conflict') {
        const conflict = conflictRow(row, before?.name ?? '', result.standing, now);
        if (!seen.has(row.nonce) && !live.has(row.nonce)) out.conflicts.push(conflict);
        if (before) {
          rows.set(row.attendeeId, {
            ...before,
            checkedIn: 1,
            checkinDate: conflict.theirDate,
            checkinAt: conflict.theirScanAt ?? 0,
            checkinDevice: conflict.theirDevice,
          });
        }
      } else {
        const rejected: RejectedRow = {
          nonce: row.nonce,
          attendeeId: row.attendeeId,
          name: before?.name ?? '',
          checkIn: row.checkIn,
          scanIso: row.scanIso,
          code: result.code,
          message: result.message,
          recordedAt: now,
        };
        if (!seen.has(row.nonce) && !live.has(row.nonce)) out.rejected.push(rejected);
        if (before && row.checkIn) {
          rows.set(row.attendeeId, notCheckedIn(before));
        }
      }
    }

    const latestLeft = new Map<number, OutboxRow>();
    for (const q of queued) if (!done.has(q.seq!)) latestLeft.set(q.attendeeId, q);
    const puts: AttendeeRow[] = [];
    for (const id of touched) {
      const r = rows.get(id);
      if (r) puts.push(latestLeft.has(id) ? overlayPending(r, latestLeft.get(id)!) : r);
    }
    await Promise.all([
      db.outbox.bulkDelete([...done]),
      db.attendees.bulkPut(puts),
      out.conflicts.length ? db.conflicts.bulkAdd(out.conflicts) : undefined,
      out.rejected.length ? db.rejected.bulkAdd(out.rejected) : undefined,
      ...[...out.attempts].map(([seq, attempts]) => db.outbox.update(seq, { attempts })),
    ]);
    return out;
  });
}

/**
 * A venue hub admitted this kiosk's scan, then found at the site that someone else's check-in stood there first:
 * the attendee's standing check-in (the site's) names the overruled scan (`checkin_details.replaced`). Each one of
 * this device becomes a conflict, once (by its nonce), as a conflict found at the hub is. Returns the new ones.
 */
export async function recordOverruledScans(db: KioskDb, batch: readonly DoorAttendee[], deviceId: string, now: number): Promise<ConflictRow[]> {
  const lost = batch.filter((a) => a.checkin_details && a.checkin_details.replaced?.device_id === deviceId && deviceId !== '');
  if (!lost.length) return [];
  return db.transaction('rw', [db.conflicts], async () => {
    const nonces = lost.map((a) => (a.checkin_details ? a.checkin_details.replaced?.nonce : undefined) ?? '');
    const known = new Set((await db.conflicts.where('nonce').anyOf(nonces).toArray()).map((c) => c.nonce));
    const out: ConflictRow[] = [];
    for (const a of lost) {
      const details = a.checkin_details;
      const ours = details ? details.replaced : undefined;
      if (!details || !ours || known.has(ours.nonce)) continue;
      known.add(ours.nonce);
      const ourAt = parseCheckinDate(ours.date) ?? now;
      const row = { nonce: ours.nonce, attendeeId: a.id, scanIso: new Date(ourAt).toISOString(), scanAt: ourAt, deviceId } as OutboxRow;
      out.push(conflictRow(row, a.title ?? '', details, now));
    }
    if (out.length) await db.conflicts.bulkAdd(out);
    return out;
  });
}
