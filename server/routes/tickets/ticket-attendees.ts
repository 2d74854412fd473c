import type { Ctx } from '../../kernel/context.ts';
import { attendeeIdsOfTickets } from '../../db/repos/tickets.ts';
import { getAttendeeRows } from '../../db/repos/attendees.ts';
import { presentAttendees } from './attendee-present.ts';
import { readableRows } from './attendee-access.ts';

/**
 * The attendee lists embedded in tickets for callers with manage access, in ID order, one query per page. A key
 * bound to an event gets that event's attendees only (CONTRACT section 3), whatever tickets it names.
 */
export async function attendeesOfTickets(ctx: Ctx, ticketIds: readonly number[]): Promise<Map<number, Record<string, unknown>[]>> {
  const out = new Map<number, Record<string, unknown>[]>();
  if (!ticketIds.length) return out;
  const ids = await attendeeIdsOfTickets(ctx.db, ticketIds);
  const rows = await readableRows(ctx, await getAttendeeRows(ctx.db, ids));
  const presented = presentAttendees(ctx, rows, true, true);
  rows.forEach((r, i) => {
    let list = out.get(r.ticket_id);
    if (!list) out.set(r.ticket_id, (list = []));
    list.push(presented[i]);
  });
  return out;
}
