import crypto from 'node:crypto';
import { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import { callerTag, type Ctx } from '../../http/context.ts';
import { HttpError, invalidParam } from '../../http/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok } from '../../http/result.ts';
import { nowDates } from '../../content/site-time.ts';
import { cartItems, emptyCart, findCart, replaceCartLines, type CartLine } from '../../db/repos/carts.ts';
import { createOrder, getOrderRow, OrderError } from '../../db/repos/orders.ts';
import { getPost } from '../../db/repos/posts.ts';
import { availableOf, EMPTY_STATS, getTicketRows, parentPosts, postHasTickets, ticketStats, type TicketRow } from '../../db/repos/tickets.ts';
import { nowMs, nowUtcString } from './clock.ts';
import { orderCompleted, orderErrorToHttp } from './orders.ts';
import { presentOrders } from './order-present.ts';
import { providerOf } from './ticket-write.ts';

/** The anonymous visitor's cart cookie (CONTRACT section 5). */
export const CART_COOKIE = 'evt_cart';
const CART_COOKIE_SECONDS = 30 * 24 * 3600;

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Whose cart this request reads and writes; null for a visitor without a cart cookie yet. */
function ownerOf(ctx: Ctx): string | null {
  const c = ctx.caller;
  if (c.kind !== 'anonymous') return callerTag(c);
  const token = ctx.req.cookies[CART_COOKIE];
  return token && /^[0-9a-f]{48}$/.test(token) ? `cookie:${hashToken(token)}` : null;
}

/** The owner for a write: a visitor without a cookie gets one (and later batch items see it too). */
function ownerForWrite(ctx: Ctx): string {
  const existing = ownerOf(ctx);
  if (existing) return existing;
  const token = crypto.randomBytes(24).toString('hex');
  ctx.setCookie?.(CART_COOKIE, token, CART_COOKIE_SECONDS);
  ctx.req.cookies[CART_COOKIE] = token;
  return `cookie:${hashToken(token)}`;
}

/** The cart's tickets by ID, and a test that one can be bought (published, on a published post). */
function cartTickets(ctx: Ctx, ids: readonly number[]): { tickets: Map<number, TicketRow>; purchasable: (t: TicketRow | undefined) => t is TicketRow } {
  const tickets = new Map(getTicketRows(ctx.db, ids).map((t) => [t.id, t]));
  const parents = parentPosts(ctx.db, [...new Set([...tickets.values()].map((t) => t.event_id))]);
  return { tickets, purchasable: (t): t is TicketRow => !!t && t.status === 'publish' && parents.get(t.event_id)?.status === 'publish' };
}

/** `post_id` must name a post (400) that has tickets (403 `post-has-no-tickets`, with an empty message). */
function checkPost(ctx: Ctx, postId: number | undefined): void {
  if (postId === undefined) return;
  if (!getPost(ctx.db, postId)) throw invalidParam('post_id');
  if (!postHasTickets(ctx.db, postId)) throw new HttpError(403, 'post-has-no-tickets', '');
}

function cartBody(ctx: Ctx, providers: string[] | undefined, postId: number | undefined) {
  const owner = ownerOf(ctx);
  const cart = owner ? findCart(ctx.db, owner) : undefined;
  const lines = cart ? cartItems(ctx.db, cart.id) : [];
  const { tickets, purchasable } = cartTickets(ctx, lines.map((l) => l.ticket_id));
  const wanted = providers?.map((p) => providerOf(p) ?? p);
  const shown = lines.filter((l) => purchasable(tickets.get(l.ticket_id)) && (!wanted || wanted.includes(l.provider)) && (postId === undefined || l.event_id === postId));
  let meta: unknown = [];
  try {
    meta = cart ? JSON.parse(cart.meta) : [];
  } catch {
    meta = [];
  }
  return {
    tickets: shown.map((l) => ({ ticket_id: l.ticket_id, quantity: l.quantity, post_id: l.event_id, optout: l.optout ? 1 : 0, iac: l.iac })),
    meta,
    cart_url: '',
    checkout_url: '',
  };
}

const read = implement(ticketsRoutes.readCart, (input, ctx) => {
  checkPost(ctx, input.post_id);
  return ok(cartBody(ctx, input.provider, input.post_id));
});

const int = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
};

/** `tickets` lines: `{ticket_id, quantity, optout?, iac?}` each, one per ticket. */
function parseLines(raw: unknown[] | undefined): CartLine[] {
  const out = new Map<number, CartLine>();
  for (const item of raw ?? []) {
    if (!item || typeof item !== 'object') throw invalidParam('tickets', 'Each ticket must be an object with ticket_id and quantity.');
    const o = item as Record<string, unknown>;
    const ticketId = int(o.ticket_id);
    const quantity = int(o.quantity);
    if (ticketId === null || ticketId < 1 || quantity === null || quantity < 0) throw invalidParam('tickets', 'Each ticket needs a positive ticket_id and a quantity of 0 or more.');
    const optout = o.optout === true || o.optout === 1 || o.optout === '1' || o.optout === 'true' || o.optout === 'yes';
    out.set(ticketId, { ticketId, quantity, optout, iac: typeof o.iac === 'string' && o.iac ? o.iac : 'none' });
  }
  return [...out.values()];
}

const update = implement(ticketsRoutes.updateCart, (input, ctx) => {
  const provider = providerOf(input.provider);
  if (!provider) throw invalidParam('provider', 'Unknown ticket provider.');
  checkPost(ctx, input.post_id);
  const lines = parseLines(input.tickets);
  const { tickets, purchasable } = cartTickets(ctx, lines.map((l) => l.ticketId));
  const stats = ticketStats(ctx.db, [...tickets.keys()]);
  for (const l of lines) {
    const t = tickets.get(l.ticketId);
    if (!purchasable(t)) throw new HttpError(400, 'ticket-does-not-exist', `The ticket #${l.ticketId} does not exist.`, { ticket_id: l.ticketId });
    if (t.provider !== provider) throw invalidParam('tickets', `The ticket #${l.ticketId} is not provided by ${provider}.`);
    if (input.post_id !== undefined && t.event_id !== input.post_id) throw invalidParam('tickets', `The ticket #${l.ticketId} is not a ticket of post ${input.post_id}.`);
    const available = availableOf(t.capacity, stats.get(t.id) ?? EMPTY_STATS);
    if (available >= 0 && l.quantity > available) {
      throw new HttpError(400, 'ticket-capacity-not-available', `The ticket "${t.title}" does not have that many available for purchase.`, { ticket_id: t.id, available });
    }
  }
  replaceCartLines(ctx.db, ownerForWrite(ctx), { provider, postId: input.post_id ?? null, meta: input.meta ?? [], lines, nowUtc: nowUtcString(ctx) });
  return ok(cartBody(ctx, [provider], input.post_id));
});

const checkout = implement(ticketsRoutes.checkout, (input, ctx) => {
  const owner = ownerOf(ctx);
  const cart = owner ? findCart(ctx.db, owner) : undefined;
  const lines = cart ? cartItems(ctx.db, cart.id) : [];
  const now = nowDates(ctx.app.config.timezone, new Date(nowMs(ctx)));
  let made;
  try {
    made = createOrder(ctx.db, {
      purchaserName: input.purchaser_name,
      purchaserEmail: input.purchaser_email,
      userId: ctx.caller.kind === 'user' ? ctx.caller.userId : 0,
      items: lines.map((l) => ({ ticketId: l.ticket_id, quantity: l.quantity, optout: l.optout === 1 })),
      date: now.date,
      dateGmt: now.date_gmt,
      checkSaleWindow: true,
    });
  } catch (e) {
    throw e instanceof OrderError ? orderErrorToHttp(e) : e;
  }
  emptyCart(ctx.db, cart!.id);
  if (made.status === 'completed') orderCompleted(ctx, made.orderId);
  return created(presentOrders(ctx, [getOrderRow(ctx.db, made.orderId)!])[0]);
});

export const cartEndpoints: Endpoint[] = [read, update, checkout];
