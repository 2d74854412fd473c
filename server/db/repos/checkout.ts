import type { Db } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';
import { cartItems, findCart, type CartItemRow, type CartRow } from './carts.ts';
import { lockCartOf, lockLimitKey, lockTicketRows, LIMIT_LOCK_SPACE } from './locks.ts';
import { placesHeldBy } from './orders.ts';
import { rateLimitedSince } from './shared-state.ts';
import { getTicketRows, parentPosts, ticketStats, type ParentPost, type TicketRow } from './tickets.ts';
import type { PlacesTaken } from '../../domain/capacity.ts';

/**
 * What a checkout decides on, read under the locks that keep it exact (repos/locks.ts, in its order: the checkout
 * limit keys, the cart, the cart's tickets): the cart and its lines, the tickets with the places they have taken,
 * the checkouts the limiter counted and the places the buyer's address holds. SQLite reads them statement by
 * statement (the database is the lock); PostgreSQL takes every lock in one statement and reads everything in a
 * second one, whose snapshot is taken after the locks were granted (a statement that waited for a lock reads
 * with the snapshot it started with, so the reads cannot go in the locking statement).
 */
export interface CheckoutState {
  cart: CartRow | undefined;
  lines: CartItemRow[];
  /** The cart's tickets, read under their locks, by ID. */
  tickets: Map<number, TicketRow>;
  /** Places each of them has sold and has held by pending orders, counted under the locks. */
  taken: Map<number, PlacesTaken>;
  /** The limiter's answer (`rateLimitedSince`, the latest over the keys) when `rate` was asked. */
  rateAt: number | undefined;
  /** Places the hold client holds in pending orders, when `holdClient` was given. */
  held: number;
}

/** The limiter read folded into the checkout's (see DbWindowLimiter.lookup). */
export interface RateLookup {
  name: string;
  /** The keys as held (`held(key)`). */
  keys: string[];
  afterMs: number;
  max: number;
}

export interface CheckoutQuery {
  /** The checkout limiter's keys (client addresses): their advisory locks first, in sorted order. */
  limitKeys: readonly string[];
  owner: string | null;
  rate?: RateLookup;
  holdClient?: string;
  nowUtc: string;
}

/** The advisory lock key of a limiter key, as lockLimitKey names it. */
const limitLockKey = (k: string) => `checkout:${k}`;

// PostgreSQL, written for it. The locks, in the one lock order: the limit keys' advisory locks (sorted), the cart
// row, then the rows of the tickets its lines name (ascending IDs). The cart's lines are read with the snapshot
// the statement started with; readCheckout checks them against the tickets locked here and locks what a cart
// write committed meanwhile added.
const PG_LOCK_CHECKOUT = `WITH k AS MATERIALIZED (
  SELECT pg_advisory_xact_lock($1::int, hashtext(x)) FROM unnest($2::text[]) AS x ORDER BY x
), c AS MATERIALIZED (
  SELECT * FROM carts WHERE owner = $3::text AND (SELECT count(*) FROM k) >= 0 FOR NO KEY UPDATE
), t AS (
  SELECT post_id FROM tickets WHERE post_id IN (SELECT ci.ticket_id FROM cart_items ci JOIN c ON ci.cart_id = c.id) ORDER BY post_id FOR NO KEY UPDATE
)
SELECT c.*, (SELECT count(*) FROM k) AS evt_keys, (SELECT json_agg(post_id) FROM t) AS evt_locked FROM (SELECT 1) AS one LEFT JOIN c ON true`;

// The reads, after the locks: the limiter's count, the places the address holds, the cart's lines, and per
// ticket its row with the places it has taken (tickets.ts ticketStats' sold and pending, counted at $7 by
// evt_places_taken, migrations-pg/026: planned for each ticket, not once for all).
const PG_READ_CHECKOUT = `WITH items AS (
  SELECT ci.ticket_id, ci.quantity, ci.optout, ci.iac, t.provider, t.event_id, t.price_minor
  FROM cart_items ci JOIN tickets t ON t.post_id = ci.ticket_id WHERE ci.cart_id = $1::bigint
)
SELECT
  (SELECT max(r.at_ms) FROM unnest($3::text[]) AS k(key), LATERAL (
     SELECT e.at_ms FROM evt_rate_events e WHERE e.name = $2::text AND e.key = k.key AND e.at_ms > $4::bigint
     ORDER BY e.at_ms DESC, e.id DESC LIMIT 1 OFFSET $5::int - 1) r) AS evt_rate_at,
  CASE WHEN $6::text IS NULL THEN 0 ELSE (
     SELECT COALESCE(SUM(oi.quantity), 0) FROM orders o JOIN order_items oi ON oi.order_id = o.post_id
     WHERE o.hold_client = $6::text AND o.status = 'pending' AND (o.hold_until_utc IS NULL OR o.hold_until_utc > $7::text)) END AS evt_held,
  (SELECT json_agg(items ORDER BY ticket_id) FROM items) AS evt_items,
  s.sold AS evt_sold, s.pending AS evt_pending, p.*, d.*
FROM (SELECT 1) AS one
LEFT JOIN (tickets d JOIN posts p ON p.id = d.post_id) ON d.post_id IN (SELECT ticket_id FROM items)
LEFT JOIN LATERAL evt_places_taken(d.post_id, $7::text) s ON d.post_id IS NOT NULL
ORDER BY d.post_id`;

type ReadRow = TicketRow & {
  evt_rate_at: number | null;
  evt_held: number | null;
  evt_items: string | null;
  evt_sold: number | null;
  evt_pending: number | null;
};

/** The checkout's locks and reads (see CheckoutState): two statements on PostgreSQL, whatever the cart holds. */
export async function lockAndReadCheckout(db: Db, q: CheckoutQuery): Promise<CheckoutState> {
  if (db.engine !== 'postgres') return await lockAndReadEach(db, q);
  const pg = db as PgDb;
  const keys = [...new Set(q.limitKeys)].map(limitLockKey);
  const locked = (await pg.native(PG_LOCK_CHECKOUT, [String(LIMIT_LOCK_SPACE), keys, q.owner]))[0] as unknown as CartRow & {
    evt_keys: number;
    evt_locked: string | null;
  };
  const { evt_keys: _, evt_locked, ...cartCols } = locked;
  const cart = cartCols.id === null || cartCols.id === undefined ? undefined : (cartCols as CartRow);
  const lockedIds = new Set<number>(evt_locked ? (JSON.parse(evt_locked) as number[]) : []);
  let state = await readCheckout(pg, cart, q);
  // A cart write that committed while this waited for the cart's lock may have added tickets the lock statement
  // did not see: their locks now (after the cart's, in the lock order), and the reads again.
  const missing = state.lines.map((l) => l.ticket_id).filter((id) => !lockedIds.has(id));
  if (missing.length) {
    await lockTicketRows(db, missing);
    state = await readCheckout(pg, cart, q);
  }
  return state;
}

async function readCheckout(pg: PgDb, cart: CartRow | undefined, q: CheckoutQuery): Promise<CheckoutState> {
  const rate = q.rate;
  const rows = (await pg.native(
    PG_READ_CHECKOUT,
    [
      cart ? String(cart.id) : null,
      rate?.name ?? '',
      rate?.keys ?? [],
      String(rate?.afterMs ?? 0),
      String(rate?.max ?? 1),
      q.holdClient ?? null,
      q.nowUtc,
    ],
    { plan: 'generic' },
  )) as unknown as ReadRow[];
  const first = rows[0];
  const tickets = new Map<number, TicketRow>();
  const taken = new Map<number, PlacesTaken>();
  for (const r of rows) {
    const { evt_rate_at: _a, evt_held: _h, evt_items: _i, evt_sold, evt_pending, ...ticket } = r;
    if (ticket.id === null || ticket.id === undefined) continue;
    tickets.set(ticket.id, ticket as TicketRow);
    taken.set(ticket.id, { sold: evt_sold ?? 0, pending: evt_pending ?? 0 });
  }
  return {
    cart,
    lines: first?.evt_items ? (JSON.parse(first.evt_items) as CartItemRow[]) : [],
    tickets,
    taken,
    rateAt: first?.evt_rate_at ?? undefined,
    held: first?.evt_held ?? 0,
  };
}

/** SQLite (and the reference for PostgreSQL's two statements): the same locks and reads, one statement each. */
async function lockAndReadEach(db: Db, q: CheckoutQuery): Promise<CheckoutState> {
  for (const k of [...new Set(q.limitKeys)].sort()) await lockLimitKey(db, 'checkout', k);
  let rateAt: number | undefined;
  for (const key of q.rate?.keys ?? []) {
    const at = await rateLimitedSince(db, q.rate!.name, key, q.rate!.afterMs, q.rate!.max);
    if (at !== undefined && (rateAt === undefined || at > rateAt)) rateAt = at;
  }
  const cart = q.owner ? await (db.engine === 'postgres' ? lockCartOf(db, q.owner) : findCart(db, q.owner)) : undefined;
  const lines = cart ? await cartItems(db, cart.id) : [];
  const held = q.holdClient ? await placesHeldBy(db, q.holdClient, q.nowUtc) : 0;
  const ids = [...new Set(lines.map((l) => l.ticket_id))];
  const tickets = new Map((await lockTicketRows(db, ids)).map((t) => [t.id, t]));
  const stats = await ticketStats(db, [...tickets.keys()]);
  const taken = new Map([...stats].map(([id, s]) => [id, { sold: s.sold, pending: s.pending }]));
  return { cart, lines, tickets, taken, rateAt, held };
}

/** A cart write's tickets: their rows, their posts' parents (purchasable only on a published post), the places they have taken. */
export interface CartTickets {
  tickets: Map<number, TicketRow>;
  parents: Map<number, ParentPost>;
  taken: Map<number, PlacesTaken>;
}

// PostgreSQL, written for it: the tickets with their parent posts and the places they have taken (as
// PG_READ_CHECKOUT counts them, at $2), in one statement; no locks (a cart holds no places).
export const PG_CART_TICKETS = `SELECT ep.id AS evt_parent_id, ep.status AS evt_parent_status, ep.password AS evt_parent_password,
  ep.image_id AS evt_parent_image_id, s.sold AS evt_sold, s.pending AS evt_pending, p.*, d.*
FROM tickets d JOIN posts p ON p.id = d.post_id LEFT JOIN posts ep ON ep.id = d.event_id
LEFT JOIN LATERAL evt_places_taken(d.post_id, $2::text) s ON true
WHERE d.post_id = ANY($1::bigint[])`;

/** The tickets a cart write names (CartTickets): one statement on PostgreSQL, three on SQLite. */
export async function readCartTickets(db: Db, ids: readonly number[], nowUtc: string): Promise<CartTickets> {
  const unique = [...new Set(ids)];
  if (db.engine !== 'postgres') {
    const tickets = new Map((await getTicketRows(db, unique)).map((t) => [t.id, t]));
    const parents = await parentPosts(db, [...new Set([...tickets.values()].map((t) => t.event_id))]);
    const stats = await ticketStats(db, [...tickets.keys()]);
    return { tickets, parents, taken: new Map([...stats].map(([id, s]) => [id, { sold: s.sold, pending: s.pending }])) };
  }
  const out: CartTickets = { tickets: new Map(), parents: new Map(), taken: new Map() };
  if (!unique.length) return out;
  const rows = (await (db as PgDb).native(PG_CART_TICKETS, [unique, nowUtc], { plan: 'generic' })) as unknown as (TicketRow & {
    evt_parent_id: number | null;
    evt_parent_status: string;
    evt_parent_password: string;
    evt_parent_image_id: number;
    evt_sold: number | null;
    evt_pending: number | null;
  })[];
  for (const r of rows) {
    const { evt_parent_id, evt_parent_status, evt_parent_password, evt_parent_image_id, evt_sold, evt_pending, ...ticket } = r;
    out.tickets.set(ticket.id, ticket as TicketRow);
    out.taken.set(ticket.id, { sold: evt_sold ?? 0, pending: evt_pending ?? 0 });
    if (evt_parent_id !== null)
      out.parents.set(evt_parent_id, { id: evt_parent_id, status: evt_parent_status, password: evt_parent_password, image_id: evt_parent_image_id });
  }
  return out;
}
