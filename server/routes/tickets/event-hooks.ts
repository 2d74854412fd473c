import type { AppState, Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { hooks } from '../../kernel/hooks.ts';
import { createNonce } from '../../auth/nonces.ts';
import { attendanceByPost, availableOf, providersByPost, publishedTicketStock, ticketedCondition } from '../../db/repos/tickets.ts';
import type { EventRow } from '../../db/repos/events.ts';
import type { PresentOpts } from '../../kernel/hooks.ts';
import { nowMs } from './clock.ts';
import { readsAttendeesOf } from './attendee-access.ts';
import { installOrderHolds } from './order-hold.ts';

/**
 * Event Tickets' marks on events (reference 4.8): `ticketed` on every event, `attendance` for callers with
 * manage access (a key bound to an event: that event's only, CONTRACT section 3), and (CONTRACT section 5) `nonces.add_ticket_nonce` on single reads for ticket editors.
 */
export async function decorateEvents(ctx: Ctx, events: Record<string, unknown>[], rows: EventRow[], opts: PresentOpts): Promise<void> {
  const ids = rows.map((r) => r.id);
  const providers = await providersByPost(ctx.db, ids);
  const attendance = can(ctx, 'manage_attendees') ? await attendanceByPost(ctx.db, ids) : null;
  const editor = opts.single === true && can(ctx, 'edit_tickets');
  for (const [i, r] of rows.entries()) {
    const e = events[i] as Record<string, unknown>;
    // The original's order: `attendance` before `ticketed`.
    if (attendance && (await readsAttendeesOf(ctx, r.id)))
      e.attendance = attendance.get(r.id) ?? { total_attendees: 0, checked_in: 0, not_checked_in: 0 };
    e.ticketed = providers.get(r.id) ?? false;
    if (editor) e.nonces = { add_ticket_nonce: createNonce(ctx, 'add_ticket_nonce', r.id, nowMs(ctx)) };
    if (opts.single === true) await offerAvailability(ctx, e, r.id);
  }
}

/**
 * Each JSON-LD offer's `availability` as Event Tickets gives it (Tribe__Tickets__JSON_LD__Order): `SoldOut` when
 * the ticket has no stock left, `LimitedAvailability` with 1 to 5 left, `InStock` otherwise (unlimited too). Sales
 * change it, so it is set per request here, not kept with the presented event (a new `json_ld` object: the kept
 * one is shared); the cached single reads depend on the `tickets` tag for it (http/cache-tags.ts).
 */
async function offerAvailability(ctx: Ctx, e: Record<string, unknown>, eventId: number): Promise<void> {
  const ld = e.json_ld as Record<string, unknown> | undefined;
  if (!ld || !Array.isArray(ld.offers) || !ld.offers.length) return;
  const tickets = await publishedTicketStock(ctx.db, eventId);
  if (tickets.length !== ld.offers.length) return;
  const offers = (ld.offers as Record<string, unknown>[]).map((o, i) => {
    const stock = availableOf(tickets[i].capacity, tickets[i].stats);
    return { ...o, availability: stock === 0 ? 'SoldOut' : stock >= 1 && stock <= 5 ? 'LimitedAvailability' : 'InStock' };
  });
  e.json_ld = { ...ld, offers };
}

/** The events archive's `ticketed=true|false`. */
export function ticketedFilter(input: Record<string, unknown>) {
  if (typeof input.ticketed !== 'boolean') return null;
  return ticketedCondition(input.ticketed);
}

export async function installTickets(state: AppState): Promise<void> {
  const h = hooks(state);
  h.eventDecorators.push(decorateEvents);
  h.eventFilters.push(ticketedFilter);
  await installOrderHolds(state);
}
