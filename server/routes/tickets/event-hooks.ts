import type { AppState, Ctx } from '../../http/context.ts';
import { can } from '../../http/context.ts';
import { hooks } from '../../http/hooks.ts';
import { createNonce } from '../../auth/nonces.ts';
import { attendanceByPost, HAS_TICKETS_SQL, providersByPost } from '../../db/repos/tickets.ts';
import type { EventRow } from '../../db/repos/events.ts';
import type { PresentOpts } from '../events/present.ts';
import { nowMs } from './clock.ts';
import { inKeyScope } from './attendee-access.ts';
import { installOrderHolds } from './order-hold.ts';

/**
 * Event Tickets' marks on events (reference 4.8): `ticketed` on every event, `attendance` for callers with
 * manage access (a key bound to an event: that event's only, CONTRACT section 3), and (CONTRACT section 5) `nonces.add_ticket_nonce` on single reads for ticket editors.
 */
export function decorateEvents(ctx: Ctx, events: Record<string, unknown>[], rows: EventRow[], opts: PresentOpts): void {
  const ids = rows.map((r) => r.id);
  const providers = providersByPost(ctx.db, ids);
  const attendance = can(ctx, 'manage_attendees') ? attendanceByPost(ctx.db, ids) : null;
  const editor = opts.single === true && can(ctx, 'edit_tickets');
  rows.forEach((r, i) => {
    const e = events[i];
    // The original's order: `attendance` before `ticketed`.
    if (attendance && inKeyScope(ctx, r.id)) e.attendance = attendance.get(r.id) ?? { total_attendees: 0, checked_in: 0, not_checked_in: 0 };
    e.ticketed = providers.get(r.id) ?? false;
    if (editor) e.nonces = { add_ticket_nonce: createNonce(ctx, 'add_ticket_nonce', r.id, nowMs(ctx)) };
  });
}

/** The events archive's `ticketed=true|false`. */
export function ticketedFilter(input: Record<string, unknown>) {
  if (typeof input.ticketed !== 'boolean') return null;
  return { sql: input.ticketed ? HAS_TICKETS_SQL : `NOT ${HAS_TICKETS_SQL}`, params: [] };
}

export function installTickets(state: AppState): void {
  const h = hooks(state);
  h.eventDecorators.push(decorateEvents);
  h.eventFilters.push(ticketedFilter);
  installOrderHolds(state);
}
