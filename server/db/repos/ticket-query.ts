import type { Db } from '../connection.ts';
import { likeContains as like, statement } from '../connection.ts';
import { inJson, jsonElements, LIKE_NOCASE, sqlFor } from '../engine/sql.ts';
import type { Engine } from '../engine/types.ts';
import { ATTENDEES_SQL, CHECKED_IN_SQL, USED_SQL } from './tickets.ts';

/** The Event Tickets archive query over `t` (tickets), `p` (ticket posts) and `ep` (the parent posts). */
export interface TicketQuery {
  statuses: string[];
  /** Statuses of the parent post; null: any. */
  postStatuses: string[] | null;
  search?: string;
  include?: number[];
  exclude?: number[];
  includePost?: number[];
  excludePost?: number[];
  providers?: string[];
  /** UTC `YYYY-MM-DD HH:MM:SS` bounds on the ticket's creation. */
  after?: string;
  before?: string;
  /** Sale starts at or after (or has no start). */
  availableFrom?: string;
  /** Sale ends at or before (or has no end). */
  availableUntil?: string;
  currencies?: string[];
  isAvailable?: boolean;
  attendeesMin?: number;
  attendeesMax?: number;
  checkedinMin?: number;
  checkedinMax?: number;
  capacityMin?: number;
  capacityMax?: number;
  orderby: 'id' | 'include' | 'title' | 'slug';
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

const json = (v: unknown) => JSON.stringify(v);

function where(q: TicketQuery, engine: Engine): { sql: string; params: unknown[] } {
  const ids = (col: string, not = false) => sqlFor(engine, inJson(col, 'id', not));
  const texts = (col: string) => sqlFor(engine, inJson(col, 'text'));
  const c: string[] = [texts('p.status')];
  const params: unknown[] = [json(q.statuses)];
  const add = (sql: string, ...ps: unknown[]) => {
    c.push(sql);
    params.push(...ps);
  };
  if (q.postStatuses) add(texts('ep.status'), json(q.postStatuses));
  if (q.search) {
    const l = like(q.search);
    const op = sqlFor(engine, LIKE_NOCASE);
    add(
      `(p.title ${op} ? ESCAPE '\\' OR p.content ${op} ? ESCAPE '\\' OR p.title_et ${op} ? ESCAPE '\\' OR p.content_et ${op} ? ESCAPE '\\')`,
      l,
      l,
      l,
      l,
    );
  }
  if (q.include) add(ids('t.post_id'), json(q.include));
  if (q.exclude) add(ids('t.post_id', true), json(q.exclude));
  if (q.includePost) add(ids('t.event_id'), json(q.includePost));
  if (q.excludePost) add(ids('t.event_id', true), json(q.excludePost));
  if (q.providers) add(texts('t.provider'), json(q.providers));
  if (q.after) add('p.date_gmt >= ?', q.after);
  if (q.before) add('p.date_gmt <= ?', q.before);
  if (q.availableFrom) add("(t.available_from_utc = '' OR t.available_from_utc >= ?)", q.availableFrom);
  if (q.availableUntil) add("(t.available_until_utc = '' OR t.available_until_utc <= ?)", q.availableUntil);
  // Free (RSVP) tickets have no currency, as in the original.
  if (q.currencies) add(`t.provider <> 'rsvp' AND ${texts('t.currency')}`, json(q.currencies.map((x) => x.toUpperCase())));
  if (q.isAvailable === true) add(`(t.capacity < 0 OR t.capacity - ${USED_SQL} > 0)`);
  if (q.isAvailable === false) add(`(t.capacity >= 0 AND t.capacity - ${USED_SQL} <= 0)`);
  if (q.attendeesMin !== undefined) add(`${ATTENDEES_SQL} >= ?`, q.attendeesMin);
  if (q.attendeesMax !== undefined) add(`${ATTENDEES_SQL} <= ?`, q.attendeesMax);
  if (q.checkedinMin !== undefined) add(`${CHECKED_IN_SQL} >= ?`, q.checkedinMin);
  if (q.checkedinMax !== undefined) add(`${CHECKED_IN_SQL} <= ?`, q.checkedinMax);
  // Unlimited (-1) satisfies any minimum and no maximum, as in the original.
  if (q.capacityMin !== undefined) add('(t.capacity < 0 OR t.capacity >= ?)', q.capacityMin);
  if (q.capacityMax !== undefined) add('t.capacity BETWEEN 0 AND ?', q.capacityMax);
  return { sql: c.join(' AND '), params };
}

function orderBy(q: TicketQuery, engine: Engine): { sql: string; params: unknown[] } {
  const dir = q.order === 'DESC' ? 'DESC' : 'ASC';
  switch (q.orderby) {
    case 'title':
      return { sql: `p.title ${dir}, p.id ${dir}`, params: [] };
    case 'slug':
      return { sql: `p.slug ${dir}, p.id ${dir}`, params: [] };
    case 'include':
      if (q.include)
        return {
          sql: `(SELECT j.key FROM ${sqlFor(engine, jsonElements('j', 'id'))} WHERE j.value = p.id) ${dir}, p.id ${dir}`,
          params: [json(q.include)],
        };
      return { sql: `p.id ${dir}`, params: [] };
    default:
      return { sql: `p.id ${dir}`, params: [] };
  }
}

const FROM = 'FROM tickets t JOIN posts p ON p.id = t.post_id LEFT JOIN posts ep ON ep.id = t.event_id';

/** One page of ticket IDs in order, and the number of matches. */
export async function queryTickets(db: Db, q: TicketQuery): Promise<{ ids: number[]; matches: number }> {
  const w = where(q, db.engine);
  const matches = ((await statement(db, `SELECT COUNT(*) AS n ${FROM} WHERE ${w.sql}`).get(...w.params)) as { n: number }).n;
  const o = orderBy(q, db.engine);
  const rows = (await statement(db, `SELECT p.id ${FROM} WHERE ${w.sql} ORDER BY ${o.sql} LIMIT ? OFFSET ?`).all(
    ...w.params,
    ...o.params,
    q.limit,
    q.offset,
  )) as {
    id: number;
  }[];
  return { ids: rows.map((r) => r.id), matches };
}
