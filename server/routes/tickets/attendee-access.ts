import { parseDateInput } from '../../../shared/dates.ts';
import { CHECKIN_ERRORS } from '../../../shared/checkin/wire.ts';
import type { Ctx } from '../../kernel/context.ts';
import { callerRole } from '../../kernel/context.ts';
import { HttpError, forbidden, invalidParam } from '../../kernel/errors.ts';
import { assertMayChangeEvent, mayChangeEvent } from '../../security/ownership.ts';
import { getAttendeeRow, effectiveOrderStatus, type AttendeeRow } from '../../db/repos/attendees.ts';
import { getPostType } from '../../db/repos/posts.ts';
import { utcString } from '../../content/site-time.ts';
import { managesAttendees } from './attendee-present.ts';
import { keyListTicketIds } from '../../domain/checkin/lists.ts';

/** Order statuses Event Tickets calls "public": the attendee is really coming. */
export const PUBLIC_ORDER_STATUSES: readonly string[] = ['completed'];

export const attendeeNotFound = () =>
  new HttpError(404, CHECKIN_ERRORS.attendeeNotFound, 'The requested post ID does not exist or is not an attendee');
export const attendeeNotAccessible = () => new HttpError(401, 'attendee-not-accessible', 'The requested attendee is not accessible');

/** The event an API key is bound to, if any: such a key sees and scans that event's attendees only. */
export function keyEventScope(ctx: Ctx): number | null {
  return ctx.caller.kind === 'api_key' ? ctx.caller.eventId : null;
}

/** Whether event `eventId` lies inside the caller's key scope (always, for every caller but a scoped key). */
export function inKeyScope(ctx: Ctx, eventId: number | null | undefined): boolean {
  const scope = keyEventScope(ctx);
  return scope === null || eventId === scope;
}

/**
 * The author whose events an organizer reads attendees, orders, check-ins and security codes of: itself
 * (CONTRACT section 3: a security code is as good as the ticket); null for every other caller.
 */
export function organizerScope(ctx: Ctx): number | null {
  return ctx.caller.kind === 'user' && ctx.caller.role === 'organizer' ? ctx.caller.userId : null;
}

/** Whether the caller's manage access reaches event `eventId`: a bound key's event, an organizer's own events. */
export async function readsAttendeesOf(ctx: Ctx, eventId: number): Promise<boolean> {
  return inKeyScope(ctx, eventId) && (organizerScope(ctx) === null || (await mayChangeEvent(ctx, eventId)));
}

/**
 * The rows of events whose attendees the caller may read (readsAttendeesOf), each event asked once; for a key bound
 * to a check-in list, of the tickets its list admits only (CONTRACT section 8).
 */
export async function readableRows<T extends { event_id: number; ticket_id: number }>(ctx: Ctx, rows: readonly T[]): Promise<T[]> {
  const verdicts = new Map<number, boolean>();
  for (const r of rows) if (!verdicts.has(r.event_id)) verdicts.set(r.event_id, await readsAttendeesOf(ctx, r.event_id));
  const admitted = rows.length ? await keyListTicketIds(ctx) : null;
  return rows.filter((r) => verdicts.get(r.event_id) === true && (!admitted || admitted.includes(r.ticket_id)));
}

/** A door user or any API key: changes check-in state and creates attendees at the door, nothing else. */
export function isDoorCaller(ctx: Ctx): boolean {
  return callerRole(ctx.caller) === 'door';
}

/**
 * Fields a door caller may not send on an attendee write (CONTRACT section 3): `403 rest_forbidden` when any of
 * `names` was sent. Only check-in state (`check_in`, `check_in_date`, `device_id`, `nonce`) is the door's.
 */
export function refuseDoorFields(ctx: Ctx, names: readonly string[]): void {
  if (!isDoorCaller(ctx)) return;
  const p = ctx.req.params;
  if (names.some((n) => p[n] !== undefined && p[n] !== null)) throw forbidden(false);
}

/**
 * Attendee writes (check-in, field edits, creation, opt-in) on event `eventId`: an organizer only on events it
 * authored (403 rest_forbidden otherwise); door callers by their role and key scope, administrators always.
 */
export async function assertMayWriteAttendeesOf(ctx: Ctx, eventId: number): Promise<void> {
  if (ctx.caller.kind === 'user' && ctx.caller.role === 'organizer') await assertMayChangeEvent(ctx, eventId);
}

/** Whether the public may see this attendee (published, not opted out, coming, on a public event). */
export function publiclyVisible(row: AttendeeRow): boolean {
  return (
    row.status === 'publish' &&
    row.event_status === 'publish' &&
    row.event_password === '' &&
    row.optout === 0 &&
    row.rsvp_status !== 'no' &&
    PUBLIC_ORDER_STATUSES.includes(effectiveOrderStatus(row))
  );
}

/** An attendee for a manager (door key, door staff, organizer): 404 when missing or outside the key's event. */
export async function loadManagedAttendee(ctx: Ctx, id: number): Promise<AttendeeRow> {
  const row = await getAttendeeRow(ctx.db, id);
  if (!row || !inKeyScope(ctx, row.event_id)) throw attendeeNotFound();
  return row;
}

/**
 * `GET /attendees/{id}` rules: managers see any attendee in their reach, the public (and an organizer, for another
 * organizer's event) only visible ones (401 otherwise).
 */
export async function loadReadableAttendee(ctx: Ctx, id: number): Promise<AttendeeRow> {
  if (managesAttendees(ctx)) {
    const row = await loadManagedAttendee(ctx, id);
    if (!(await readsAttendeesOf(ctx, row.event_id)) && !publiclyVisible(row)) throw attendeeNotAccessible();
    return row;
  }
  const row = await getAttendeeRow(ctx.db, id);
  // As the original: the public hears the same for a hidden and a missing attendee (no probing which attendees
  // exist); a post of another kind (a ticket, an event) is 404.
  if (!row) throw (await getPostType(ctx.db, id)) ? attendeeNotFound() : attendeeNotAccessible();
  if (!publiclyVisible(row)) throw attendeeNotAccessible();
  return row;
}

/** A date filter (`after`, `before`) as stored UTC `YYYY-MM-DD HH:MM:SS`. */
export function utcFilter(value: string, param: string): string {
  const d = parseDateInput(value, 'UTC', new Date());
  if (!d) throw invalidParam(param);
  return utcString(d);
}

/**
 * `check_in_date`: ISO 8601 with an offset (or Z), in the years 1 to 9999 UTC that site-local dates can show;
 * anything else is an invalid parameter.
 */
export function scanTime(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value.trim());
  const d = ok ? new Date(value.trim()) : null;
  if (!d || Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999)
    throw invalidParam('check_in_date', 'check_in_date must be an ISO 8601 date-time with an offset.');
  return d;
}
