import type { DoorAttendee } from '../../shared/checkin/wire.ts';
import { getAttendee, keepCodeHash, overlayPending, toAttendeeRow } from './attendees.ts';
import { forgetEventSigning } from './signing-keys.ts';
import { snapshotChanged } from './snapshot.ts';
import type { AttendeeRow, KioskDb, ListPassRow, OutboxRow, RefusalRow, ScanRow } from './db.ts';

/** A scan as the check-in flow hands it over: an outbox row before it is queued. */
export type LocalScan = Omit<OutboxRow, 'seq' | 'attempts'>;

/**
 * Records a scan this device decided on its own (an admission, or a check-out): the outbox row, the local
 * attendee mark and the log line commit together or not at all, so a crash can neither lose the scan nor
 * let this device admit the same person twice. Answers the log line's ID and the queued outbox row (`undefined`:
 * the nonce was queued already).
 */
export async function recordLocalScan(
  db: KioskDb,
  scan: LocalScan,
  verdict: string,
  unknown?: AttendeeRow,
  /** The pass through the kiosk's check-in list this scan makes (checkin/gate.ts), kept with it in one transaction. */
  pass?: Omit<ListPassRow, 'source'>,
  /**
   * The attendee as the first download has it (`row` undefined: not in it), when the caller knows (store/scan-memory.ts):
   * the transaction then reads only the `attendees` row, and does not lock the snapshot.
   */
  first?: { row: AttendeeRow | undefined },
): Promise<{ logId: number; queued: OutboxRow } | undefined> {
  const tables = first ? [db.outbox, db.attendees, db.scans, db.listPasses] : [db.outbox, db.attendees, db.snapshot, db.scans, db.listPasses];
  return db.transaction('rw', tables, async () => {
    // The reads go out together, then the writes together (in this order): the verdict waits on the database
    // twice, not once per request.
    const [queued, attendee] = await Promise.all([
      db.outbox.where('nonce').equals(scan.nonce).count(),
      first ? db.attendees.get(scan.attendeeId).then((newer) => newer ?? first.row) : getAttendee(db, scan.attendeeId),
    ]);
    // The same nonce never queues twice.
    if (queued) return undefined;
    const row: OutboxRow = { ...scan, attempts: 0 };
    // An attendee the cache did not hold (a signed ticket admitted offline) is cached now, marked, so a second
    // scan of the same ticket reads as a re-scan here, never as a second admission.
    const known = attendee ?? unknown;
    const [seq, , , logId] = await Promise.all([
      db.outbox.add(row),
      known ? db.attendees.put(overlayPending(known, row)) : undefined,
      pass ? db.listPasses.put({ ...pass, source: 'local' }) : undefined,
      db.scans.add({
        nonce: scan.nonce,
        at: scan.scanAt,
        attendeeId: scan.attendeeId,
        verdict,
        reason: null,
        mode: 'offline',
      }),
    ]);
    return { logId: logId as number, queued: { ...row, seq: seq as number } };
  });
}

/** The server answered a queued scan while the door waited: its log line takes the final verdict. */
export async function updateScanLog(db: KioskDb, id: number, patch: Pick<ScanRow, 'verdict' | 'reason' | 'mode'>): Promise<void> {
  await db.scans.update(id, patch);
}

/**
 * Logs a scan that queues no check-in (a refusal, a re-scan, a code not in the list) and, when `refusal` is
 * given, queues it for the server's check-in log in the same transaction.
 */
export async function logScan(db: KioskDb, scan: Omit<ScanRow, 'id'>, refusal?: Omit<RefusalRow, 'seq' | 'attempts'>): Promise<void> {
  await db.transaction('rw', [db.scans, db.refusals], async () => {
    await db.scans.add(scan);
    if (refusal && !(await db.refusals.where('nonce').equals(refusal.nonce).count())) await db.refusals.add({ ...refusal, attempts: 0 });
  });
}

/**
 * Stores the server's view of an attendee after an online answer or an upload. If this device still has
 * other scans of that attendee queued, the newest of them stays on top.
 */
export async function storeServerAttendee(db: KioskDb, attendee: DoorAttendee, exceptNonce?: string): Promise<void> {
  await db.transaction('rw', [db.attendees, db.snapshot, db.outbox], async () => {
    let row = keepCodeHash(toAttendeeRow(attendee), await getAttendee(db, attendee.id));
    const pending = (await db.outbox.where('attendeeId').equals(attendee.id).sortBy('seq')).filter((p) => p.nonce !== exceptNonce);
    if (pending.length) row = overlayPending(row, pending[pending.length - 1]);
    await db.attendees.put(row);
  });
}

export function pendingCount(db: KioskDb): Promise<number> {
  return db.outbox.count();
}

/** The oldest queued scans, in scan order. */
export function nextOutboxBatch(db: KioskDb, size: number): Promise<OutboxRow[]> {
  return db.outbox.orderBy('seq').limit(size).toArray();
}

/** Whether this device still has scans of the attendee that the server has not heard of. */
export async function hasPending(db: KioskDb, attendeeId: number): Promise<boolean> {
  return (await db.outbox.where('attendeeId').equals(attendeeId).count()) > 0;
}

/**
 * Unpairing or pairing to another event: queued scans cannot go anywhere any more, so they are moved to the
 * rejected list (visible, not lost) and the event's cache is cleared.
 */
export async function clearEventData(db: KioskDb, now: number): Promise<number> {
  const cleared = await db.transaction(
    'rw',
    [db.outbox, db.rejected, db.refusals, db.attendees, db.snapshot, db.event, db.tickets, db.meta],
    async () => {
      const rows = await db.outbox.toArray();
      for (const row of rows) {
        const attendee = await getAttendee(db, row.attendeeId);
        if (!(await db.rejected.where('nonce').equals(row.nonce).count())) {
          await db.rejected.add({
            nonce: row.nonce,
            attendeeId: row.attendeeId,
            name: attendee?.name ?? '',
            checkIn: row.checkIn,
            scanIso: row.scanIso,
            code: 'unpaired',
            message: 'Not uploaded: the device was paired elsewhere.',
            recordedAt: now,
          });
        }
      }
      // Refused scans not yet in the old server's log cannot go to another one.
      await Promise.all([
        db.outbox.clear(),
        db.refusals.clear(),
        db.attendees.clear(),
        db.snapshot.clear(),
        db.event.clear(),
        db.tickets.clear(),
        db.meta.delete('sync'),
        forgetEventSigning(db),
        // The check-in list belongs to the old key (renderer/checkin/gate.ts); its passes go at the next sync.
        db.meta.delete('gate'),
      ]);
      return rows.length;
    },
  );
  snapshotChanged(db);
  return cleared;
}
