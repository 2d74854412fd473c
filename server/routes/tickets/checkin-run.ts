import type { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import type { Input } from '../../../shared/http/route.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError } from '../../kernel/errors.ts';
import { created, errorResult } from '../../kernel/result.ts';
import type { RunItem, RunAnswer } from '../../http/registry.ts';
import { lockScanState, type AttendeeRow } from '../../db/repos/attendees.ts';
import { checkinKeyLabels, recordScans, type CheckinInsert } from '../../db/repos/checkins.ts';
import { assertMayWriteAttendeesOf, attendeeNotFound, inKeyScope, refuseDoorFields, scanTime } from './attendee-access.ts';
import { presentAttendee } from './attendee-present.ts';
import { keyListScope } from '../../domain/checkin/lists.ts';
import { decideOnState, isFailure, scannedRow, type ScanDecision, type ScanRequest, type SeenScan } from '../../domain/checkin/scan.ts';
import { DOOR_REFUSED_FIELDS, scanErrorWithLabel } from './checkin.ts';

type UpdateInput = Input<typeof ticketsRoutes.updateAttendee.args>;

/**
 * A batch item of the attendee route that carries a check-in and no field edits, through no check-in list: the
 * kiosk's upload. A run of them is decided and written as a set (runCheckins); any other item goes through the
 * handler.
 */
export function plainCheckin(input: Record<string, unknown>, ctx: Ctx): boolean {
  const i = input as UpdateInput;
  // A scan through a check-in list (a list-bound key's, or one a manager names) is decided by the list's rules
  // over the attendee's history on the list: the handler's path (domain/checkin/lists.ts).
  if (i.list_id !== undefined || keyListScope(ctx) !== null) return false;
  return i.check_in !== undefined && i.attendee_status === undefined && i.full_name === undefined && i.email === undefined;
}

/** One item while the run is decided: its answer so far, and what its decision still waits for. */
interface Pending {
  ctx: Ctx;
  /** Set once the item is answered without a log row of its own (an error before the decision, a replay). */
  answer?: RunAnswer;
  decision?: ScanDecision;
  /** The row as it stood right after this item (what its 201 shows). */
  after?: AttendeeRow;
  /** Index in the run's log rows, when the decision logged one. */
  logIndex?: number;
  /** For a conflict: the standing check-in, as an ID or as the index of a log row of this run. */
  standing?: Standing;
}

/** A standing check-in during a run: stored already, or one of the run's own log rows. */
type Standing = { id: number } | { logIndex: number };

/**
 * A run of plain check-ins (consecutive batch items, in one transaction), with the answers the handler would
 * give item by item, in a constant number of statements: the attendees and the nonces locked in one (ascending ID
 * order, as every batch locks them) and read in another, every decision made in memory in
 * item order (a later item sees what an earlier one did: the same attendee twice is one admission and one
 * conflict, a nonce sent twice is one scan), the log rows and the attendees' standing check-ins in one statement
 * (recordScans), and the door labels a conflict names in one read. On PostgreSQL a batch of 25 check-ins is 7
 * round trips in all instead of about 150; on SQLite the same work, one row at a time, with no savepoint per item.
 *
 * What protects the invariants is what protects the one-scan path (db/repos/locks.ts): the attendee rows' locks
 * (one accepted check-in per attendee) and the nonces' advisory locks taken after them (one recorded scan per
 * nonce), both held to the end of the batch's transaction.
 */
export async function runCheckins(items: readonly RunItem[]): Promise<RunAnswer[]> {
  const first = items[0];
  if (!first) return [];
  const db = first.ctx.db;
  const pending: Pending[] = items.map(({ ctx }) => ({ ctx }));
  const inputs = items.map(({ input }) => input as UpdateInput);
  const ids = inputs.map((i) => i.id);
  const state = await lockScanState(
    db,
    ids,
    inputs.flatMap((i) => (i.nonce ? [i.nonce] : [])),
  );
  const rows = new Map(state.rows.map((r) => [r.id, r]));
  const seen = new Map<string, SeenScan>(state.seen.map((c) => [c.nonce as string, c]));

  // Decide in item order, on rows that carry the effects of the items before. `standing`: each attendee's
  // standing check-in as the run goes, an ID already stored or a log row of this run.
  const logs: CheckinInsert[] = [];
  const mayWrite = new Map<number, HttpError | null>();
  const standing = new Map<number, Standing | null>();
  const changed = new Set<number>();
  for (let k = 0; k < items.length; k++) {
    const p = pending[k] as Pending;
    const ctx = p.ctx;
    const input = inputs[k] as UpdateInput;
    try {
      const row = rows.get(ids[k] as number);
      if (!row || !inKeyScope(ctx, row.event_id)) throw attendeeNotFound();
      refuseDoorFields(ctx, DOOR_REFUSED_FIELDS);
      let refused = mayWrite.get(row.event_id);
      if (refused === undefined) {
        refused = await assertMayWriteAttendeesOf(ctx, row.event_id).then(
          () => null,
          (e: unknown) => {
            if (e instanceof HttpError) return e;
            throw e;
          },
        );
        mayWrite.set(row.event_id, refused);
      }
      if (refused) throw refused;
      const req: ScanRequest = {
        checkIn: input.check_in as boolean,
        scannedAt: scanTime(input.check_in_date),
        deviceId: input.device_id ?? null,
        nonce: input.nonce ?? null,
        source: 'site',
      };
      if (!standing.has(row.id)) standing.set(row.id, row.checkin_id === null ? null : { id: row.checkin_id });
      const decision = decideOnState(ctx, row, req.nonce === null ? undefined : seen.get(req.nonce), req);
      p.decision = decision;
      // A conflict names the check-in that stood before this scan.
      if (decision.outcome.kind === 'conflict') p.standing = standing.get(row.id) ?? undefined;
      if (decision.log) {
        p.logIndex = logs.push(decision.log) - 1;
        if (req.nonce !== null) seen.set(req.nonce, { ...decision.log, list_id: decision.log.list_id ?? null });
        const wasIn = row.checked_in === 1;
        scannedRow(row, decision, null);
        if (decision.outcome.kind === 'accepted') {
          standing.set(row.id, { logIndex: p.logIndex });
          changed.add(row.id);
        } else if (decision.outcome.kind === 'checked_out' && wasIn) {
          standing.set(row.id, null);
          changed.add(row.id);
        }
      }
      p.after = isFailure(decision.outcome) ? undefined : { ...row };
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      p.answer = { result: errorResult(e), wrote: false };
    }
  }

  // Write: the log rows and each moved attendee's standing check-in (its last accepted scan here, or none).
  const finals = new Map<number, boolean>();
  for (const id of changed) finals.set(id, standing.get(id) != null);
  const logIds = await recordScans(db, logs, finals);
  const standingId = (s: Standing | null | undefined): number | null =>
    s == null ? null : 'id' in s ? s.id : ((logIds[s.logIndex] as number | undefined) ?? null);
  for (const p of pending) {
    if (p.after && p.decision?.outcome.kind === 'accepted' && p.logIndex !== undefined) p.after.checkin_id = logIds[p.logIndex] ?? null;
  }

  // The door labels conflicts name, in one read (only when there are conflicts).
  const labelIds = pending.flatMap((p) => {
    const id = standingId(p.standing);
    return id === null ? [] : [id];
  });
  const labels = labelIds.length ? await checkinKeyLabels(db, labelIds) : new Map<number, string>();

  return pending.map((p): RunAnswer => {
    if (p.answer) return p.answer;
    const d = p.decision as ScanDecision;
    if (isFailure(d.outcome)) {
      const id = standingId(p.standing);
      return { result: errorResult(scanErrorWithLabel(d.outcome, id === null ? null : (labels.get(id) ?? null))), wrote: true };
    }
    return { result: created(presentAttendee(p.ctx, p.after as AttendeeRow, true)), wrote: true };
  });
}
