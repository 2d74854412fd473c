import type { OrderStatus } from '../../shared/models/tickets.ts';

/**
 * The rules a sale follows, apart from how the rows are read and written (db/repos/orders.ts reads the tickets
 * under their locks and the counts after them, then asks these; routes/tickets/cart.ts asks about holds): what
 * one order may hold, which tickets can be sold together, whether the places are there, what the order costs
 * and whether it completes at once, and how many unpaid places one client address may hold. No I/O here.
 */

/** An order (or a cart) of more tickets than one order may hold: refused before anything is written. */
export class OrderTooLargeError extends Error {
  constructor(
    readonly max: number,
    readonly requested: number,
  ) {
    super(`order of ${requested} tickets, at most ${max}`);
  }
}

/** Why an order cannot be made; the routes turn these into Event Tickets' errors. */
export class OrderError extends Error {
  constructor(
    readonly kind: 'capacity' | 'unavailable' | 'not_on_sale' | 'currency' | 'empty',
    readonly ticketId: number,
    readonly ticketTitle: string,
    readonly available = 0,
  ) {
    super(`${kind}: ticket ${ticketId}`);
  }
}

/** One line of an order: a ticket and how many. */
export interface OrderLine {
  ticketId: number;
  quantity: number;
  optout?: boolean;
}

/** What the rules read of a ticket. */
export interface SaleTicket {
  id: number;
  title: string;
  status: string;
  provider: 'rsvp' | 'tc';
  price_minor: number;
  currency: string;
  capacity: number;
  available_from_utc: string;
  available_until_utc: string;
}

/** Places a ticket has sold and has held by pending orders (db/repos/tickets.ts counts them). */
export interface PlacesTaken {
  sold: number;
  pending: number;
}

/** Places left: -1 when unlimited, never below 0. */
export function availableOf(capacity: number, s: PlacesTaken): number {
  return capacity < 0 ? -1 : Math.max(0, capacity - s.sold - s.pending);
}

/**
 * The lines an order is made of: one per ticket (repeated tickets added up), none of quantity 0; `empty` when
 * nothing is left, too large past `maxTickets` in all.
 */
export function orderLines<L extends OrderLine>(lines: readonly L[], maxTickets?: number): L[] {
  const merged = new Map<number, L>();
  for (const it of lines) {
    const prev = merged.get(it.ticketId);
    merged.set(it.ticketId, prev ? { ...prev, quantity: prev.quantity + it.quantity } : { ...it });
  }
  const items = [...merged.values()].filter((it) => it.quantity > 0);
  if (!items.length) throw new OrderError('empty', 0, '');
  if (maxTickets !== undefined) {
    const count = items.reduce((n, it) => n + it.quantity, 0);
    if (count > maxTickets) throw new OrderTooLargeError(maxTickets, count);
  }
  return items;
}

/** What an order of these lines is: paid lines share one currency; free orders complete at once. */
export interface OrderPlan {
  provider: 'rsvp' | 'tc';
  currency: string;
  total: number;
  status: OrderStatus;
}

/** Every ticket published, the paid ones in one currency (`unavailable`, `currency`); the order's total and status. */
export function planOrder(lines: readonly OrderLine[], tickets: ReadonlyMap<number, SaleTicket>, status?: OrderStatus): OrderPlan {
  for (const it of lines) {
    const t = tickets.get(it.ticketId);
    if (t?.status !== 'publish') throw new OrderError('unavailable', it.ticketId, t?.title ?? '');
  }
  const paid = lines.filter((it) => tickets.get(it.ticketId)!.provider === 'tc');
  const currencies = new Set(paid.map((it) => tickets.get(it.ticketId)!.currency));
  if (currencies.size > 1) throw new OrderError('currency', paid[0]!.ticketId, tickets.get(paid[0]!.ticketId)!.title);
  const total = lines.reduce((sum, it) => sum + tickets.get(it.ticketId)!.price_minor * it.quantity, 0);
  return {
    provider: paid.length ? 'tc' : 'rsvp',
    currency: [...currencies][0] ?? 'USD',
    total,
    status: status ?? (total === 0 ? 'completed' : 'pending'),
  };
}

/**
 * Each line on sale at `dateGmt` (when `checkSaleWindow`) and within the places left (`taken` counted under the
 * tickets' locks, so concurrent sales never overbook): `not_on_sale` or `capacity`, line by line.
 */
export function checkPlaces(
  lines: readonly OrderLine[],
  tickets: ReadonlyMap<number, SaleTicket>,
  taken: ReadonlyMap<number, PlacesTaken>,
  o: { dateGmt: string; checkSaleWindow?: boolean },
): void {
  for (const it of lines) {
    const t = tickets.get(it.ticketId)!;
    if (
      o.checkSaleWindow &&
      ((t.available_from_utc && o.dateGmt < t.available_from_utc) || (t.available_until_utc && o.dateGmt > t.available_until_utc))
    )
      throw new OrderError('not_on_sale', t.id, t.title);
    const available = availableOf(t.capacity, taken.get(t.id) ?? { sold: 0, pending: 0 });
    if (available >= 0 && it.quantity > available) throw new OrderError('capacity', t.id, t.title, available);
  }
}

/**
 * Whether a checkout's places need the per-address hold check (CONTRACT section 3): an anonymous buyer's cart
 * with something to pay (a free order completes at once and holds nothing).
 */
export function holdsPlaces(client: string | undefined, lines: readonly { price_minor: number }[]): client is string {
  return !!client && lines.some((l) => l.price_minor > 0);
}

/** One client address holds at most `max` places in pending orders: the refusal when `wanted` more would pass it. */
export function heldPlacesRefusal(held: number, wanted: number, max: number): { held: number; max: number } | null {
  return held + wanted <= max ? null : { held, max };
}
