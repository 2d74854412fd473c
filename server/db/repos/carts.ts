import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';

/** A cart, one per owner: `user:<id>`, `key:<api key id>` or `cookie:<sha-256 of the visitor's cookie>`. */
export interface CartRow {
  id: number;
  owner: string;
  provider: string;
  post_id: number;
  meta: string;
  updated_utc: string;
}

export interface CartItemRow {
  ticket_id: number;
  quantity: number;
  optout: number;
  iac: string;
  /** Joined from the ticket. */
  provider: string;
  event_id: number;
  price_minor: number;
}

export async function findCart(db: Db, owner: string): Promise<CartRow | undefined> {
  return (await statement(db, 'SELECT * FROM carts WHERE owner = ?').get(owner)) as CartRow | undefined;
}

/** The cart's lines, by ticket ID. */
export async function cartItems(db: Db, cartId: number): Promise<CartItemRow[]> {
  return (await statement(
    db,
    `SELECT ci.ticket_id, ci.quantity, ci.optout, ci.iac, t.provider, t.event_id, t.price_minor
     FROM cart_items ci JOIN tickets t ON t.post_id = ci.ticket_id WHERE ci.cart_id = ? ORDER BY ci.ticket_id`,
  ).all(cartId)) as CartItemRow[];
}

export interface CartLine {
  ticketId: number;
  quantity: number;
  optout: boolean;
  iac: string;
}

/**
 * Replaces the lines the write covers (those of `provider`, and of `postId` when given) with `lines`; other
 * lines stay, as each Event Tickets provider keeps its own cart. Creates the cart on first write.
 */
export async function replaceCartLines(
  db: Db,
  owner: string,
  w: { provider: string; postId: number | null; meta: unknown[]; lines: CartLine[]; nowUtc: string },
): Promise<CartRow> {
  await statement(
    db,
    `INSERT INTO carts (owner, provider, post_id, meta, updated_utc) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(owner) DO UPDATE SET provider = excluded.provider, post_id = excluded.post_id, meta = excluded.meta, updated_utc = excluded.updated_utc`,
  ).run(owner, w.provider, w.postId ?? 0, JSON.stringify(w.meta), w.nowUtc);
  const cart = (await findCart(db, owner))!;
  await statement(
    db,
    `DELETE FROM cart_items WHERE cart_id = ? AND ticket_id IN (
       SELECT post_id FROM tickets WHERE provider = ? AND (CAST(? AS BIGINT) IS NULL OR event_id = ?))`,
  ).run(cart.id, w.provider, w.postId, w.postId);
  const put = statement(
    db,
    `INSERT INTO cart_items (cart_id, ticket_id, quantity, optout, iac) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(cart_id, ticket_id) DO UPDATE SET quantity = excluded.quantity, optout = excluded.optout, iac = excluded.iac`,
  );
  for (const l of w.lines) if (l.quantity > 0) await put.run(cart.id, l.ticketId, l.quantity, l.optout ? 1 : 0, l.iac);
  return cart;
}

/**
 * A cart write: `replaceCartLines`, after `makeRoomForCart` for a new cart (`newCart`: the owner had none when
 * its lock was asked). PostgreSQL: one statement (room made, cart upserted, the covered lines that stay out
 * deleted, the new ones upserted); SQLite: one per step.
 */
export async function writeCart(
  db: Db,
  owner: string,
  w: { provider: string; postId: number | null; meta: unknown[]; lines: CartLine[]; nowUtc: string; newCart: boolean },
  max = MAX_CARTS,
): Promise<void> {
  if (db.engine !== 'postgres') {
    if (w.newCart) await makeRoomForCart(db, max);
    await replaceCartLines(db, owner, w);
    return;
  }
  const put = w.lines.filter((l) => l.quantity > 0);
  const r = (
    await (db as PgDb).native(PG_WRITE_CART, [
      owner,
      w.provider,
      String(w.postId ?? 0),
      JSON.stringify(w.meta),
      w.nowUtc,
      w.postId === null ? null : String(w.postId),
      put.map((l) => l.ticketId),
      put.map((l) => l.quantity),
      w.newCart,
      String(max),
      put.map((l) => (l.optout ? 1 : 0)),
      put.map((l) => l.iac),
    ])
  )[0] as { written: number };
  // The cart's row and what the other parts wrote (the command tag counts none of them).
  (db as PgDb).countWritten(1 + Number(r.written));
}

// PostgreSQL, written for it (see writeCart). The lines the write puts are not among those deleted: one
// statement cannot delete a row and upsert it too, and the upsert replaces them.
const PG_WRITE_CART = `WITH room AS (
  DELETE FROM carts WHERE $9::boolean AND id IN (
    SELECT id FROM carts WHERE owner LIKE 'cookie:%' ORDER BY updated_utc, id LIMIT GREATEST((SELECT count(*) FROM carts) - $10::bigint + 1, 0))
  RETURNING 1
), c AS (
  INSERT INTO carts (owner, provider, post_id, meta, updated_utc) VALUES ($1::text, $2::text, $3::bigint, $4::text, $5::text)
  ON CONFLICT (owner) DO UPDATE SET provider = excluded.provider, post_id = excluded.post_id, meta = excluded.meta, updated_utc = excluded.updated_utc
  RETURNING id
), del AS (
  DELETE FROM cart_items WHERE cart_id = (SELECT id FROM c) AND NOT (ticket_id = ANY($7::bigint[])) AND ticket_id IN (
    SELECT post_id FROM tickets WHERE provider = $2::text AND ($6::bigint IS NULL OR event_id = $6::bigint))
  RETURNING 1
), put AS (
  INSERT INTO cart_items (cart_id, ticket_id, quantity, optout, iac)
  SELECT (SELECT id FROM c), x.t, x.q, x.o, x.i FROM unnest($7::bigint[], $8::bigint[], $11::bigint[], $12::text[]) AS x(t, q, o, i)
  ON CONFLICT (cart_id, ticket_id) DO UPDATE SET quantity = excluded.quantity, optout = excluded.optout, iac = excluded.iac
  RETURNING 1
)
SELECT (SELECT count(*) FROM room) + (SELECT count(*) FROM del) + (SELECT count(*) FROM put) AS written`;

/** A cart lives as long as the visitor's cart cookie: 30 days after its last write. */
export const CART_LIFETIME_SECONDS = 30 * 24 * 3600;

/** Carts kept at most: past it, a new cart pushes out the visitor carts least recently written. */
export const MAX_CARTS = 100_000;

/**
 * Makes room for one more cart: when `max` carts exist, the least recently written visitor (cookie) carts
 * go, so the table stays bounded whatever visitors send. Signed-in users' carts are never pushed out.
 */
export async function makeRoomForCart(db: Db, max = MAX_CARTS): Promise<number> {
  const n = ((await statement(db, 'SELECT COUNT(*) AS n FROM carts').get()) as { n: number }).n;
  if (n < max) return 0;
  return (
    await statement(db, "DELETE FROM carts WHERE id IN (SELECT id FROM carts WHERE owner LIKE 'cookie:%' ORDER BY updated_utc, id LIMIT ?)").run(
      n - max + 1,
    )
  ).changes;
}

/** Drops carts last written before `beforeUtc` (the sweep: a cart lives as long as its cookie). */
export async function dropStaleCarts(db: Db, beforeUtc: string): Promise<number> {
  return (await statement(db, 'DELETE FROM carts WHERE updated_utc < ?').run(beforeUtc)).changes;
}

/** Empties the cart: its lines, and its meta unless it is empty already (`cart` as read under its lock). */
export async function emptyCart(db: Db, cart: Pick<CartRow, 'id' | 'meta'>): Promise<void> {
  await statement(db, 'DELETE FROM cart_items WHERE cart_id = ?').run(cart.id);
  if (cart.meta !== '[]') await statement(db, "UPDATE carts SET meta = '[]' WHERE id = ?").run(cart.id);
}

/** A deleted ticket leaves every cart. */
export async function removeTicketFromCarts(db: Db, ticketId: number): Promise<void> {
  await statement(db, 'DELETE FROM cart_items WHERE ticket_id = ?').run(ticketId);
}
