import type { Db } from '../connection.ts';
import { likeContains, statement } from '../connection.ts';
import { inJson, LIKE_NOCASE, sqlFor } from '../engine/sql.ts';
import type { Engine } from '../engine/types.ts';

/** A SQL condition over `p` (posts) and `e` (events) with its parameters. */
export interface Condition {
  sql: string;
  params: unknown[];
}

export interface EventQuery {
  statuses: string[];
  startsOnOrAfter?: string;
  endsOnOrBefore?: string;
  startsBefore?: string;
  startsAfter?: string;
  endsBefore?: string;
  endsAfter?: string;
  search?: string;
  /** The search leaves password-protected events out (anonymous callers, as WordPress's search). */
  searchSkipsProtected?: boolean;
  termIds?: number[][];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  include?: number[];
  postParent?: number;
  excludeHidden: boolean;
  geoloc?: boolean;
  near?: { lat: number; lng: number; radiusKm: number };
  extra: Condition[];
  limit: number;
  offset: number;
}

/**
 * `IN` over a list of IDs: one ID as `= ?`. Inside the page's correlated `EXISTS`, SQLite builds a `json_each`
 * list again for every event it tests (page of one category among 10,000 events: 0.29 -> 0.24 ms; 0.19 ms with
 * the covering index of 011-event-list-index.sql).
 */
function inIds(engine: Engine, column: string, kind: 'id' | 'text', ids: readonly (number | string)[]): [string, unknown] {
  if (ids.length === 1) return [`${column} = ?`, ids[0]];
  return [sqlFor(engine, inJson(column, kind)), JSON.stringify(ids)];
}

/**
 * Where a term filter drives the query (015-event-term-listing.sql): `l` is the term's listing rows (start date,
 * end date, status, listing flag, in start order), read instead of `events` and `posts` for those columns.
 */
interface Driver {
  /** The index in `termIds` of the term group `l` is read for. */
  group: number;
}

/**
 * The WHERE clause. Term, venue and organizer filters take two equivalent spellings: `EXISTS` per row for a
 * page (SQLite walks the start-date index in order and stops after a page), and `e.post_id IN (...)` for the
 * count (SQLite starts from the term's posts instead of testing every event of the date window: 0.5 ms instead
 * of 5 ms for a category of 700 events among 10,000, bench:server). With a `driver`, the status, dates and
 * listing flag are read from the listing rows `l`, its term group is `l.term_id`, and the other term, venue and
 * organizer filters test `l.post_id`.
 */
function where(q: EventQuery, engine: Engine, forCount = false, driver?: Driver): Condition {
  const on = driver ? 'l' : undefined;
  const id = on ? 'l.post_id' : 'p.id';
  const c: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...ps: unknown[]) => {
    c.push(sql);
    params.push(...ps);
  };
  if (on) add(...inIds(engine, 'l.status', 'text', q.statuses));
  else add(sqlFor(engine, inJson('p.status', 'text')), JSON.stringify(q.statuses));
  const ev = on ?? 'e';
  if (q.startsOnOrAfter) add(`${ev}.start_utc >= ?`, q.startsOnOrAfter);
  if (q.endsOnOrBefore) add(`${ev}.end_utc <= ?`, q.endsOnOrBefore);
  if (q.startsBefore) add(`${ev}.start_utc < ?`, q.startsBefore);
  if (q.startsAfter) add(`${ev}.start_utc > ?`, q.startsAfter);
  if (q.endsBefore) add(`${ev}.end_utc < ?`, q.endsBefore);
  if (q.endsAfter) add(`${ev}.end_utc > ?`, q.endsAfter);
  if (q.search) {
    const l = likeContains(q.search);
    const like = sqlFor(engine, LIKE_NOCASE);
    add(
      `(p.title ${like} ? ESCAPE '\\' OR p.content ${like} ? ESCAPE '\\' OR p.title_et ${like} ? ESCAPE '\\' OR p.content_et ${like} ? ESCAPE '\\')`,
      l,
      l,
      l,
      l,
    );
    // WordPress's search leaves password-protected posts out for callers who are not signed in, so the
    // hidden text answers no question about itself.
    if (q.searchSkipsProtected) add("p.password = ''");
  }
  (q.termIds ?? []).forEach((ids, i) => {
    if (driver?.group === i) {
      add(...inIds(engine, 'l.term_id', 'id', ids));
      return;
    }
    const [t, v] = inIds(engine, 'tr.term_id', 'id', ids);
    if (forCount && !on) add(`e.post_id IN (SELECT tr.post_id FROM term_relationships tr WHERE ${t})`, v);
    else add(`EXISTS (SELECT 1 FROM term_relationships tr WHERE tr.post_id = ${id} AND ${t})`, v);
  });
  if (q.venueIds) {
    const [t, v] = inIds(engine, 'ev.venue_id', 'id', q.venueIds);
    if (forCount && !on) add(`e.post_id IN (SELECT ev.event_id FROM event_venues ev WHERE ${t})`, v);
    else add(`EXISTS (SELECT 1 FROM event_venues ev WHERE ev.event_id = ${id} AND ${t})`, v);
  }
  if (q.organizerIds) {
    const [t, v] = inIds(engine, 'eo.organizer_id', 'id', q.organizerIds);
    if (forCount && !on) add(`e.post_id IN (SELECT eo.event_id FROM event_organizers eo WHERE ${t})`, v);
    else add(`EXISTS (SELECT 1 FROM event_organizers eo WHERE eo.event_id = ${id} AND ${t})`, v);
  }
  if (q.featured !== undefined) add('e.featured = ?', q.featured ? 1 : 0);
  if (q.include) add(sqlFor(engine, inJson('p.id', 'id')), JSON.stringify(q.include));
  if (q.postParent !== undefined) add('p.parent = ?', q.postParent);
  if (q.excludeHidden) add(`${ev}.hide_from_listings = 0`);
  const geo =
    'EXISTS (SELECT 1 FROM event_venues gv JOIN venues v ON v.post_id = gv.venue_id WHERE gv.event_id = p.id AND v.lat IS NOT NULL AND v.lng IS NOT NULL)';
  if (q.geoloc === true) add(geo);
  if (q.geoloc === false) add(`NOT ${geo}`);
  if (q.near) add(`${distance} <= ?`, q.near.lat, q.near.lng, q.near.radiusKm);
  for (const x of q.extra) add(x.sql, ...x.params);
  return { sql: c.join(' AND '), params };
}

const distance =
  '(SELECT MIN(evt_distance_km(v.lat, v.lng, ?, ?)) FROM event_venues dv JOIN venues v ON v.post_id = dv.venue_id WHERE dv.event_id = p.id AND v.lat IS NOT NULL)';

/**
 * The listing rows' FROM: `events` and `posts` joined only for a filter that reads their other columns (search,
 * featured, parent, geolocation, other namespaces' filters), still walked in the listing's order.
 */
function listingFrom(q: EventQuery): string {
  const joins = q.search || q.featured !== undefined || q.postParent !== undefined || q.geoloc !== undefined || q.extra.length > 0;
  return joins ? 'FROM event_term_listing l JOIN events e ON e.post_id = l.post_id JOIN posts p ON p.id = l.post_id' : 'FROM event_term_listing l';
}

/**
 * The term group the listing rows are read for: with no `include` or distance order (each has its own order),
 * the first term group of one ID (its rows are the events themselves: one per event), else for a count only the
 * first group (an event in two of its terms has two rows: counted once).
 */
function driverOf(q: EventQuery): { driver: Driver; distinct: boolean } | undefined {
  if (q.include || q.near || !q.termIds?.length) return undefined;
  const one = q.termIds.findIndex((ids) => ids.length === 1);
  if (one >= 0) return { driver: { group: one }, distinct: false };
  return { driver: { group: 0 }, distinct: true };
}

/**
 * The TEC archive query: one page of IDs in order, and the total. The count and the page are started together
 * (inside Db.together on PostgreSQL, one round trip for both).
 */
export async function queryEvents(db: Db, q: EventQuery): Promise<{ ids: number[]; total: number }> {
  const [total, ids] = await Promise.all([countEvents(db, q), pageOfEvents(db, q)]);
  return { ids, total };
}

const EVENTS_FROM = 'FROM events e JOIN posts p ON p.id = e.post_id';

async function countEvents(db: Db, q: EventQuery): Promise<number> {
  const d = driverOf(q);
  if (d) {
    const wl = where(q, db.engine, true, d.driver);
    const count = async (cond: string, ...ps: unknown[]) => {
      const from = listingFrom(q);
      const sql = d.distinct
        ? `SELECT COUNT(*) AS n FROM (SELECT DISTINCT l.post_id ${from} WHERE ${wl.sql}${cond}) AS d`
        : `SELECT COUNT(*) AS n ${from} WHERE ${wl.sql}${cond}`;
      return ((await statement(db, sql).get(...wl.params, ...ps)) as { n: number }).n;
    };
    // An event that ends by the bound and starts before it, read as far as the bound instead of to the term's last
    // event (0.07 -> 0.05 ms, bench:server); an inverted one (ends before it starts) from its own small index.
    const bound = q.endsOnOrBefore;
    if (!bound) return await count('');
    const [before, inverted] = await Promise.all([count(' AND l.start_utc <= ?', bound), count(' AND l.inverted = 1 AND l.start_utc > ?', bound)]);
    return before + inverted;
  }
  const wc = where(q, db.engine, true);
  return ((await statement(db, `SELECT COUNT(*) AS n ${EVENTS_FROM} WHERE ${wc.sql}`).get(...wc.params)) as { n: number }).n;
}

async function pageOfEvents(db: Db, q: EventQuery): Promise<number[]> {
  const d = driverOf(q);
  if (d && !d.distinct) {
    const wl = where(q, db.engine, false, d.driver);
    const rows = (await statement(
      db,
      `SELECT l.post_id AS id ${listingFrom(q)} WHERE ${wl.sql} ORDER BY l.start_utc ASC, l.post_id ASC LIMIT ? OFFSET ?`,
    ).all(...wl.params, q.limit, q.offset)) as { id: number }[];
    return rows.map((r) => r.id);
  }
  const w = where(q, db.engine);
  let order = 'e.start_utc ASC, e.post_id ASC';
  const orderParams: unknown[] = [];
  if (q.near) {
    order = `${distance} ASC, e.start_utc ASC, p.id ASC`;
    orderParams.push(q.near.lat, q.near.lng);
  } else if (q.include) order = 'p.date ASC, p.id ASC';
  const rows = (await statement(db, `SELECT p.id ${EVENTS_FROM} WHERE ${w.sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(
    ...w.params,
    ...orderParams,
    q.limit,
    q.offset,
  )) as { id: number }[];
  return rows.map((r) => r.id);
}

/** For tests of the index the archive relies on. */
export async function explainEventQuery(db: Db, q: EventQuery): Promise<string[]> {
  const w = where(q, db.engine);
  return (
    (await db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT p.id FROM events e JOIN posts p ON p.id = e.post_id WHERE ${w.sql} ORDER BY e.start_utc ASC, e.post_id ASC LIMIT 50`,
      )
      .all(...w.params)) as { detail: string }[]
  ).map((r) => r.detail);
}

/** Events without a password (the public site lists and searches only those). */
export function unprotectedCondition(): Condition {
  return { sql: "p.password = ''", params: [] };
}
