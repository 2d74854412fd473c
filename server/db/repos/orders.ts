import { lockTicketRows } from './locks.ts';
import type { OrderStatus } from '../../../shared/models/tickets.ts';
import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, sql, sqlFor } from '../engine/sql.ts';
import { insertPost, insertPosts } from './posts.ts';
import { insertAttendeeRows, newSecurityCodes } from './attendees.ts';
import { ticketStats, type Provider, type TicketRow } from './tickets.ts';
import { checkPlaces, orderLines, planOrder, type OrderPlan, type PlacesTaken } from '../../domain/capacity.ts';
import crypto from 'node:crypto';
import type { PgDb } from '../engine/postgres.ts';
import { emptyCart, type CartRow } from './carts.ts';
import { insertRateEvent } from './shared-state.ts';

export { OrderError, OrderTooLargeError } from '../../domain/capacity.ts';

/** The gateway reference of the one-line orders `POST /attendees` makes (the original makes no order for them). */
export const BOX_OFFICE_REF = 'box-office';

/** Marks an order as a box-office sale: its attendees answer `order: ""`, as the original's REST-made ones. */
export async function markBoxOfficeOrder(db: Db, orderId: number): Promise<void> {
  await statement(db, 'UPDATE orders SET gateway_ref = ? WHERE post_id = ?').run(BOX_OFFICE_REF, orderId);
}

export interface OrderRow {
  id: number;
  provider: Provider;
  status: OrderStatus;
  purchaser_name: string;
  purchaser_email: string;
  user_id: number;
  total_minor: number;
  currency: string;
  created_utc: string;
  completed_utc: string | null;
  gateway_ref: string;
  /** Until when a pending order holds its places (UTC); null: no expiry. */
  hold_until_utc: string | null;
  author: number;
  date: string;
  date_gmt: string;
}

export interface OrderItemRow {
  order_id: number;
  ticket_id: number;
  quantity: number;
  price_minor: number;
  event_id: number;
  title: string;
  title_et: string | null;
}

/** Order statuses whose attendees hold a place (sold or reserved). */
export const HOLDING: readonly OrderStatus[] = ['completed', 'pending'];

const SELECT = 'SELECT o.post_id AS id, o.*, p.author, p.date, p.date_gmt FROM orders o JOIN posts p ON p.id = o.post_id';

export async function getOrderRows(db: Db, ids: readonly number[]): Promise<OrderRow[]> {
  if (!ids.length) return [];
  const rows = (await statement(db, sql`${SELECT} WHERE ${inJson('o.post_id', 'id')}`).all(JSON.stringify(ids))) as OrderRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is OrderRow => r !== undefined);
}

export async function getOrderRow(db: Db, id: number): Promise<OrderRow | undefined> {
  return (await statement(db, `${SELECT} WHERE o.post_id = ?`).get(id)) as OrderRow | undefined;
}

export async function orderItems(db: Db, orderIds: readonly number[]): Promise<OrderItemRow[]> {
  if (!orderIds.length) return [];
  return (await statement(
    db,
    sql`SELECT oi.order_id, oi.ticket_id, oi.quantity, oi.price_minor, t.event_id, p.title, p.title_et
     FROM order_items oi JOIN tickets t ON t.post_id = oi.ticket_id JOIN posts p ON p.id = oi.ticket_id
     WHERE ${inJson('oi.order_id', 'id')} ORDER BY oi.order_id, oi.ticket_id`,
  ).all(JSON.stringify(orderIds))) as OrderItemRow[];
}

export interface OrderQuery {
  postId?: number;
  /** Only orders with a ticket on an event this user authored (an organizer's reach). */
  eventAuthor?: number;
  statuses?: string[];
  limit: number;
  offset: number;
}

export async function queryOrders(db: Db, q: OrderQuery): Promise<{ ids: number[]; total: number }> {
  const c: string[] = ['1 = 1'];
  const params: unknown[] = [];
  if (q.postId !== undefined) {
    c.push('EXISTS (SELECT 1 FROM order_items oi JOIN tickets t ON t.post_id = oi.ticket_id WHERE oi.order_id = o.post_id AND t.event_id = ?)');
    params.push(q.postId);
  }
  if (q.eventAuthor !== undefined) {
    c.push(
      'EXISTS (SELECT 1 FROM order_items oi JOIN tickets t ON t.post_id = oi.ticket_id JOIN posts e ON e.id = t.event_id WHERE oi.order_id = o.post_id AND e.author = ?)',
    );
    params.push(q.eventAuthor);
  }
  if (q.statuses) {
    c.push(sqlFor(db.engine, inJson('o.status', 'text')));
    params.push(JSON.stringify(q.statuses));
  }
  const w = c.join(' AND ');
  const total = ((await statement(db, `SELECT COUNT(*) AS n FROM orders o WHERE ${w}`).get(...params)) as { n: number }).n;
  const ids = (
    (await statement(db, `SELECT o.post_id AS id FROM orders o WHERE ${w} ORDER BY o.post_id DESC LIMIT ? OFFSET ?`).all(
      ...params,
      q.limit,
      q.offset,
    )) as {
      id: number;
    }[]
  ).map((r) => r.id);
  return { ids, total };
}

export interface NewOrder {
  purchaserName: string;
  purchaserEmail: string;
  userId?: number;
  items: { ticketId: number; quantity: number; optout?: boolean }[];
  /** Site-local and UTC `YYYY-MM-DD HH:MM:SS` of the sale. */
  date: string;
  dateGmt: string;
  /** Default: completed when free, pending when there is something to pay. */
  status?: OrderStatus;
  /** The anonymous buyer's client, as a keyed digest (see `placesHeldBy`). */
  holdClient?: string;
  /** Refuse tickets outside their sale window (the checkout does; the demo back-fills history). */
  checkSaleWindow?: boolean;
  /** Tickets per line and per order at most (the checkout passes `maxTicketsPerOrder`). */
  maxTickets?: number;
  /** Until when a pending order holds its places (UTC `YYYY-MM-DD HH:MM:SS`); without it, no expiry. */
  holdUntilUtc?: string;
}

export interface CreatedOrder {
  orderId: number;
  status: OrderStatus;
  attendeeIds: number[];
  /** The order as getOrderRow reads it right after (its row as inserted, with its post's author and dates). */
  row: OrderRow;
}

/** The tickets' counts, then the sale window and places of each line (domain/capacity.ts). */
async function checkAvailability(db: Db, tickets: Map<number, TicketRow>, items: NewOrder['items'], o: NewOrder): Promise<void> {
  checkPlaces(items, tickets, await ticketStats(db, [...tickets.keys()]), o);
}

/**
 * Makes an order with one attendee per ticket bought, each with its own random security code. Availability is
 * counted after the tickets' locks (repos/locks.ts), so concurrent sales can never overbook a ticket. Every
 * check comes before the first write, so a refused order writes nothing; the writes are set-based (writeOrder).
 * Inside the caller's transaction (a route's), or in one of its own.
 */
export async function createOrder(db: Db, o: NewOrder): Promise<CreatedOrder> {
  const make = async (): Promise<CreatedOrder> => {
    const items = orderLines(o.items, o.maxTickets);
    // The tickets' locks before their places are counted (repos/locks.ts): concurrent sales never overbook.
    const tickets = new Map(
      (
        await lockTicketRows(
          db,
          items.map((i) => i.ticketId),
        )
      ).map((t) => [t.id, t]),
    );
    const plan = planOrder(items, tickets, o.status);
    await checkAvailability(db, tickets, items, o);
    return await writeOrder(db, o, items, tickets, plan);
  };
  return db.inTransaction ? await make() : await db.transaction(make);
}

/** What the checkout writes with its order, in the same statement on PostgreSQL. */
export interface OrderExtras {
  /** The cart the order was made from: emptied (its lines, and its meta unless empty already). */
  cart?: Pick<CartRow, 'id' | 'meta'>;
  /** One event counted against each key of a database rate limiter (as DbWindowLimiter.record, sweep apart). */
  rate?: { name: string; keys: string[]; atMs: number; afterMs: number; max: number };
}

/**
 * The checkout's order, from tickets already read under their locks with the places they have taken (repos/
 * checkout.ts): the same checks as createOrder, then the order, its lines and attendees, and the extras written.
 * Inside the caller's transaction.
 */
export async function createOrderLocked(
  db: Db,
  o: NewOrder,
  tickets: ReadonlyMap<number, TicketRow>,
  taken: ReadonlyMap<number, PlacesTaken>,
  extras: OrderExtras,
): Promise<CreatedOrder> {
  const items = orderLines(o.items, o.maxTickets);
  const plan = planOrder(items, tickets, o.status);
  checkPlaces(items, tickets, taken, o);
  return await writeOrder(db, o, items, tickets, plan, extras);
}

/** Rows of one multi-row INSERT at most (SQLite binds at most 32,766 parameters a statement). */
const ROWS_PER_INSERT = 500;

/**
 * Writes a checked order: its post and row, its lines, one attendee (post and row) per place, then the extras.
 * PostgreSQL: one statement (PG_WRITE_ORDER); SQLite: one per table (and per 500 attendees).
 */
async function writeOrder(
  db: Db,
  o: NewOrder,
  items: NewOrder['items'],
  tickets: ReadonlyMap<number, TicketRow>,
  plan: OrderPlan,
  extras: OrderExtras = {},
): Promise<CreatedOrder> {
  if (db.engine === 'postgres') return await writeOrderPg(db as PgDb, o, items, tickets, plan, extras);
  const { status } = plan;
  const orderId = await insertPost(db, 'order', {
    status: 'publish',
    author: o.userId ?? 0,
    title: o.purchaserName,
    date: o.date,
    date_gmt: o.dateGmt,
  });
  const inserted = (await statement(
    db,
    `INSERT INTO orders (post_id, provider, status, purchaser_name, purchaser_email, user_id, total_minor, currency, created_utc, completed_utc, hold_until_utc, hold_client)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  ).get(
    orderId,
    plan.provider,
    status,
    o.purchaserName,
    o.purchaserEmail,
    o.userId ?? 0,
    plan.total,
    plan.currency,
    o.dateGmt,
    status === 'completed' ? o.dateGmt : null,
    status === 'pending' ? (o.holdUntilUtc ?? null) : null,
    o.holdClient ?? null,
  )) as Omit<OrderRow, 'id' | 'author' | 'date' | 'date_gmt'> & { post_id: number };
  const { post_id, ...cols } = inserted;
  const row: OrderRow = { id: post_id, ...cols, author: o.userId ?? 0, date: o.date, date_gmt: o.dateGmt };
  await statement(
    db,
    `INSERT INTO order_items (order_id, ticket_id, quantity, price_minor) VALUES ${items.map(() => '(?, ?, ?, ?)').join(', ')}`,
  ).run(...items.flatMap((it) => [orderId, it.ticketId, it.quantity, tickets.get(it.ticketId)!.price_minor]));
  const places = items.flatMap((it) => Array.from({ length: it.quantity }, () => it));
  const attendeeIds: number[] = [];
  for (let at = 0; at < places.length; at += ROWS_PER_INSERT) {
    const chunk = places.slice(at, at + ROWS_PER_INSERT);
    const ids = await insertPosts(
      db,
      'attendee',
      chunk.map((it) => ({
        status: 'publish',
        author: o.userId ?? 0,
        title: o.purchaserName,
        parent: it.ticketId,
        date: o.date,
        date_gmt: o.dateGmt,
      })),
    );
    const codes = await newSecurityCodes(db, chunk.length);
    await insertAttendeeRows(
      db,
      chunk.map((it, n) => {
        const t = tickets.get(it.ticketId)!;
        return {
          postId: ids[n]!,
          ticketId: t.id,
          eventId: t.event_id,
          orderId,
          provider: t.provider,
          fullName: o.purchaserName,
          email: o.purchaserEmail,
          securityCode: codes[n]!,
          priceMinor: t.price_minor,
          optout: it.optout ?? false,
          rsvpStatus: t.provider === 'rsvp' ? 'yes' : null,
        };
      }),
    );
    attendeeIds.push(...ids);
  }
  const { rate, cart } = extras;
  for (const key of rate?.keys ?? []) await insertRateEvent(db, rate!.name, key, rate!.atMs, rate!.afterMs, rate!.max);
  if (cart) await emptyCart(db, cart);
  return { orderId, status, attendeeIds, row };
}

// PostgreSQL, written for it: the order's post and row, its lines, its attendees' posts and rows, and the extras
// (the cart emptied, the limiter's event counted and what falls out of its window deleted), one statement. The
// security codes are drawn beforehand; should one be taken already, the statement writes nothing and answers no
// row (every write hangs on the order's post, which is made only when none is), and new codes are drawn. The
// attendees' posts are inserted in the order of the places and numbered by ID (IDs are drawn in insert order) to
// pair them with their places. A rate event's delete does not see the one inserted beside it, so it keeps the
// max - 1 most recent others (shared-state.ts insertRateEvent).
const PG_WRITE_ORDER = `WITH taken AS (
  SELECT 1 FROM attendees WHERE security_code = ANY($22::text[]) LIMIT 1
), op AS (
  INSERT INTO posts (type, status, author, title, date, date_gmt, modified, modified_gmt)
  SELECT 'order', 'publish', $1::bigint, $2::text, $3::text, $4::text, $3::text, $4::text WHERE NOT EXISTS (SELECT 1 FROM taken)
  RETURNING id
), o AS (
  INSERT INTO orders (post_id, provider, status, purchaser_name, purchaser_email, user_id, total_minor, currency, created_utc, completed_utc, hold_until_utc, hold_client)
  SELECT op.id, $5::text, $6::text, $2::text, $7::text, $1::bigint, $8::bigint, $9::text, $4::text, $10::text, $11::text, $12::text FROM op
  RETURNING *
), oi AS (
  INSERT INTO order_items (order_id, ticket_id, quantity, price_minor)
  SELECT op.id, x.t, x.q, x.p FROM op, unnest($13::bigint[], $14::bigint[], $15::bigint[]) AS x(t, q, p)
  RETURNING 1
), ap AS (
  INSERT INTO posts (type, status, author, title, parent, date, date_gmt, modified, modified_gmt)
  SELECT 'attendee', 'publish', $1::bigint, $2::text, x.t, $3::text, $4::text, $3::text, $4::text
  FROM unnest($16::bigint[]) WITH ORDINALITY AS x(t, n) WHERE EXISTS (SELECT 1 FROM op) ORDER BY x.n
  RETURNING id
), a AS (
  INSERT INTO attendees (post_id, ticket_id, event_id, order_id, provider, full_name, email, security_code, price_minor, optout, rsvp_status)
  SELECT r.id, x.t, x.e, op.id, x.pv, $2::text, $7::text, x.code, x.price, x.optout, x.rsvp
  FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM ap) AS r
  JOIN unnest($16::bigint[], $17::bigint[], $18::text[], $22::text[], $19::bigint[], $20::bigint[], $21::text[]) WITH ORDINALITY
    AS x(t, e, pv, code, price, optout, rsvp, n) ON x.n = r.n
  CROSS JOIN op
  RETURNING post_id
), dc AS (
  DELETE FROM cart_items WHERE cart_id = $23::bigint AND EXISTS (SELECT 1 FROM op) RETURNING 1
), um AS (
  UPDATE carts SET meta = '[]' WHERE id = $23::bigint AND meta <> '[]' AND EXISTS (SELECT 1 FROM op) RETURNING 1
), ri AS (
  INSERT INTO evt_rate_events (name, key, at_ms) SELECT $24::text, k, $26::bigint FROM unnest($25::text[]) AS k WHERE EXISTS (SELECT 1 FROM op)
  RETURNING 1
), rd AS (
  DELETE FROM evt_rate_events e WHERE e.name = $24::text AND e.key = ANY($25::text[]) AND EXISTS (SELECT 1 FROM op)
    AND (e.at_ms <= $27::bigint OR $28::int <= 1 OR e.id < (
      SELECT e2.id FROM evt_rate_events e2 WHERE e2.name = e.name AND e2.key = e.key ORDER BY e2.id DESC LIMIT 1 OFFSET GREATEST($28::int - 2, 0)))
  RETURNING 1
)
SELECT o.*, (SELECT json_agg(post_id ORDER BY post_id) FROM a) AS evt_attendees,
  (SELECT count(*) FROM oi) + 2 * (SELECT count(*) FROM a) + (SELECT count(*) FROM dc) + (SELECT count(*) FROM um)
    + (SELECT count(*) FROM ri) + (SELECT count(*) FROM rd) AS evt_written
FROM o`;

async function writeOrderPg(
  db: PgDb,
  o: NewOrder,
  items: NewOrder['items'],
  tickets: ReadonlyMap<number, TicketRow>,
  plan: OrderPlan,
  extras: OrderExtras,
): Promise<CreatedOrder> {
  const { status } = plan;
  const places = items.flatMap((it) => Array.from({ length: it.quantity }, () => it));
  const placeTicket = places.map((it) => tickets.get(it.ticketId)!);
  const { rate, cart } = extras;
  for (;;) {
    const codes = freshCodes(places.length);
    const got = (
      await db.native(PG_WRITE_ORDER, [
        String(o.userId ?? 0),
        o.purchaserName,
        o.date,
        o.dateGmt,
        plan.provider,
        status,
        o.purchaserEmail,
        String(plan.total),
        plan.currency,
        status === 'completed' ? o.dateGmt : null,
        status === 'pending' ? (o.holdUntilUtc ?? null) : null,
        o.holdClient ?? null,
        items.map((it) => it.ticketId),
        items.map((it) => it.quantity),
        items.map((it) => tickets.get(it.ticketId)!.price_minor),
        placeTicket.map((t) => t.id),
        placeTicket.map((t) => t.event_id),
        placeTicket.map((t) => t.provider),
        placeTicket.map((t) => t.price_minor),
        places.map((it) => (it.optout ? 1 : 0)),
        placeTicket.map((t) => (t.provider === 'rsvp' ? 'yes' : null)),
        codes,
        cart ? String(cart.id) : null,
        rate?.name ?? '',
        rate?.keys ?? [],
        String(rate?.atMs ?? 0),
        String(rate?.afterMs ?? 0),
        String(rate?.max ?? 1),
      ])
    )[0] as (Omit<OrderRow, 'id' | 'author' | 'date' | 'date_gmt'> & { post_id: number; evt_attendees: string; evt_written: number }) | undefined;
    // A security code taken already: nothing was written; again with new codes.
    if (!got) continue;
    const { post_id, evt_attendees, evt_written, ...cols } = got;
    // The order's post and row (the statement's command tag counts none of its CTEs' rows).
    db.countWritten(2 + Number(evt_written));
    const row: OrderRow = { id: post_id, ...cols, author: o.userId ?? 0, date: o.date, date_gmt: o.dateGmt };
    return { orderId: post_id, status, attendeeIds: JSON.parse(evt_attendees) as number[], row };
  }
}

/** `n` distinct random security codes (16 lowercase hex characters); their uniqueness among attendees is checked as they are written. */
function freshCodes(n: number): string[] {
  const codes = new Set<string>();
  while (codes.size < n) codes.add(crypto.randomBytes(8).toString('hex'));
  return [...codes];
}

const utcMs = (utc: string) => Date.parse(`${utc.replace(' ', 'T')}Z`);
const utcString = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** `YYYY-MM-DD HH:MM:SS` UTC `minutes` after `utc`. */
export function addMinutesUtc(utc: string, minutes: number): string {
  return utcString(utcMs(utc) + minutes * 60_000);
}

/** A pending order's hold has run out at `nowUtc` (its places are free again, before or after the sweep). */
export function holdExpired(order: Pick<OrderRow, 'status' | 'hold_until_utc'>, nowUtc: string): boolean {
  return order.status === 'pending' && order.hold_until_utc !== null && order.hold_until_utc <= nowUtc;
}

/**
 * Moves an order to a new status. Going from a status that holds no places (cancelled, failed) back to one
 * that does re-checks availability in the same transaction. A pending order whose hold ran out holds no
 * place either: it is re-checked the same way. An order made with a hold that goes back to pending gets a
 * fresh hold of the same length from now.
 */
export async function setOrderStatus(db: Db, order: OrderRow, status: OrderStatus, nowUtc: string): Promise<void> {
  await db.transaction(async () => {
    const heldBefore = HOLDING.includes(order.status) && !holdExpired(order, nowUtc);
    if (!heldBefore && HOLDING.includes(status)) {
      const items = await orderItems(db, [order.id]);
      const tickets = new Map(
        (
          await lockTicketRows(
            db,
            items.map((i) => i.ticket_id),
          )
        ).map((t) => [t.id, t]),
      );
      await checkAvailability(
        db,
        tickets,
        items.map((i) => ({ ticketId: i.ticket_id, quantity: i.quantity })),
        { purchaserName: '', purchaserEmail: '', items: [], date: '', dateGmt: nowUtc },
      );
    }
    const completed = status === 'completed' ? (order.completed_utc ?? nowUtc) : order.completed_utc;
    let hold = order.hold_until_utc;
    if (status === 'pending' && hold !== null && order.status !== 'pending')
      hold = utcString(utcMs(nowUtc) + Math.max(0, utcMs(hold) - utcMs(order.created_utc)));
    await statement(db, 'UPDATE orders SET status = ?, completed_utc = ?, hold_until_utc = ? WHERE post_id = ?').run(
      status,
      completed,
      hold,
      order.id,
    );
  });
}

/**
 * The sweep: cancels every pending order whose hold has run out at `nowUtc` (their places are free again).
 * Returns the IDs of the orders it cancelled.
 */
/** Places held by pending orders of one client (`hold_client`) whose hold has not run out at `nowUtc`. */
export async function placesHeldBy(db: Db, client: string, nowUtc: string): Promise<number> {
  return Number(
    (
      (await statement(
        db,
        `SELECT COALESCE(SUM(oi.quantity), 0) AS n FROM orders o JOIN order_items oi ON oi.order_id = o.post_id
         WHERE o.hold_client = ? AND o.status = 'pending' AND (o.hold_until_utc IS NULL OR o.hold_until_utc > ?)`,
      ).get(client, nowUtc)) as { n: number }
    ).n,
  );
}

/** Whether a pending order's hold has run out at `nowUtc` and the sweep has not cancelled it yet. */
export async function hasLapsedHold(db: Db, nowUtc: string): Promise<boolean> {
  return (
    (await statement(db, "SELECT 1 AS x FROM orders WHERE status = 'pending' AND hold_until_utc IS NOT NULL AND hold_until_utc <= ? LIMIT 1").get(
      nowUtc,
    )) !== undefined
  );
}

export async function expireHolds(db: Db, nowUtc: string): Promise<number[]> {
  return await db.transaction(async () => {
    const ids = (
      (await statement(
        db,
        "SELECT post_id AS id FROM orders WHERE status = 'pending' AND hold_until_utc IS NOT NULL AND hold_until_utc <= ? ORDER BY post_id",
      ).all(nowUtc)) as { id: number }[]
    ).map((r) => r.id);
    const cancel = statement(db, "UPDATE orders SET status = 'cancelled' WHERE post_id = ? AND status = 'pending'");
    // Only the orders this pass cancelled: another process's sweep (or a payment) may have got there first.
    const cancelled: number[] = [];
    for (const id of ids) if ((await cancel.run(id)).changes === 1) cancelled.push(id);
    return cancelled;
  });
}

/**
 * Sets an order's status as an attendee edit does (no hold or capacity bookkeeping, see setOrderStatus): the first
 * move to `completed` records `nowUtc` as its completion time, which later moves keep.
 */
export async function setOrderStatusOnly(db: Db, orderId: number, status: string, nowUtc: string): Promise<void> {
  await statement(
    db,
    "UPDATE orders SET status = ?, completed_utc = CASE WHEN ? = 'completed' THEN COALESCE(completed_utc, ?) ELSE completed_utc END WHERE post_id = ?",
  ).run(status, status, nowUtc, orderId);
}
