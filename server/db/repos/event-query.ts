import type { Db } from '../connection.ts';
import { likeContains, stmt } from '../connection.ts';

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
function inIds(column: string, ids: number[]): [string, unknown] {
  if (ids.length === 1) return [`${column} = ?`, ids[0]];
  return [`${column} IN (SELECT value FROM json_each(?))`, JSON.stringify(ids)];
}

/**
 * The WHERE clause. Term, venue and organizer filters take two equivalent spellings: `EXISTS` per row for a
 * page (SQLite walks the start-date index in order and stops after a page), and `e.post_id IN (...)` for the
 * count (SQLite starts from the term's posts instead of testing every event of the date window: 0.5 ms instead
 * of 5 ms for a category of 700 events among 10,000, bench:server).
 */
function where(q: EventQuery, forCount = false): Condition {
  const c: string[] = ['p.status IN (SELECT value FROM json_each(?))'];
  const params: unknown[] = [JSON.stringify(q.statuses)];
  const add = (sql: string, ...ps: unknown[]) => {
    c.push(sql);
    params.push(...ps);
  };
  if (q.startsOnOrAfter) add('e.start_utc >= ?', q.startsOnOrAfter);
  if (q.endsOnOrBefore) add('e.end_utc <= ?', q.endsOnOrBefore);
  if (q.startsBefore) add('e.start_utc < ?', q.startsBefore);
  if (q.startsAfter) add('e.start_utc > ?', q.startsAfter);
  if (q.endsBefore) add('e.end_utc < ?', q.endsBefore);
  if (q.endsAfter) add('e.end_utc > ?', q.endsAfter);
  if (q.search) {
    const l = likeContains(q.search);
    add(
      "(p.title LIKE ? ESCAPE '\\' OR p.content LIKE ? ESCAPE '\\' OR p.title_et LIKE ? ESCAPE '\\' OR p.content_et LIKE ? ESCAPE '\\')",
      l,
      l,
      l,
      l,
    );
    // WordPress's search leaves password-protected posts out for callers who are not signed in, so the
    // hidden text answers no question about itself.
    if (q.searchSkipsProtected) add("p.password = ''");
  }
  for (const ids of q.termIds ?? []) {
    const [t, v] = inIds('tr.term_id', ids);
    if (forCount) add(`e.post_id IN (SELECT tr.post_id FROM term_relationships tr WHERE ${t})`, v);
    else add(`EXISTS (SELECT 1 FROM term_relationships tr WHERE tr.post_id = p.id AND ${t})`, v);
  }
  if (q.venueIds) {
    const [t, v] = inIds('ev.venue_id', q.venueIds);
    if (forCount) add(`e.post_id IN (SELECT ev.event_id FROM event_venues ev WHERE ${t})`, v);
    else add(`EXISTS (SELECT 1 FROM event_venues ev WHERE ev.event_id = p.id AND ${t})`, v);
  }
  if (q.organizerIds) {
    const [t, v] = inIds('eo.organizer_id', q.organizerIds);
    if (forCount) add(`e.post_id IN (SELECT eo.event_id FROM event_organizers eo WHERE ${t})`, v);
    else add(`EXISTS (SELECT 1 FROM event_organizers eo WHERE eo.event_id = p.id AND ${t})`, v);
  }
  if (q.featured !== undefined) add('e.featured = ?', q.featured ? 1 : 0);
  if (q.include) add('p.id IN (SELECT value FROM json_each(?))', JSON.stringify(q.include));
  if (q.postParent !== undefined) add('p.parent = ?', q.postParent);
  if (q.excludeHidden) add('e.hide_from_listings = 0');
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

/** The TEC archive query: one page of IDs in order, and the total. */
export function queryEvents(db: Db, q: EventQuery): { ids: number[]; total: number } {
  const w = where(q);
  const wc = where(q, true);
  const from = 'FROM events e JOIN posts p ON p.id = e.post_id';
  const total = (stmt(db, `SELECT COUNT(*) AS n ${from} WHERE ${wc.sql}`).get(...wc.params) as { n: number }).n;
  let order = 'e.start_utc ASC, e.post_id ASC';
  const orderParams: unknown[] = [];
  if (q.near) {
    order = `${distance} ASC, e.start_utc ASC, p.id ASC`;
    orderParams.push(q.near.lat, q.near.lng);
  } else if (q.include) order = 'p.date ASC, p.id ASC';
  const rows = stmt(db, `SELECT p.id ${from} WHERE ${w.sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(
    ...w.params,
    ...orderParams,
    q.limit,
    q.offset,
  ) as { id: number }[];
  return { ids: rows.map((r) => r.id), total };
}

/** For tests of the index the archive relies on. */
export function explainEventQuery(db: Db, q: EventQuery): string[] {
  const w = where(q);
  return (
    db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT p.id FROM events e JOIN posts p ON p.id = e.post_id WHERE ${w.sql} ORDER BY e.start_utc ASC, e.post_id ASC LIMIT 50`,
      )
      .all(...w.params) as { detail: string }[]
  ).map((r) => r.detail);
}

/** Events without a password (the public site lists and searches only those). */
export function unprotectedCondition(): Condition {
  return { sql: "p.password = ''", params: [] };
}
