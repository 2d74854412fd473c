import type { Ctx } from '../../http/context.ts';
import { stmt } from '../../db/connection.ts';
import { getAttendeeRows } from '../../db/repos/attendees.ts';
import { presentAttendees } from './attendee-present.ts';

/** The attendee lists embedded in tickets for callers with manage access, in ID order, one query per page. */
export function attendeesOfTickets(ctx: Ctx, ticketIds: readonly number[]): Map<number, Record<string, unknown>[]> {
  const out = new Map<number, Record<string, unknown>[]>();
  if (!ticketIds.length) return out;
  const ids = (
    stmt(ctx.db, "SELECT post_id FROM attendees WHERE ticket_id IN (SELECT value FROM json_each(?)) AND status <> 'trash' ORDER BY post_id").all(JSON.stringify(ticketIds)) as { post_id: number }[]
  ).map((r) => r.post_id);
  const rows = getAttendeeRows(ctx.db, ids);
  const presented = presentAttendees(ctx, rows, true);
  rows.forEach((r, i) => {
    let list = out.get(r.ticket_id);
    if (!list) out.set(r.ticket_id, (list = []));
    list.push(presented[i]);
  });
  return out;
}
