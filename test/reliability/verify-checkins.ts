import type { Db } from '../../server/db/connection.ts';
import type { SimKiosk } from './kiosk-sim.ts';

interface LogRow {
  id: number;
  attendee_id: number | null;
  result: string;
  nonce: string | null;
  device_id: string | null;
}

export interface CheckinAudit {
  scans: number;
  logged: number;
  accepted: number;
  conflicts: number;
  /** Scans a kiosk holds an acknowledgement for that are missing (or different) in the database. */
  lost: string[];
  /** Scans queued by a kiosk with no row in the log. */
  unlogged: string[];
  /** Attendees whose state disagrees with the log (not exactly one accepted scan, or a stale pointer). */
  inconsistent: string[];
  /** Answers other than 201 and 400 already-checked-in. */
  unexpected: string[];
}

/**
 * Compares what the kiosks were told with what the database holds: every acknowledged scan stored with
 * the outcome it was acknowledged with, every queued scan logged once, and for every scanned attendee
 * exactly one accepted scan which is also the attendee's standing check-in.
 */
export async function auditCheckins(db: Db, kiosks: SimKiosk[], scannedAttendees: Set<number>): Promise<CheckinAudit> {
  const rows = (await db.prepare('SELECT id, attendee_id, result, nonce, device_id FROM checkins ORDER BY id').all()) as LogRow[];
  const byNonce = new Map(rows.filter((r) => r.nonce).map((r) => [r.nonce!, r]));
  const audit: CheckinAudit = { scans: 0, logged: rows.length, accepted: 0, conflicts: 0, lost: [], unlogged: [], inconsistent: [], unexpected: [] };
  for (const k of kiosks) {
    audit.scans += k.scans.size;
    for (const s of k.scans.values()) if (!byNonce.has(s.nonce)) audit.unlogged.push(`${k.deviceId} ${s.nonce} attendee ${s.attendeeId}`);
    for (const a of k.acks) {
      const row = byNonce.get(a.nonce);
      const expected = a.status === 201 ? 'accepted' : a.code === 'tec-et-attendee-already-checked-in' ? 'conflict' : null;
      if (expected === null) {
        audit.unexpected.push(`${k.deviceId} attendee ${a.attendeeId}: ${a.status} ${a.code}`);
        continue;
      }
      if (!row || row.result !== expected || row.attendee_id !== a.attendeeId || row.device_id !== k.deviceId) {
        audit.lost.push(`${k.deviceId} ${a.nonce}: acknowledged ${expected}, stored ${row ? row.result : 'nothing'}`);
      }
    }
  }
  const acceptedBy = new Map<number, number[]>();
  for (const r of rows) {
    if (r.result === 'accepted') {
      audit.accepted++;
      acceptedBy.set(r.attendee_id!, [...(acceptedBy.get(r.attendee_id!) ?? []), r.id]);
    }
    if (r.result === 'conflict') audit.conflicts++;
  }
  const state = (await db.prepare('SELECT post_id, checked_in, checkin_id FROM attendees').all()) as {
    post_id: number;
    checked_in: number;
    checkin_id: number | null;
  }[];
  for (const a of state) {
    const accepted = acceptedBy.get(a.post_id) ?? [];
    if (scannedAttendees.has(a.post_id)) {
      if (accepted.length !== 1) audit.inconsistent.push(`attendee ${a.post_id}: ${accepted.length} accepted scans`);
      else if (a.checked_in !== 1 || a.checkin_id !== accepted[0])
        audit.inconsistent.push(`attendee ${a.post_id}: checked_in=${a.checked_in} checkin_id=${a.checkin_id}, accepted scan ${accepted[0]}`);
    } else if (accepted.length || a.checked_in) {
      audit.inconsistent.push(`attendee ${a.post_id}: never scanned, yet checked_in=${a.checked_in}`);
    }
  }
  return audit;
}

/** Accepted scans per attendee as the API's check-in log reports them. */
export function acceptedPerAttendee(log: Array<Record<string, unknown>>): Map<number, number> {
  const m = new Map<number, number>();
  for (const c of log) if (c.result === 'accepted') m.set(Number(c.attendee_id), (m.get(Number(c.attendee_id)) ?? 0) + 1);
  return m;
}
