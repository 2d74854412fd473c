import { lockTicketRows } from './locks.ts';
import type { OrderStatus } from '../../../shared/models/tickets.ts';
import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';
import { insertPost, insertPosts } from './posts.ts';
import { insertAttendeeRows, newSecurityCodes } from './attendees.ts';
import { ticketStats, type Provider, type TicketRow } from './tickets.ts';
import { checkPlaces, orderLines, planOrder } from '../../domain/capacity.ts';

export { OrderError, OrderTooLargeError } from '../../domain/capacity.ts';

/** The gateway reference of the one-line orders `POST /attendees` makes (the original makes no order for them). */
export const BOX_OFFICE_REF = 'box-office';

/** Marks an order as a box-office sale: its attendees answer `order: ""`, as the original's REST-made ones. */
export async function markBoxOfficeOrder(db: Db, orderId: number): Promise<void> {
  await stmt(db, 'UPDATE orders SET gateway_ref = ? WHERE post_id = ?').run(BOX_OFFICE_REF, orderId);
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
  const rows = (await stmt(db, `${SELECT} WHERE o.post_id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids))) as OrderRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is OrderRow => r !== undefined);
}

export async function getOrderRow(db: Db, id: number): Promise<OrderRow | undefined> {
  return (await stmt(db, `${SELECT} WHERE o.post_id = ?`).get(id)) as OrderRow | undefined;
}

export async function orderItems(db: Db, orderIds: readonly number[]): Promise<OrderItemRow[]> {
  if (!orderIds.length) return [];
  return (await stmt(
    db,
    `SELECT oi.order_id, oi.ticket_id, oi.quantity, oi.price_minor, t.event_id, p.title, p.title_et
     FROM order_items oi JOIN tickets t ON t.post_id = oi.ticket_id JOIN posts p ON p.id = oi.ticket_id
     WHERE oi.order_id IN (SELECT value FROM json_each(?)) ORDER BY oi.order_id, oi.ticket_id`,
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
    c.push('o.status IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(q.statuses));
  }
  const w = c.join(' AND ');
  const total = ((await stmt(db, `SELECT COUNT(*) AS n FROM orders o WHERE ${w}`).get(...params)) as { n: number }).n;
  const ids = (
    (await stmt(db, `SELECT o.post_id AS id FROM orders o WHERE ${w} ORDER BY o.post_id DESC LIMIT ? OFFSET ?`).all(
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

/** Rows of one multi-row INSERT at most (SQLite binds at most 32,766 parameters a statement). */
const ROWS_PER_INSERT = 500;

/**
 * Makes an order with one attendee per ticket bought, each with its own random security code. Availability is
 * counted after the tickets' locks (repos/locks.ts), so concurrent sales can never overbook a ticket. Every
 * check comes before the first write, so a refused order writes nothing; the writes are set-based (one statement
 * for the order's lines, one for its attendees' posts, one for their rows, whatever their number). Inside the
 * caller's transaction (a route's), or in one of its own.
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
    const { status } = plan;
    const orderId = await insertPost(db, 'order', {
      status: 'publish',
      author: o.userId ?? 0,
      title: o.purchaserName,
      date: o.date,
      date_gmt: o.dateGmt,
    });
    const inserted = (await stmt(
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
    await stmt(db, `INSERT INTO order_items (order_id, ticket_id, quantity, price_minor) VALUES ${items.map(() => '(?, ?, ?, ?)').join(', ')}`).run(
      ...items.flatMap((it) => [orderId, it.ticketId, it.quantity, tickets.get(it.ticketId)!.price_minor]),
    );
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
    return { orderId, status, attendeeIds, row };
  };
  return db.inTransaction ? await make() : await db.transaction(make);
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
    await stmt(db, 'UPDATE orders SET status = ?, completed_utc = ?, hold_until_utc = ? WHERE post_id = ?').run(status, completed, hold, order.id);
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
      (await stmt(
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
    (await stmt(db, "SELECT 1 AS x FROM orders WHERE status = 'pending' AND hold_until_utc IS NOT NULL AND hold_until_utc <= ? LIMIT 1").get(
      nowUtc,
    )) !== undefined
  );
}

export async function expireHolds(db: Db, nowUtc: string): Promise<number[]> {
  return await db.transaction(async () => {
    const ids = (
      (await stmt(
        db,
        "SELECT post_id AS id FROM orders WHERE status = 'pending' AND hold_until_utc IS NOT NULL AND hold_until_utc <= ? ORDER BY post_id",
      ).all(nowUtc)) as { id: number }[]
    ).map((r) => r.id);
    const cancel = stmt(db, "UPDATE orders SET status = 'cancelled' WHERE post_id = ? AND status = 'pending'");
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
  await stmt(
    db,
    "UPDATE orders SET status = ?, completed_utc = CASE WHEN ? = 'completed' THEN COALESCE(completed_utc, ?) ELSE completed_utc END WHERE post_id = ?",
  ).run(status, status, nowUtc, orderId);
}
