import { decideCheckin, type ScanSubject } from '../../../shared/checkin/decide.ts';
import type { CheckinDetails } from '../../../shared/models/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { callerUserId } from '../../kernel/context.ts';
import { invalidParam } from '../../kernel/errors.ts';
import type { AttendeeRow } from '../../db/repos/attendees.ts';
import { effectiveOrderStatus, lockScanState, setCheckedIn } from '../../db/repos/attendees.ts';
import { findCheckinByNonce, insertCheckin, type CheckinInsert, type CheckinResult, type CheckinRow } from '../../db/repos/checkins.ts';
import { checkinDetails } from './standing.ts';
import { decideThroughList } from './lists.ts';

/**
 * One scan against one attendee, whichever route carried it (attendee update, QR, batch): the shared
 * check-in rules decide, the scan is logged, and the attendee's standing check-in moves. Callers run this
 * inside the request's transaction; better-sqlite3 serialises transactions, so of two devices admitting the
 * same attendee exactly one is accepted and the other is logged as a conflict.
 */

export interface ScanRequest {
  /** true: check in; false: check out. */
  checkIn: boolean;
  /** The moment of the scan on the device; the arrival time when absent. */
  scannedAt?: Date;
  deviceId: string | null;
  nonce: string | null;
  /** `site` (attendee route, as Event Tickets records it) or `app` (QR check-in). */
  source: string;
  /** The check-in list a manager named (a list-bound key's list applies without it): domain/checkin/lists.ts. */
  listId?: number;
}

export type ScanOutcome =
  | { kind: 'accepted' | 'checked_out' }
  | { kind: 'conflict'; standing: CheckinDetails | false }
  | { kind: 'rejected'; reason: string; listId?: number | null };

export interface ScanDecision {
  outcome: ScanOutcome;
  /** The log row to write; `null` for a replayed nonce (already logged). */
  log: CheckinInsert | null;
}

function scanSubject(row: AttendeeRow, standing: CheckinDetails | false): ScanSubject {
  return {
    id: row.id,
    eventId: row.event_id,
    status: row.status,
    orderStatus: effectiveOrderStatus(row),
    securityCodeHash: null,
    checkedIn: row.checked_in === 1,
    checkin: standing ? { date: standing.date, deviceId: standing.device_id } : null,
    name: row.full_name,
    ticketTitle: row.ticket_title,
  };
}

export function logRow(
  ctx: Ctx,
  row: Pick<AttendeeRow, 'id' | 'event_id'> | null,
  req: ScanRequest,
  result: CheckinResult,
  reason: string | null,
): CheckinInsert {
  const now = new Date().toISOString();
  return {
    attendee_id: row?.id ?? null,
    event_id: row?.event_id ?? null,
    result,
    reason,
    scanned_at: req.scannedAt ? req.scannedAt.toISOString() : now,
    received_at: now,
    device_id: req.deviceId,
    nonce: req.nonce,
    source: req.source,
    user_id: callerUserId(ctx),
    api_key_id: ctx.caller.kind === 'api_key' ? ctx.caller.keyId : null,
  };
}

/**
 * Decides a scan without writing anything. A nonce seen before answers as it did then and logs nothing.
 *
 * Called inside the scan's transaction. First it takes the attendee's lock, then the nonce's (db/repos/locks.ts:
 * one accepted check-in per attendee, one recorded scan per nonce, however many processes and connections scan
 * at once). On PostgreSQL the attendee is read again under its lock and `row` brought up to date in place, so the
 * caller writes and answers from what was decided on.
 */
export async function decideScan(ctx: Ctx, row: AttendeeRow, req: ScanRequest): Promise<ScanDecision> {
  if (ctx.db.engine !== 'postgres') {
    // One writer at a time: the row as read is current; the nonce's first scan, if any.
    return await decideWithSeen(ctx, row, req.nonce === null ? undefined : await findCheckinByNonce(ctx.db, req.nonce), req);
  }
  const state = await lockScanState(ctx.db, [row.id], req.nonce === null ? [] : [req.nonce]);
  const fresh = state.rows[0];
  if (fresh) Object.assign(row, fresh);
  return await decideWithSeen(ctx, row, state.seen[0], req);
}

/** What a nonce was first recorded with, as far as a decision needs it. */
export type SeenScan = Pick<CheckinRow, 'attendee_id' | 'result' | 'reason' | 'list_id'>;

/** A scan through a check-in list is decided by the list's rules (domain/checkin/lists.ts), after the replay check. */
async function decideWithSeen(ctx: Ctx, row: AttendeeRow, seen: SeenScan | undefined, req: ScanRequest): Promise<ScanDecision> {
  const replayed = replayOf(ctx, row, seen);
  if (replayed) return replayed;
  const listed = await decideThroughList(ctx, row, req, (result, reason) => logRow(ctx, row, req, result, reason));
  return listed ?? decideOnState(ctx, row, undefined, req);
}

/** A nonce seen before answers as it did then and logs nothing; one used for another attendee is 400. */
function replayOf(ctx: Ctx, row: AttendeeRow, seen: SeenScan | undefined): ScanDecision | null {
  if (!seen) return null;
  if (seen.attendee_id !== row.id) throw invalidParam('nonce', 'nonce was already used for a scan of another attendee.');
  if (seen.result === 'conflict') return { outcome: { kind: 'conflict', standing: checkinDetails(ctx, row) }, log: null };
  if (seen.result === 'rejected') return { outcome: { kind: 'rejected', reason: seen.reason ?? 'refused', listId: seen.list_id }, log: null };
  return { outcome: { kind: seen.result }, log: null };
}

/**
 * The decision of a scan through no check-in list, from what was read under the locks: the attendee as it stands
 * and the scan its nonce was first recorded with (if any). Writes nothing; throws 400 for a nonce used for another
 * attendee. Shared by the one-scan path above and the set-based batch path (checkin-run.ts), which takes scans
 * through no list only.
 */
export function decideOnState(ctx: Ctx, row: AttendeeRow, seen: SeenScan | undefined, req: ScanRequest): ScanDecision {
  const replayed = replayOf(ctx, row, seen);
  if (replayed) return replayed;
  if (!req.checkIn) {
    return { outcome: { kind: 'checked_out' }, log: logRow(ctx, row, req, 'checked_out', row.checked_in ? null : 'not_checked_in') };
  }
  const standing = checkinDetails(ctx, row);
  const verdict = decideCheckin(scanSubject(row, standing));
  switch (verdict.kind) {
    case 'admitted':
      return { outcome: { kind: 'accepted' }, log: logRow(ctx, row, req, 'accepted', null) };
    case 'already':
      return { outcome: { kind: 'conflict', standing }, log: logRow(ctx, row, req, 'conflict', 'already_checked_in') };
    case 'invalid':
      return { outcome: { kind: 'rejected', reason: verdict.reason }, log: logRow(ctx, row, req, 'rejected', verdict.reason) };
    default:
      return { outcome: { kind: 'rejected', reason: 'refused' }, log: logRow(ctx, row, req, 'rejected', 'refused') };
  }
}

/** The row after a decision's log row `id` was written: the state `applyScan` writes, applied in memory. */
export function scannedRow(row: AttendeeRow, d: ScanDecision, id: number | null): AttendeeRow {
  const log = d.log;
  if (!log) return row;
  if (d.outcome.kind === 'accepted') {
    return Object.assign(row, {
      checked_in: 1,
      checkin_id: id,
      ci_scanned_at: log.scanned_at,
      ci_source: log.source,
      ci_user_id: log.user_id,
      ci_device_id: log.device_id,
      ci_replaced_device_id: null,
      ci_replaced_scanned_at: null,
      ci_replaced_nonce: null,
      ci_device_label: null,
    });
  }
  if (d.outcome.kind === 'checked_out' && row.checked_in) {
    return Object.assign(row, {
      checked_in: 0,
      checkin_id: null,
      ci_scanned_at: null,
      ci_source: null,
      ci_user_id: null,
      ci_device_id: null,
      ci_replaced_nonce: null,
    });
  }
  return row;
}

/**
 * Writes a decision: the log row, and for an accepted check-in or a check-out, the attendee's state. Returns
 * the row as it now stands (what a re-read would give for every presented field), saving a query per scan.
 */
export async function applyScan(ctx: Ctx, row: AttendeeRow, d: ScanDecision): Promise<AttendeeRow> {
  if (!d.log) return row;
  const id = await insertCheckin(ctx.db, d.log);
  // Rows are read fresh for each request, so updating this one in place is safe (and spares a copy per scan).
  const wasIn = row.checked_in;
  const after = scannedRow(row, d, id);
  if (d.outcome.kind === 'accepted') await setCheckedIn(ctx.db, row.id, id);
  else if (d.outcome.kind === 'checked_out' && wasIn) await setCheckedIn(ctx.db, row.id, null);
  return after;
}

/** Logs a scan that never reached an attendee (unknown ID, wrong security code). */
export async function logFailedScan(ctx: Ctx, target: { id: number; event_id: number | null }, req: ScanRequest, reason: string): Promise<void> {
  await insertCheckin(ctx.db, { ...logRow(ctx, null, req, 'rejected', reason), attendee_id: target.id, event_id: target.event_id });
}

export const isFailure = (o: ScanOutcome) => o.kind === 'conflict' || o.kind === 'rejected';
