import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';
import { EFFECTIVE_ORDER_STATUS } from './attendees.ts';

/** What an attendee list asks for, already resolved against the caller's rights. */
export interface AttendeeQuery {
  eventIds?: number[];
  excludeEventIds?: number[];
  ticketIds?: number[];
  excludeTicketIds?: number[];
  include?: number[];
  exclude?: number[];
  providers?: string[];
  /** Attendee post statuses; `null` for every status, trash included. */
  statuses: string[] | null;
  /** Statuses of the attendee's event; `null` for any. */
  eventStatuses: string[] | null;
  /** Effective order statuses (see EFFECTIVE_ORDER_STATUS); `null` for any. */
  orderStatuses: string[] | null;
  /** The public's restrictions: not opted out, not an RSVP "no", event without password. */
  publicOnly: boolean;
  search?: string;
  name?: string;
  email?: string;
  /** Creation bounds, UTC `YYYY-MM-DD HH:MM:SS`, inclusive. */
  createdAfter?: string;
  createdBefore?: string;
  priceMin?: number;
  priceMax?: number;
  checkedIn?: boolean;
  rsvpGoing?: string[];
  changedSince?: number;
  /** Matches nothing (a filter no attendee can satisfy). */
  empty?: boolean;
  orderby: 'id' | 'date' | 'include' | 'title' | 'slug';
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function build(q: AttendeeQuery): { from: string; where: string; params: unknown[]; orderBy: string } {
  const where: string[] = [];
  const params: unknown[] = [];
  const joins = new Set<string>();
  const inList = (col: string, values: readonly (string | number)[], not = false) => {
    where.push(`${col} ${not ? 'NOT IN' : 'IN'} (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(values));
  };
  if (q.empty) where.push('0');
  // A single event is the kiosk's query: filter on the covering index (event_id, post_id, status).
  if (q.eventIds?.length === 1) {
    where.push('a.event_id = ?');
    params.push(q.eventIds[0]);
  } else if (q.eventIds) inList('a.event_id', q.eventIds);
  if (q.excludeEventIds) inList('a.event_id', q.excludeEventIds, true);
  if (q.ticketIds) inList('a.ticket_id', q.ticketIds);
  if (q.excludeTicketIds) inList('a.ticket_id', q.excludeTicketIds, true);
  if (q.include) inList('a.post_id', q.include);
  if (q.exclude) inList('a.post_id', q.exclude, true);
  if (q.providers) inList('a.provider', q.providers);
  if (q.statuses) inList('a.status', q.statuses);
  if (q.eventStatuses || q.publicOnly) joins.add('JOIN posts e ON e.id = a.event_id');
  if (q.eventStatuses) inList('e.status', q.eventStatuses);
  if (q.orderStatuses) {
    joins.add('LEFT JOIN orders o ON o.post_id = a.order_id');
    inList(EFFECTIVE_ORDER_STATUS, q.orderStatuses);
  }
  if (q.publicOnly) where.push("a.optout = 0 AND (a.rsvp_status IS NULL OR a.rsvp_status = 'yes') AND e.password = ''");
  if (q.search) {
    where.push("(a.full_name LIKE ? ESCAPE '\\' OR a.email LIKE ? ESCAPE '\\')");
    params.push(like(q.search), like(q.search));
  }
  if (q.name) {
    where.push("a.full_name LIKE ? ESCAPE '\\'");
    params.push(like(q.name));
  }
  if (q.email) {
    where.push("a.email LIKE ? ESCAPE '\\'");
    params.push(like(q.email));
  }
  if (q.createdAfter || q.createdBefore || q.orderby === 'date' || q.orderby === 'slug') joins.add('JOIN posts p ON p.id = a.post_id');
  if (q.createdAfter) {
    where.push('p.date_gmt >= ?');
    params.push(q.createdAfter);
  }
  if (q.createdBefore) {
    where.push('p.date_gmt <= ?');
    params.push(q.createdBefore);
  }
  if (q.priceMin !== undefined) {
    where.push('a.price_minor >= ?');
    params.push(q.priceMin);
  }
  if (q.priceMax !== undefined) {
    where.push('a.price_minor <= ?');
    params.push(q.priceMax);
  }
  if (q.checkedIn !== undefined) where.push(q.checkedIn ? 'a.checked_in = 1' : 'a.checked_in = 0');
  if (q.rsvpGoing) {
    where.push("a.provider = 'rsvp'");
    inList("COALESCE(a.rsvp_status, 'yes')", q.rsvpGoing);
  }
  if (q.changedSince !== undefined) {
    where.push('a.change_seq > ?');
    params.push(q.changedSince);
  }
  const dir = q.order === 'DESC' ? 'DESC' : 'ASC';
  let orderBy: string;
  switch (q.orderby) {
    case 'date':
      orderBy = `p.date_gmt ${dir}, a.post_id ${dir}`;
      break;
    case 'title':
      orderBy = `a.full_name ${dir}, a.post_id ${dir}`;
      break;
    case 'slug':
      orderBy = `p.slug ${dir}, a.post_id ${dir}`;
      break;
    case 'include':
      if (q.include?.length) {
        orderBy = `(SELECT MIN(CAST(key AS INTEGER)) FROM json_each(?) WHERE value = a.post_id) ${dir}`;
        break;
      }
      orderBy = `a.post_id ${dir}`;
      break;
    default:
      orderBy = `a.post_id ${dir}`;
  }
  const from = `attendees a ${[...joins].join(' ')}`;
  return { from, where: where.length ? `WHERE ${where.join(' AND ')}` : '', params, orderBy };
}

// Totals of recent queries. The key carries the connection's change counter and SQLite's data version, so
// any write (this connection or another) makes every entry miss; paging through a quiet list costs no recount.
const totals = new WeakMap<Db, Map<string, number>>();

function cachedCount(db: Db, sql: string, params: unknown[]): number {
  const v = stmt(db, 'SELECT total_changes() AS c').get() as { c: number };
  const dv = db.pragma('data_version', { simple: true }) as number;
  const key = `${v.c}:${dv}:${sql}:${JSON.stringify(params)}`;
  let m = totals.get(db);
  if (!m) totals.set(db, (m = new Map()));
  const hit = m.get(key);
  if (hit !== undefined) return hit;
  const n = (stmt(db, sql).get(...params) as { n: number }).n;
  if (m.size >= 200) m.clear();
  m.set(key, n);
  return n;
}

/** IDs of one page and the total before paging (offset already taken off, as Event Tickets reports it). */
export function queryAttendees(db: Db, q: AttendeeQuery): { ids: number[]; total: number } {
  const { from, where, params, orderBy } = build(q);
  const count = cachedCount(db, `SELECT COUNT(*) AS n FROM ${from} ${where}`, params);
  const orderParams = q.orderby === 'include' && q.include?.length ? [JSON.stringify(q.include)] : [];
  const rows = stmt(db, `SELECT a.post_id AS id FROM ${from} ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`)
    .raw()
    .all(...params, ...orderParams, q.limit, q.offset) as [number][];
  return { ids: rows.map((r) => r[0]), total: count };
}
