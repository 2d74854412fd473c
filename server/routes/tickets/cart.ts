import { lockCartOf } from '../../db/repos/locks.ts';
import { lockAndReadCheckout, readCartTickets } from '../../db/repos/checkout.ts';
import { DbWindowLimiter } from '../../security/db-window-limiter.ts';
import { heldPlacesRefusal, holdsPlaces } from '../../domain/capacity.ts';
import crypto from 'node:crypto';
import { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import { callerRole, callerTag, type Ctx } from '../../kernel/context.ts';
import { HttpError, forbidden, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok, type Result } from '../../kernel/result.ts';
import { nowDates } from '../../content/site-time.ts';
import { CART_LIFETIME_SECONDS, cartItems, findCart, writeCart, type CartItemRow, type CartLine } from '../../db/repos/carts.ts';
import { addMinutesUtc, createOrderLocked, OrderError, OrderTooLargeError } from '../../db/repos/orders.ts';
import { clientKey } from '../../security/window-limiter.ts';
import type { AppState } from '../../kernel/context.ts';
import { getPost } from '../../db/repos/posts.ts';
import { availableOf, EMPTY_STATS, getTicketRows, parentPosts, postHasTickets, type TicketRow } from '../../db/repos/tickets.ts';
import { appLimiter, nowMs, nowUtcString } from './clock.ts';
import { orderCompleted, orderErrorToHttp } from './orders.ts';
import { presentOrders } from './order-present.ts';
import { providerOf } from './ticket-write.ts';

/** The anonymous visitor's cart cookie (CONTRACT section 5). */
export const CART_COOKIE = 'evt_cart';
const CART_COOKIE_SECONDS = CART_LIFETIME_SECONDS;

/**
 * Bounds on what a caller can make the server hold or write (CONTRACT section 3): at most
 * `maxTicketsPerOrder` tickets per cart line and per cart (a cart becomes one order), few lines per write,
 * small meta; anonymous checkouts and new visitor carts are limited per client address.
 */
export const MAX_LINES_PER_WRITE = 100;
export const MAX_META_BYTES = 64 * 1024;
const MAX_IAC_LENGTH = 64;
/** Anonymous checkouts per client address in a sliding window. */
export const CHECKOUT_LIMIT = { max: 10, windowMs: 10 * 60_000 };
/** New visitor carts (first cart write without a cart cookie) per client address in a sliding window. */
export const NEW_CART_LIMIT = { max: 60, windowMs: 10 * 60_000 };

export const checkoutLimiter = (app: AppState) => appLimiter(app, 'checkoutLimiter', CHECKOUT_LIMIT);
const newCartLimiter = (app: AppState) => appLimiter(app, 'newCartLimiter', NEW_CART_LIMIT);

/** `429 rest_too_many_requests` with `Retry-After`, as the QR check-in answers it. */
function tooMany(wait: number, what: string): Result {
  const e = new HttpError(429, 'rest_too_many_requests', `Too many ${what} from this address. Try again in ${wait} seconds.`);
  return { status: 429, body: e.body(), isError: true, headers: { 'Retry-After': String(wait) } };
}

/** The one error for too many tickets (per line or per order): `rest_invalid_param` on `tickets`, coded. */
const overLimit = (max: number) => invalidParam('tickets', `At most ${max} tickets per ticket line and per order.`, 'tickets-over-limit');

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
async function cartTickets(
  ctx: Ctx,
  ids: readonly number[],
): Promise<{ tickets: Map<number, TicketRow>; purchasable: (t: TicketRow | undefined) => t is TicketRow }> {
  const tickets = new Map((await getTicketRows(ctx.db, ids)).map((t) => [t.id, t]));
  const parents = await parentPosts(ctx.db, [...new Set([...tickets.values()].map((t) => t.event_id))]);
  return { tickets, purchasable: (t): t is TicketRow => !!t && t.status === 'publish' && parents.get(t.event_id)?.status === 'publish' };
}

/** `post_id` must name a post (400) that has tickets (403 `post-has-no-tickets`, with an empty message). */
async function checkPost(ctx: Ctx, postId: number | undefined): Promise<void> {
  if (postId === undefined) return;
  if (!(await getPost(ctx.db, postId))) throw invalidParam('post_id');
  if (!(await postHasTickets(ctx.db, postId))) throw new HttpError(403, 'post-has-no-tickets', '');
}

async function cartBody(ctx: Ctx, providers: string[] | undefined, postId: number | undefined) {
  const owner = ownerOf(ctx);
  const cart = owner ? await findCart(ctx.db, owner) : undefined;
  const lines = cart ? await cartItems(ctx.db, cart.id) : [];
  const { tickets, purchasable } = await cartTickets(
    ctx,
    lines.map((l) => l.ticket_id),
  );
  const wanted = providers?.map((p) => providerOf(p) ?? p);
  const shown = lines.filter(
    (l) => purchasable(tickets.get(l.ticket_id)) && (!wanted || wanted.includes(l.provider)) && (postId === undefined || l.event_id === postId),
  );
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

const read = implement(ticketsRoutes.readCart, async (input, ctx) => {
  await checkPost(ctx, input.post_id);
  return ok(await cartBody(ctx, input.provider, input.post_id));
});

const int = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
};

/** `tickets` lines: `{ticket_id, quantity, optout?, iac?}` each, one per ticket, `max` tickets a line at most. */
function parseLines(raw: unknown[] | undefined, max: number): CartLine[] {
  const out = new Map<number, CartLine>();
  if ((raw?.length ?? 0) > MAX_LINES_PER_WRITE) throw invalidParam('tickets', `At most ${MAX_LINES_PER_WRITE} ticket lines per request.`);
  for (const item of raw ?? []) {
    if (!item || typeof item !== 'object') throw invalidParam('tickets', 'Each ticket must be an object with ticket_id and quantity.');
    const o = item as Record<string, unknown>;
    const ticketId = int(o.ticket_id);
    const quantity = int(o.quantity);
    if (ticketId === null || ticketId < 1 || quantity === null || quantity < 0)
      throw invalidParam('tickets', 'Each ticket needs a positive ticket_id and a quantity of 0 or more.');
    if (quantity > max) throw overLimit(max);
    if (typeof o.iac === 'string' && o.iac.length > MAX_IAC_LENGTH)
      throw invalidParam('tickets', `An iac value has at most ${MAX_IAC_LENGTH} characters.`);
    const optout = o.optout === true || o.optout === 1 || o.optout === '1' || o.optout === 'true' || o.optout === 'yes';
    out.set(ticketId, { ticketId, quantity, optout, iac: typeof o.iac === 'string' && o.iac ? o.iac : 'none' });
  }
  return [...out.values()];
}

const update = implement(ticketsRoutes.updateCart, async (input, ctx): Promise<Result> => {
  refuseDoor(ctx);
  const provider = providerOf(input.provider);
  await checkPost(ctx, input.post_id);
  // As the original: a provider it does not know has no tickets, so the write changes nothing and the answer
  // is the cart as that provider sees it (empty).
  if (!provider) return ok(await cartBody(ctx, [input.provider], input.post_id));
  const max = ctx.app.config.maxTicketsPerOrder;
  const lines = parseLines(input.tickets, max);
  if (input.meta !== undefined && Buffer.byteLength(JSON.stringify(input.meta)) > MAX_META_BYTES)
    throw invalidParam('meta', `The meta may take at most ${MAX_META_BYTES} bytes.`);
  // The tickets, their posts and the places they have taken, in one read (repos/checkout.ts).
  const { tickets, parents, taken } = await readCartTickets(
    ctx.db,
    lines.map((l) => l.ticketId),
    nowUtcString(ctx),
  );
  const purchasable = (t: TicketRow | undefined): t is TicketRow => !!t && t.status === 'publish' && parents.get(t.event_id)?.status === 'publish';
  for (const l of lines) {
    const t = tickets.get(l.ticketId);
    if (!purchasable(t)) throw new HttpError(400, 'ticket-does-not-exist', `The ticket #${l.ticketId} does not exist.`, { ticket_id: l.ticketId });
    if (t.provider !== provider) throw invalidParam('tickets', `The ticket #${l.ticketId} is not provided by ${provider}.`);
    if (input.post_id !== undefined && t.event_id !== input.post_id)
      throw invalidParam('tickets', `The ticket #${l.ticketId} is not a ticket of post ${input.post_id}.`);
    const available = availableOf(t.capacity, taken.get(t.id) ?? EMPTY_STATS);
    if (available >= 0 && l.quantity > available) {
      throw new HttpError(400, 'ticket-capacity-not-available', `The ticket "${t.title}" does not have that many available for purchase.`, {
        ticket_id: t.id,
        available,
      });
    }
  }
  // The cart becomes one order: the lines this write keeps plus the new ones stay within one order's bound.
  const owner = ownerOf(ctx);
  // The lines are read and replaced under the cart's lock (db/repos/locks.ts), taken as the cart is read: two
  // writes to one cart take turns.
  const cart = owner ? await lockCartOf(ctx.db, owner) : undefined;
  const kept = cart
    ? (await cartItems(ctx.db, cart.id)).filter((l) => !(l.provider === provider && (input.post_id === undefined || l.event_id === input.post_id)))
    : [];
  const total = kept.reduce((n, l) => n + l.quantity, 0) + lines.reduce((n, l) => n + l.quantity, 0);
  if (total > max) throw overLimit(max);
  if (!cart && ctx.caller.kind === 'anonymous') {
    // A visitor's first cart: nothing to keep for an empty write; new carts per address are limited.
    if (!lines.some((l) => l.quantity > 0)) return ok(await cartBody(ctx, [provider], input.post_id));
    const keys = [clientKey(ctx.req.ip)];
    const limiter = newCartLimiter(ctx.app);
    // Counted where it is checked: one statement for both when the limiter is the database's.
    const wait = limiter instanceof DbWindowLimiter ? await limiter.take(keys) : await limiter.retryAfter(keys);
    if (wait > 0) return tooMany(wait, 'new carts');
    if (!(limiter instanceof DbWindowLimiter)) await limiter.record(keys);
  }
  const meta = input.meta ?? [];
  await writeCart(ctx.db, ownerForWrite(ctx), {
    provider,
    postId: input.post_id ?? null,
    meta,
    lines,
    nowUtc: nowUtcString(ctx),
    newCart: !cart,
  });
  // The cart as this provider (and post) sees it now: exactly the lines just written (the write replaced all
  // of theirs, and each passed the checks above), by ticket, as cartBody would read them back.
  const shown = lines.filter((l) => l.quantity > 0).sort((a, b) => a.ticketId - b.ticketId);
  return ok({
    tickets: shown.map((l) => ({
      ticket_id: l.ticketId,
      quantity: l.quantity,
      post_id: tickets.get(l.ticketId)!.event_id,
      optout: l.optout ? 1 : 0,
      iac: l.iac,
    })),
    meta: JSON.parse(JSON.stringify(meta)) as unknown,
    cart_url: '',
    checkout_url: '',
  });
});

/**
 * Door devices and door staff buy nothing (CONTRACT section 3: a door role changes nothing but check-in state and
 * creates attendees at the door, `POST /attendees`); a cart write or checkout of theirs is `403 rest_forbidden`.
 */
function refuseDoor(ctx: Ctx): void {
  if (callerRole(ctx.caller) === 'door')
    throw forbidden(false, 'Door devices and door staff cannot buy tickets: register guests at the door instead.');
}

/** Anonymous checkouts are limited per client address; signed-in buyers (organizers, administrators) answer for their own. */
function checkoutKeys(ctx: Ctx): string[] {
  return ctx.caller.kind === 'anonymous' ? [clientKey(ctx.req.ip)] : [];
}

/** An anonymous buyer's client address as orders keep it: a digest keyed with the site secret, never the address. */
function holdClient(ctx: Ctx): string | undefined {
  if (ctx.caller.kind !== 'anonymous') return undefined;
  return crypto
    .createHmac('sha256', ctx.app.secret)
    .update(`hold\u0000${clientKey(ctx.req.ip)}`)
    .digest('base64url')
    .slice(0, 32);
}

/**
 * One client address holds at most `maxTicketsPerOrder` places in pending orders at a time (CONTRACT section 3):
 * 429 when this checkout's order would be pending and take it past that (domain/capacity.ts). Free orders
 * complete at once and hold nothing; signed-in buyers answer for their own. `held`: the places the address
 * holds, read with the cart (repos/checkout.ts).
 */
function holdRefusal(ctx: Ctx, client: string | undefined, lines: readonly CartItemRow[], held: number): Result | null {
  if (!holdsPlaces(client, lines)) return null;
  const wanted = lines.reduce((n, l) => n + l.quantity, 0);
  const max = ctx.app.services.maxHeldPlaces ?? ctx.app.config.maxTicketsPerOrder;
  const refused = heldPlacesRefusal(held, wanted, max);
  if (!refused) return null;
  const e = new HttpError(
    429,
    'rest_too_many_requests',
    `This address already holds ${refused.held} places in unpaid orders, and at most ${refused.max} at a time. Pay or wait until a hold runs out.`,
  );
  return { status: 429, body: e.body(), isError: true, headers: { 'Retry-After': String(60) } };
}

const checkout = implement(ticketsRoutes.checkout, async (input, ctx): Promise<Result> => {
  refuseDoor(ctx);
  const limitKeys = checkoutKeys(ctx);
  const limiter = checkoutLimiter(ctx.app);
  // A limiter counted in the database is read with the cart and recorded with the order (no statements of its own).
  const folded = limiter instanceof DbWindowLimiter && limitKeys.length ? limiter.fold(limitKeys) : undefined;
  const client = holdClient(ctx);
  // The checkout count and the places held per address are read and recorded in this transaction, under the
  // keys' locks; the cart's lines are read and emptied under the cart's lock (a cart is checked out once); the
  // places are counted under the tickets' locks (repos/checkout.ts, repos/locks.ts).
  const state = await lockAndReadCheckout(ctx.db, {
    limitKeys,
    owner: ownerOf(ctx),
    rate: folded,
    holdClient: client,
    nowUtc: nowUtcString(ctx),
  });
  const wait = folded ? folded.wait(state.rateAt) : await limiter.retryAfter(limitKeys);
  if (wait > 0) return tooMany(wait, 'checkouts');
  const { cart, lines } = state;
  const refused = holdRefusal(ctx, client, lines, state.held);
  if (refused) return refused;
  const now = nowDates(ctx.app.config.timezone, new Date(nowMs(ctx)));
  let made;
  try {
    made = await createOrderLocked(
      ctx.db,
      {
        purchaserName: input.purchaser_name,
        purchaserEmail: input.purchaser_email,
        userId: ctx.caller.kind === 'user' ? ctx.caller.userId : 0,
        items: lines.map((l) => ({ ticketId: l.ticket_id, quantity: l.quantity, optout: l.optout === 1 })),
        date: now.date,
        dateGmt: now.date_gmt,
        checkSaleWindow: true,
        maxTickets: ctx.app.config.maxTicketsPerOrder,
        holdUntilUtc: addMinutesUtc(now.date_gmt, ctx.app.config.orderHoldMinutes),
        holdClient: client,
      },
      state.tickets,
      state.taken,
      // An order is never made from no cart (no lines: `cart-empty` before any write).
      { cart, rate: folded },
    );
  } catch (e) {
    if (e instanceof OrderTooLargeError)
      throw new HttpError(400, 'tickets-over-limit', `At most ${e.max} tickets per ticket line and per order.`, { max: e.max });
    throw e instanceof OrderError ? orderErrorToHttp(e) : e;
  }
  if (folded) await (limiter as DbWindowLimiter).sweepIfDue();
  else await limiter.record(limitKeys);
  if (made.status === 'completed') await orderCompleted(ctx, made.orderId);
  // The order as inserted (the mail listeners only read it), with its lines as written: one per cart line, by ticket.
  const items = [...lines]
    .sort((a, b) => a.ticket_id - b.ticket_id)
    .map((l) => {
      const t = state.tickets.get(l.ticket_id)!;
      return {
        order_id: made.orderId,
        ticket_id: t.id,
        quantity: l.quantity,
        price_minor: t.price_minor,
        event_id: t.event_id,
        title: t.title,
        title_et: t.title_et,
      };
    });
  return created((await presentOrders(ctx, [made.row], { items, attendeeIds: made.attendeeIds }))[0]);
});

export const cartEndpoints: Endpoint[] = [read, update, checkout];
