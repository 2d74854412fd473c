import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, type Sql, sql, sqlFor } from '../engine/sql.ts';
import type { PostRow } from './posts.ts';
import { getPostsWithDetail, insertDetailCols, insertPost, uniqueSlug, updateDetailCols } from './posts.ts';

export type Provider = 'rsvp' | 'tc';
export const PROVIDERS: readonly Provider[] = ['rsvp', 'tc'];

export interface TicketCols {
  event_id: number;
  provider: Provider;
  type: string;
  price_minor: number;
  currency: string;
  capacity: number;
  show_description: number;
  start_date: string;
  start_time: string;
  end_date: string;
  end_time: string;
  available_from_utc: string;
  available_until_utc: string;
  sku: string;
  iac: string;
  sale_price_minor: number | null;
  sale_start: string;
  sale_end: string;
}

export type TicketRow = PostRow & TicketCols & { post_id: number };

const COLS: readonly (keyof TicketCols)[] = [
  'event_id',
  'provider',
  'type',
  'price_minor',
  'currency',
  'capacity',
  'show_description',
  'start_date',
  'start_time',
  'end_date',
  'end_time',
  'available_from_utc',
  'available_until_utc',
  'sku',
  'iac',
  'sale_price_minor',
  'sale_start',
  'sale_end',
];

/** Rows in the order of `ids` (missing ones skipped). */
export async function getTicketRows(db: Db, ids: readonly number[]): Promise<TicketRow[]> {
  return await getPostsWithDetail<TicketRow>(db, 'tickets', ids);
}

export async function getTicketRow(db: Db, id: number): Promise<TicketRow | undefined> {
  return (await statement(db, 'SELECT p.*, t.* FROM posts p JOIN tickets t ON t.post_id = p.id WHERE p.id = ?').get(id)) as TicketRow | undefined;
}

export async function updateTicketCols(db: Db, postId: number, cols: Partial<TicketCols>): Promise<void> {
  await updateDetailCols(db, 'tickets', postId, cols, COLS);
}

export interface NewTicket {
  eventId: number;
  provider: Provider;
  name: string;
  description?: string;
  author?: number;
  /** Minor units; RSVP tickets are always free. */
  priceMinor?: number;
  currency?: string;
  /** -1 (default) is unlimited. */
  capacity?: number;
  sku?: string;
  /** Site-local `YYYY-MM-DD HH:MM:SS` post dates. */
  date: string;
  dateGmt: string;
  start?: { date: string; time: string; utc: string };
  end?: { date: string; time: string; utc: string };
  showDescription?: boolean;
  iac?: string;
}

/** Creates a ticket post and its row: the one way tickets are made, by the editor route and the demo alike. */
export async function createTicket(db: Db, t: NewTicket): Promise<number> {
  const id = await insertPost(db, 'ticket', {
    status: 'publish',
    author: t.author ?? 0,
    slug: await uniqueSlug(db, 'ticket', t.name || 'ticket'),
    title: t.name,
    content: t.description ?? '',
    parent: t.eventId,
    date: t.date,
    date_gmt: t.dateGmt,
  });
  // Typed in full so that a column added to TicketCols cannot be forgotten here.
  const cols: TicketCols = {
    event_id: t.eventId,
    provider: t.provider,
    type: 'default',
    price_minor: t.provider === 'rsvp' ? 0 : (t.priceMinor ?? 0),
    currency: (t.currency ?? 'USD').toUpperCase(),
    capacity: t.capacity ?? -1,
    show_description: t.showDescription === false ? 0 : 1,
    start_date: t.start?.date ?? '',
    start_time: t.start?.time ?? '',
    end_date: t.end?.date ?? '',
    end_time: t.end?.time ?? '',
    available_from_utc: t.start?.utc ?? '',
    available_until_utc: t.end?.utc ?? '',
    sku: t.sku ?? '',
    iac: t.iac || 'none',
    sale_price_minor: null,
    sale_start: '',
    sale_end: '',
  };
  await insertDetailCols(db, 'tickets', id, cols, COLS);
  return id;
}

/**
 * Counts derived from attendees, never stored: an attendee of a completed order (or of no order, a door
 * registration) is sold, one of a pending order is pending; refunded, cancelled and failed orders and
 * trashed attendees count for nothing. RSVP "not going" answers take no capacity.
 */
export interface TicketStats {
  sold: number;
  pending: number;
  /** Attendees that hold a place (sold + pending + RSVP "no"). */
  attendees: number;
  checkedIn: number;
  rsvpGoing: number;
  rsvpNotGoing: number;
}

export const EMPTY_STATS: TicketStats = { sold: 0, pending: 0, attendees: 0, checkedIn: 0, rsvpGoing: 0, rsvpNotGoing: 0 };

/**
 * Attendee rows that count, with their order status ('completed' when there is no order). A pending order
 * whose hold has run out counts for nothing even before the sweep cancels it (see repos/orders.ts).
 */
const COUNTED = `FROM attendees a JOIN posts ap ON ap.id = a.post_id LEFT JOIN orders o ON o.post_id = a.order_id
  WHERE ap.status <> 'trash' AND COALESCE(o.status, 'completed') IN ('completed', 'pending')
    AND (o.hold_until_utc IS NULL OR o.status <> 'pending' OR o.hold_until_utc > evt_now_utc())`;

/** SQL expression: places taken on ticket `t.post_id` (for filters and the capacity check). */
export const USED_SQL = `(SELECT COUNT(*) ${COUNTED} AND a.ticket_id = t.post_id AND COALESCE(a.rsvp_status, 'yes') <> 'no')`;
export const ATTENDEES_SQL = `(SELECT COUNT(*) ${COUNTED} AND a.ticket_id = t.post_id)`;
export const CHECKED_IN_SQL = `(SELECT COUNT(*) ${COUNTED} AND a.ticket_id = t.post_id AND a.checked_in = 1)`;

const STATS_SQL = sql`SELECT a.ticket_id AS id,
       SUM(COALESCE(o.status, 'completed') = 'completed' AND COALESCE(a.rsvp_status, 'yes') <> 'no') AS sold,
       SUM(o.status = 'pending' AND COALESCE(a.rsvp_status, 'yes') <> 'no') AS pending,
       COUNT(*) AS attendees,
       SUM(a.checked_in) AS "checkedIn",
       SUM(a.rsvp_status = 'yes') AS "rsvpGoing",
       SUM(a.rsvp_status = 'no') AS "rsvpNotGoing"
     ${COUNTED} AND ${inJson('a.ticket_id', 'id')}
     GROUP BY a.ticket_id`;

export async function ticketStats(db: Db, ids: readonly number[]): Promise<Map<number, TicketStats>> {
  const out = new Map<number, TicketStats>();
  if (!ids.length) return out;
  const rows = (await statement(db, STATS_SQL).all(JSON.stringify(ids))) as ({ id: number } & Record<keyof TicketStats, number | null>)[];
  for (const r of rows) {
    out.set(r.id, {
      sold: r.sold ?? 0,
      pending: r.pending ?? 0,
      attendees: r.attendees ?? 0,
      checkedIn: r.checkedIn ?? 0,
      rsvpGoing: r.rsvpGoing ?? 0,
      rsvpNotGoing: r.rsvpNotGoing ?? 0,
    });
  }
  return out;
}

/** Places left (domain/capacity.ts). */
export { availableOf } from '../../domain/capacity.ts';

const PROVIDERS_SQL = sql`SELECT t.event_id AS event_id, t.provider AS provider, MIN(t.post_id) AS first FROM tickets t JOIN posts p ON p.id = t.post_id
     WHERE ${inJson('t.event_id', 'id')} AND p.status = 'publish' GROUP BY t.event_id, t.provider ORDER BY t.event_id, first`;

/** Provider slugs having published tickets on each post, in the order of their first ticket. */
export async function providersByPost(db: Db, postIds: readonly number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (!postIds.length) return out;
  const rows = (await statement(db, PROVIDERS_SQL).all(JSON.stringify(postIds))) as { event_id: number; provider: string }[];
  for (const r of rows) out.set(r.event_id, [...(out.get(r.event_id) ?? []), r.provider]);
  return out;
}

/** Whether a post has at least one published ticket. */
export async function postHasTickets(db: Db, postId: number): Promise<boolean> {
  return !!(await statement(db, "SELECT 1 FROM tickets t JOIN posts p ON p.id = t.post_id WHERE t.event_id = ? AND p.status = 'publish' LIMIT 1").get(
    postId,
  ));
}

/** SQL condition over events' `p`: the event has (or, negated, has not) a published ticket. */
const HAS_TICKETS_SQL = "EXISTS (SELECT 1 FROM tickets tt JOIN posts tp ON tp.id = tt.post_id WHERE tt.event_id = p.id AND tp.status = 'publish')";

export interface Attendance {
  total_attendees: number;
  checked_in: number;
  not_checked_in: number;
}

const ATTENDANCE_SQL = sql`SELECT a.event_id AS id, COUNT(*) AS total, SUM(a.checked_in) AS inside ${COUNTED}
       AND ${inJson('a.event_id', 'id')} AND COALESCE(a.rsvp_status, 'yes') <> 'no' GROUP BY a.event_id`;

/** `attendance` of each event: attendees holding a place, and how many of them are in. */
export async function attendanceByPost(db: Db, postIds: readonly number[]): Promise<Map<number, Attendance>> {
  const out = new Map<number, Attendance>();
  if (!postIds.length) return out;
  const rows = (await statement(db, ATTENDANCE_SQL).all(JSON.stringify(postIds))) as { id: number; total: number; inside: number | null }[];
  for (const r of rows) out.set(r.id, { total_attendees: r.total, checked_in: r.inside ?? 0, not_checked_in: r.total - (r.inside ?? 0) });
  return out;
}

export type ParentPost = Pick<PostRow, 'id' | 'status' | 'password' | 'image_id'>;

/** The posts tickets are sold for: what decides whether their details show, and the header image. */
export async function parentPosts(db: Db, ids: readonly number[]): Promise<Map<number, ParentPost>> {
  if (!ids.length) return new Map();
  const rows = (await statement(db, sql`SELECT id, status, password, image_id FROM posts WHERE ${inJson('id', 'id')}`).all(
    JSON.stringify(ids),
  )) as ParentPost[];
  return new Map(rows.map((r) => [r.id, r]));
}

/** Live (not trashed) attendees of these tickets, in ID order. */
export async function attendeeIdsOfTickets(db: Db, ticketIds: readonly number[]): Promise<number[]> {
  if (!ticketIds.length) return [];
  return (
    // By name, as the original lists a ticket's attendees (then by ID).
    (
      (await statement(
        db,
        sql`SELECT post_id FROM attendees WHERE ${inJson('ticket_id', 'id')} AND status <> 'trash' ORDER BY full_name, post_id`,
      ).all(JSON.stringify(ticketIds))) as { post_id: number }[]
    ).map((r) => r.post_id)
  );
}

/** The time zone of an event ('' when the post is no event or has none). */
export async function eventTimezoneOf(db: Db, eventId: number): Promise<string> {
  return ((await statement(db, 'SELECT timezone FROM events WHERE post_id = ?').get(eventId)) as { timezone: string } | undefined)?.timezone ?? '';
}

/** Query plans of the per-post and per-ticket counts, for the test that they stay on their indexes. */
export async function explainTicketQueries(db: Db): Promise<Record<'stats' | 'providers' | 'attendance', string[]>> {
  const plan = async (s: Sql) =>
    ((await db.prepare(`EXPLAIN QUERY PLAN ${sqlFor('sqlite', s)}`).all('[1]')) as { detail: string }[]).map((r) => r.detail);
  return { stats: await plan(STATS_SQL), providers: await plan(PROVIDERS_SQL), attendance: await plan(ATTENDANCE_SQL) };
}

/** An events-query condition (over events' `p`): the event has, or has not, a published ticket. */
export function ticketedCondition(ticketed: boolean): { sql: string; params: unknown[] } {
  return { sql: ticketed ? HAS_TICKETS_SQL : `NOT ${HAS_TICKETS_SQL}`, params: [] };
}

/** The event a ticket belongs to, or undefined when there is no such ticket. */
export async function ticketEventId(db: Db, ticketId: number): Promise<number | undefined> {
  return (await statement(db, 'SELECT event_id FROM tickets WHERE post_id = ?').pluck().get(ticketId)) as number | undefined;
}

export interface TicketPrice {
  event_id: number;
  price_minor: number;
  currency: string;
  available_from_utc: string;
  available_until_utc: string;
}

/** The prices of the published tickets of the events `eventIds`, in ticket ID order. */
export async function publishedTicketPrices(db: Db, eventIds: readonly number[]): Promise<TicketPrice[]> {
  return (await statement(
    db,
    sql`SELECT t.event_id, t.price_minor, t.currency, t.available_from_utc, t.available_until_utc FROM tickets t JOIN posts p ON p.id = t.post_id
  WHERE ${inJson('t.event_id', 'id')} AND p.status = 'publish' ORDER BY t.post_id`,
  ).all(JSON.stringify(eventIds))) as TicketPrice[];
}

/** The published tickets of an event with their provider and capacity, in ticket ID order (the order JSON-LD offers list them). */
export async function publishedTicketCapacities(db: Db, eventId: number): Promise<{ post_id: number; provider: string; capacity: number }[]> {
  return (await statement(
    db,
    `SELECT t.post_id, t.provider, t.capacity FROM tickets t JOIN posts p ON p.id = t.post_id
  WHERE t.event_id = ? AND p.status = 'publish' ORDER BY t.post_id`,
  ).all(eventId)) as { post_id: number; provider: string; capacity: number }[];
}

/**
 * PostgreSQL: an event's published tickets with their capacity and the places sold and held on each, in ticket ID
 * order, in one statement (publishedTicketCapacities and ticketStats in one round trip; STATS_SQL's counts).
 */
const STOCK_SQL = `SELECT t.post_id, t.provider, t.capacity, s.sold, s.pending FROM tickets t JOIN posts p ON p.id = t.post_id
  LEFT JOIN (SELECT a.ticket_id AS id,
       SUM(COALESCE(o.status, 'completed') = 'completed' AND COALESCE(a.rsvp_status, 'yes') <> 'no') AS sold,
       SUM(o.status = 'pending' AND COALESCE(a.rsvp_status, 'yes') <> 'no') AS pending
     ${COUNTED} AND a.event_id = ? GROUP BY a.ticket_id) s ON s.id = t.post_id
  WHERE t.event_id = ? AND p.status = 'publish' ORDER BY t.post_id`;

/**
 * The published tickets of an event with their provider, capacity and counts (`sold`, `pending`), in ticket ID
 * order (so the providers in order of their first ticket are providersByPost's for the event).
 */
export async function publishedTicketStock(
  db: Db,
  eventId: number,
): Promise<{ post_id: number; provider: string; capacity: number; stats: Pick<TicketStats, 'sold' | 'pending'> }[]> {
  if (db.engine === 'postgres') {
    const rows = (await statement(db, STOCK_SQL).all(eventId, eventId)) as {
      post_id: number;
      provider: string;
      capacity: number;
      sold: number | null;
      pending: number | null;
    }[];
    return rows.map((r) => ({
      post_id: r.post_id,
      provider: r.provider,
      capacity: r.capacity,
      stats: { sold: r.sold ?? 0, pending: r.pending ?? 0 },
    }));
  }
  // SQLite: two statements on their indexes (no round trips to save in-process).
  const tickets = await publishedTicketCapacities(db, eventId);
  if (!tickets.length) return [];
  const stats = await ticketStats(
    db,
    tickets.map((t) => t.post_id),
  );
  return tickets.map((t) => ({ ...t, stats: stats.get(t.post_id) ?? EMPTY_STATS }));
}
