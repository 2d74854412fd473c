import { lockOrder } from '../../db/repos/locks.ts';
import type { OrderStatus } from '../../../shared/models/tickets.ts';
import { ticketsRoutes, TICKETS_NS } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { forbidden, HttpError, invalidParam } from '../../kernel/errors.ts';
import { hooks } from '../../kernel/hooks.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { getOrderRow, getOrderRows, OrderError, orderItems, queryOrders, setOrderStatus } from '../../db/repos/orders.ts';
import { isAdministrator, mayChangeEvent } from '../../security/ownership.ts';
import { ORDER_STATUSES } from '../../../shared/models/tickets.ts';
import { nowUtcString } from './clock.ts';
import { presentOrders } from './order-present.ts';
import { sweepIfLapsed } from './order-hold.ts';
import { organizerScope, readableRows } from './attendee-access.ts';
import { etTotalHeaders, invalidPage } from './paging.ts';

/** Runs every `orderCompleted` listener (ticket e-mails) inside the transaction that completed the order. */
export async function orderCompleted(ctx: Ctx, orderId: number): Promise<void> {
  for (const listener of hooks(ctx.app).orderCompleted) await listener(ctx, orderId);
}

/** Event Tickets' capacity error, and ours for the other reasons a sale fails. */
export function orderErrorToHttp(e: OrderError): HttpError {
  switch (e.kind) {
    case 'capacity':
      return new HttpError(400, 'ticket-capacity-not-available', `The ticket "${e.ticketTitle}" does not have that many available for purchase.`, {
        ticket_id: e.ticketId,
        available: e.available,
      });
    case 'not_on_sale':
      return new HttpError(400, 'ticket-not-on-sale', `The ticket "${e.ticketTitle}" is not on sale now.`, { ticket_id: e.ticketId });
    case 'unavailable':
      return new HttpError(400, 'ticket-does-not-exist', `The ticket #${e.ticketId} does not exist.`, { ticket_id: e.ticketId });
    case 'currency':
      return new HttpError(400, 'cart-mixed-currencies', 'The tickets in the cart are priced in different currencies.', { ticket_id: e.ticketId });
    case 'empty':
      return new HttpError(400, 'cart-empty', 'The cart is empty.');
  }
}

/** Which status moves an order may make: paid, refunded, cancelled, or revived when places allow. */
const MOVES: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ['completed', 'cancelled', 'failed', 'refunded'],
  completed: ['refunded', 'cancelled'],
  cancelled: ['pending', 'completed'],
  failed: ['pending', 'completed'],
  refunded: [],
};

const notFound = (id: number) => new HttpError(404, 'order-not-found', `The order #${id} does not exist.`);

const list = implement(ticketsRoutes.listOrders, async (input, ctx) => {
  await sweepIfLapsed(ctx);
  const statuses = input.status?.map((s) => s.toLowerCase());
  if (statuses?.some((s) => !(ORDER_STATUSES as readonly string[]).includes(s))) throw invalidParam('status');
  const { ids, total } = await queryOrders(ctx.db, {
    postId: input.post_id,
    // An organizer reads the orders of its own events only (CONTRACT section 3).
    eventAuthor: organizerScope(ctx) ?? undefined,
    statuses,
    limit: input.per_page,
    offset: (input.page - 1) * input.per_page,
  });
  const totalPages = Math.ceil(total / input.per_page);
  if (input.page > 1 && input.page > totalPages) throw invalidPage();
  const orders = await presentOrders(ctx, await getOrderRows(ctx.db, ids));
  return ok({ rest_url: ctx.urls.rest(`/${TICKETS_NS}/orders/`), total, total_pages: totalPages, orders }, etTotalHeaders(total, totalPages));
});

const read = implement(ticketsRoutes.readOrder, async (input, ctx) => {
  await sweepIfLapsed(ctx);
  const row = await getOrderRow(ctx.db, input.id);
  if (!row) throw notFound(input.id);
  // An organizer reads an order only when one of its tickets is on an event it authored.
  if (organizerScope(ctx) !== null && !(await readableRows(ctx, await orderItems(ctx.db, [row.id]))).length) throw notFound(input.id);
  return ok((await presentOrders(ctx, [row]))[0]);
});

/**
 * An organizer changes only orders all of whose tickets are on events it authored (CONTRACT section 3); an
 * order of someone else's event (or of no event at all) is the administrator's: `403 rest_forbidden`.
 */
async function assertMayChangeOrder(ctx: Ctx, orderId: number): Promise<void> {
  if (isAdministrator(ctx)) return;
  const events = new Set((await orderItems(ctx.db, [orderId])).map((i) => i.event_id));
  if (events.size === 0) throw forbidden(ctx.caller.kind === 'anonymous');
  for (const e of events) if (!(await mayChangeEvent(ctx, e))) throw forbidden(ctx.caller.kind === 'anonymous');
}

const update = implement(ticketsRoutes.updateOrder, async (input, ctx) => {
  let row = await getOrderRow(ctx.db, input.id);
  if (!row) throw notFound(input.id);
  await assertMayChangeOrder(ctx, row.id);
  // The order's lock before its status is read for the move (db/repos/locks.ts): two moves never both apply.
  if (await lockOrder(ctx.db, row.id)) row = (await getOrderRow(ctx.db, row.id)) ?? row;
  const to = input.status;
  if (to !== row.status) {
    if (!MOVES[row.status].includes(to)) {
      throw new HttpError(400, 'order-invalid-status-change', `An order cannot go from ${row.status} to ${to}.`, { from: row.status, to });
    }
    try {
      await setOrderStatus(ctx.db, row, to, nowUtcString(ctx));
    } catch (e) {
      throw e instanceof OrderError ? orderErrorToHttp(e) : e;
    }
    if (to === 'completed') await orderCompleted(ctx, row.id);
  }
  return ok((await presentOrders(ctx, [(await getOrderRow(ctx.db, row.id))!]))[0]);
});

export const orderEndpoints: Endpoint[] = [list, read, update];
