import { ORDER_STATUSES } from '../../../shared/models/tickets.ts';
import type { Input } from '../../../shared/http/route.ts';
import type { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { callerUserId } from '../../kernel/context.ts';
import { HttpError, forbidden, invalidParam } from '../../kernel/errors.ts';
import { created, type Result } from '../../kernel/result.ts';
import { getAttendeeRow, getTicketRef, updateAttendeeFields } from '../../db/repos/attendees.ts';
import { availableOf, EMPTY_STATS, ticketStats } from '../../db/repos/tickets.ts';
import { sellAtBoxOffice } from '../../db/repos/box-office.ts';
import { markBoxOfficeOrder } from '../../db/repos/orders.ts';
import { nowDates } from '../../content/site-time.ts';
import { assertMayWriteAttendeesOf, isDoorCaller, keyEventScope, scanTime } from './attendee-access.ts';
import { presentAttendee } from './attendee-present.ts';
import { applyScan, decideScan } from '../../domain/checkin/scan.ts';
import { orderCompleted } from './orders.ts';
import { keyListTicketIds } from '../../domain/checkin/lists.ts';

/** The statuses an attendee of a provider may have: RSVP going status, or the order status of a sale. */
export function providerStatuses(provider: string): readonly string[] {
  return provider === 'rsvp' ? ['yes', 'no'] : ORDER_STATUSES;
}

export function checkAttendeeStatus(provider: string, status: string): string {
  const allowed = providerStatuses(provider);
  const s = status.trim().toLowerCase();
  if (!allowed.includes(s)) throw new HttpError(400, 'invalid-attendee-status', `Supported statuses for this attendee are: ${allowed.join(' | ')}`);
  return s;
}

const HOLDS_NO_PLACE = ['cancelled', 'refunded', 'failed'];

/**
 * `POST /attendees` (box-office sale or registration at the door): a one-line order and its attendee, 201.
 * Capacity is checked inside the request's transaction, so concurrent sales cannot oversell. A door caller
 * registers a coming attendee only (an `attendee_status` other than the provider's default is an order-status
 * change: 403); an organizer sells only on events it authored.
 */
export async function createAttendee(input: Input<typeof ticketsRoutes.createAttendee.args>, ctx: Ctx): Promise<Result> {
  const ticket = await getTicketRef(ctx.db, input.ticket_id);
  if (!ticket || ticket.status === 'trash') throw invalidParam('ticket_id');
  const standard = ticket.provider === 'rsvp' ? 'yes' : 'completed';
  const status = input.attendee_status !== undefined ? checkAttendeeStatus(ticket.provider, input.attendee_status) : standard;
  const scannedAt = scanTime(input.check_in_date);
  // Parameters first, then permission: the key's event, the organizer's events, the door's limits.
  const scope = keyEventScope(ctx);
  if (scope !== null && ticket.event_id !== scope) throw forbidden(false);
  // A key bound to a check-in list registers attendees on the tickets its list admits only (CONTRACT section 8).
  const admitted = await keyListTicketIds(ctx);
  if (admitted && !admitted.includes(ticket.id)) throw forbidden(false);
  await assertMayWriteAttendeesOf(ctx, ticket.event_id);
  if (isDoorCaller(ctx) && status !== standard) throw forbidden(false);
  const orderStatus = ticket.provider === 'rsvp' ? 'completed' : status;
  // Places are counted as the ticket routes count them (ticketStats): an RSVP "no" takes none.
  const holdsPlace = !HOLDS_NO_PLACE.includes(orderStatus) && !(ticket.provider === 'rsvp' && status === 'no');
  if (holdsPlace && availableOf(ticket.capacity, (await ticketStats(ctx.db, [ticket.id])).get(ticket.id) ?? EMPTY_STATS) === 0) {
    throw new HttpError(400, 'ticket-capacity-not-available', `The ticket "${ticket.title}" does not have that many available for purchase.`);
  }
  const { attendeeId, orderId } = await sellAtBoxOffice(ctx.db, {
    ticket,
    fullName: input.full_name,
    email: input.email,
    orderStatus,
    rsvpStatus: ticket.provider === 'rsvp' ? (status as 'yes' | 'no') : null,
    userId: callerUserId(ctx),
    dates: nowDates(ctx.app.config.timezone),
  });
  // As the original: an RSVP made through this route has not opted in to the public attendee list (optout true,
  // hidden from anonymous callers until the attendee opts in).
  if (ticket.provider === 'rsvp') await updateAttendeeFields(ctx.db, attendeeId, { optout: true });
  await markBoxOfficeOrder(ctx.db, orderId);
  if (orderStatus === 'completed') await orderCompleted(ctx, orderId);
  const row = (await getAttendeeRow(ctx.db, attendeeId))!;
  if (input.check_in === undefined) return created(presentAttendee(ctx, row, true));
  const req = { checkIn: input.check_in, scannedAt, deviceId: input.device_id ?? null, nonce: input.nonce ?? null, source: 'site' };
  // applyScan answers with the row as it now stands: no second read.
  return created(presentAttendee(ctx, await applyScan(ctx, row, await decideScan(ctx, row, req)), true));
}
