import { z } from 'zod';
import { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import { CHECKIN_ERRORS } from '../../../shared/checkin/wire.ts';
import type { Input } from '../../../shared/http/route.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, errorResult, type Result } from '../../kernel/result.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { getAttendeeRow, updateAttendeeFields, type AttendeeRow } from '../../db/repos/attendees.ts';
import { updatePost } from '../../db/repos/posts.ts';
import { checkinKeyLabel } from '../../db/repos/checkins.ts';
import { isListRefusal, listRefusalError } from '../../domain/checkin/lists.ts';
import { setOrderStatusOnly } from '../../db/repos/orders.ts';
import { nowDates } from '../../content/site-time.ts';
import { assertMayWriteAttendeesOf, attendeeNotFound, loadManagedAttendee, refuseDoorFields, scanTime } from './attendee-access.ts';
import { checkAttendeeStatus } from './attendee-create.ts';
import { presentAttendee } from './attendee-present.ts';
import { orderCompleted } from './orders.ts';
import { plainCheckin, runCheckins } from './checkin-run.ts';
import { applyScan, decideScan, isFailure, type ScanDecision, type ScanOutcome, type ScanRequest } from '../../domain/checkin/scan.ts';

/**
 * The label of the door key that made a check-in (`Door 2`): an additive `device_label` beside `device_id`,
 * so a kiosk names the other door instead of showing a hex ID. `null` for check-ins made without a key.
 */
export async function deviceLabelOf(ctx: Ctx, checkinId: number | null): Promise<string | null> {
  if (checkinId === null) return null;
  return (await checkinKeyLabel(ctx.db, checkinId)) ?? null;
}

/** The error a failed check-in answers with (CONTRACT section 7; reference 4.2). `row`: the attendee as decided. */
export async function scanError(o: ScanOutcome, ctx?: Ctx, row?: AttendeeRow): Promise<HttpError> {
  if (o.kind === 'conflict' && o.standing && ctx && row) return scanErrorWithLabel(o, await deviceLabelOf(ctx, row.checkin_id));
  // A check-in list's refusal answers with its own code (`checkin-list-closed` with the list's window).
  if (o.kind === 'rejected' && ctx && isListRefusal(o.reason)) return await listRefusalError(ctx, o.reason, o.listId);
  return scanErrorWithLabel(o, null);
}

/** scanError with the standing check-in's door label already read (`null`: none), for a scan through no list. */
export function scanErrorWithLabel(o: ScanOutcome, label: string | null): HttpError {
  if (o.kind === 'conflict') {
    const standing = o.standing ? { ...o.standing, device_label: label } : o.standing;
    return new HttpError(400, CHECKIN_ERRORS.alreadyCheckedIn, 'Attendee is already checked in.', { checkin_details: standing });
  }
  if (o.kind === 'rejected' && o.reason === 'revoked') return attendeeNotFound();
  return new HttpError(400, CHECKIN_ERRORS.orderNotComplete, 'Attendee Order status is not authorized for check-in.');
}

/** Thrown inside the savepoint to undo the request's field changes when its scan fails. */
class ScanFailed extends Error {
  constructor(readonly decision: ScanDecision) {
    super('scan failed');
  }
}

const emailSchema = z.string().trim().pipe(z.email());

interface FieldEdits {
  status?: string;
  email?: string;
  name?: string;
}

/** Field edits of an attendee update, validated (400) before the permission check and anything written. */
function parseFields(row: AttendeeRow, input: { attendee_status?: string; full_name?: string; email?: string }): FieldEdits {
  const status = input.attendee_status !== undefined ? checkAttendeeStatus(row.provider, input.attendee_status) : undefined;
  let email: string | undefined;
  if (input.email !== undefined) {
    const parsed = emailSchema.safeParse(input.email);
    if (!parsed.success) throw invalidParam('email', 'Invalid email.');
    email = parsed.data;
  }
  const name = input.full_name?.trim();
  if (name !== undefined && name === '') throw invalidParam('full_name');
  return { status, email, name };
}

async function applyFields(ctx: Ctx, row: AttendeeRow, { status, email, name }: FieldEdits): Promise<boolean> {
  if (status === undefined && email === undefined && name === undefined) return false;
  const now = nowDates(ctx.app.config.timezone);
  const rsvp = row.provider === 'rsvp';
  if (!rsvp && status !== undefined && row.order_id !== null && status !== row.order_status) {
    await setOrderStatusOnly(ctx.db, row.order_id, status, now.date_gmt);
    if (status === 'completed') await orderCompleted(ctx, row.order_id);
  }
  await updateAttendeeFields(ctx.db, row.id, { fullName: name, email, rsvpStatus: rsvp ? (status as 'yes' | 'no' | undefined) : undefined });
  await updatePost(ctx.db, row.id, { ...(name !== undefined ? { title: name } : {}), modified: now.date, modified_gmt: now.date_gmt });
  return true;
}

/** What a door caller may not send on an attendee update: 403 (CONTRACT section 3). */
export const DOOR_REFUSED_FIELDS = ['attendee_status', 'full_name', 'email', 'ticket_id', 'order_status'] as const;

/**
 * `POST|PUT|PATCH /attendees/{id}`: field edits and the kiosk's check-in (201 as in the original). A failed
 * scan answers with its error but still commits its log row (errorResult); the request's other edits are
 * undone with it, through a savepoint. Door callers change check-in state only; organizers only attendees of
 * events they authored (CONTRACT section 3).
 */
export async function updateAttendee(input: Input<typeof ticketsRoutes.updateAttendee.args>, ctx: Ctx): Promise<Result> {
  // The order of checks: a hidden or missing attendee (404), invalid fields (400), then permission (403).
  const row = await loadManagedAttendee(ctx, input.id);
  const fields = parseFields(row, input);
  refuseDoorFields(ctx, DOOR_REFUSED_FIELDS);
  await assertMayWriteAttendeesOf(ctx, row.event_id);
  const req: ScanRequest | null =
    input.check_in === undefined
      ? null
      : {
          checkIn: input.check_in,
          scannedAt: scanTime(input.check_in_date),
          deviceId: input.device_id ?? null,
          nonce: input.nonce ?? null,
          source: 'site',
          ...(input.list_id !== undefined ? { listId: input.list_id } : {}),
        };
  const edits = input.attendee_status !== undefined || input.full_name !== undefined || input.email !== undefined;
  if (req && !edits) {
    // The kiosk's plain check-in: nothing to undo on failure, so no savepoint.
    const decision = await decideScan(ctx, row, req);
    const after = await applyScan(ctx, row, decision);
    return isFailure(decision.outcome) ? errorResult(await scanError(decision.outcome, ctx, row)) : created(presentAttendee(ctx, after, true));
  }
  let after: AttendeeRow;
  try {
    after = await inTransaction(ctx.db, async () => {
      const edited = await applyFields(ctx, row, fields);
      const current = edited ? (await getAttendeeRow(ctx.db, row.id))! : row;
      if (!req) return current;
      const decision = await decideScan(ctx, current, req);
      if (isFailure(decision.outcome)) throw new ScanFailed(decision);
      return await applyScan(ctx, current, decision);
    });
  } catch (e) {
    if (!(e instanceof ScanFailed)) throw e;
    await applyScan(ctx, row, e.decision);
    return errorResult(await scanError(e.decision.outcome, ctx, row));
  }
  return created(presentAttendee(ctx, after, true));
}

export const checkinEndpoints: Endpoint[] = [
  implement(ticketsRoutes.updateAttendee, updateAttendee, {
    locks: (input) => ({ attendees: [input.id] }),
    many: { fits: plainCheckin, run: runCheckins },
  }),
];
