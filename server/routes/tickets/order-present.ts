import { rawPrice } from '../../../shared/money.ts';
import { TICKETS_NS } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { attendeeRowsOfOrders, getAttendeeRows } from '../../db/repos/attendees.ts';
import { orderItems, type OrderItemRow, type OrderRow } from '../../db/repos/orders.ts';
import { pick } from '../../content/text.ts';
import { presentAttendees } from './attendee-present.ts';
import { readableRows } from './attendee-access.ts';

/**
 * Orders (our extension) with their lines and attendees. Attendees show the door view: an order is read by
 * its purchaser right after checkout (who needs the codes for the tickets) or by ticket editors.
 */
export async function presentOrders(
  ctx: Ctx,
  orders: OrderRow[],
  known?: { items: OrderItemRow[]; attendeeIds: readonly number[] },
): Promise<Record<string, unknown>[]> {
  const ids = orders.map((o) => o.id);
  // `known`: the orders' lines as orderItems reads them and their attendees' IDs, from a caller that just wrote
  // them (the checkout): its attendees are read by ID, a plan that does not depend on how orders spread
  // (engine/sql.ts inJson).
  const items = known?.items ?? (await orderItems(ctx.db, ids));
  const rows = known
    ? await getAttendeeRows(
        ctx.db,
        [...known.attendeeIds].sort((a, b) => a - b),
      )
    : await attendeeRowsOfOrders(ctx.db, ids);
  // An order holding tickets of several events shows an organizer only the attendees of its own.
  const attendeeRows = await readableRows(ctx, rows);
  const attendees = presentAttendees(ctx, attendeeRows, true);
  return orders.map((o) => ({
    id: o.id,
    provider: o.provider,
    status: o.status,
    purchaser_name: o.purchaser_name,
    purchaser_email: o.purchaser_email,
    author: String(o.author),
    total: rawPrice(o.total_minor, o.currency),
    currency: o.currency,
    date: o.date,
    date_utc: o.date_gmt,
    completed_date_utc: o.completed_utc,
    // Until when a pending order holds its places (ISO 8601 UTC); null for any other order, or a pending one
    // entered by staff without a hold.
    expires: o.status === 'pending' && o.hold_until_utc ? `${o.hold_until_utc.replace(' ', 'T')}Z` : null,
    items: items
      .filter((i) => i.order_id === o.id)
      .map((i) => ({
        ticket_id: i.ticket_id,
        post_id: i.event_id,
        title: pick(ctx.lang, i.title, i.title_et),
        quantity: i.quantity,
        price: rawPrice(i.price_minor, o.currency),
      })),
    attendees: attendees.filter((_, n) => attendeeRows[n].order_id === o.id),
    rest_url: ctx.urls.rest(`/${TICKETS_NS}/orders/${o.id}`),
  }));
}
