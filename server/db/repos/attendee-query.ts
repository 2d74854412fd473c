import type { Db } from '../connection.ts';
import { dbNow, likeContains, rowReader, statement } from '../connection.ts';
import { type Engine, StateKey } from '../engine/types.ts';
import { inJson, jsonElements, LIKE_NOCASE, sqlFor } from '../engine/sql.ts';
import { changeStamp, sharedStateOf } from '../change-feed.ts';
import { EFFECTIVE_ORDER_STATUS, PG_ORDER_CHECKIN_JOINS, ROW_COLS, type AttendeeRow } from './attendees.ts';

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
  /**
   * An explicit `order_status` filter: as in the original, an RSVP attendee's status is then its going status
   * (`yes`, `no`), so `completed` or `pending` leave RSVPs out and `public` keeps the going ones.
   */
  rsvpStatusAsOrderStatus?: boolean;
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
  /**
   * Keyset paging (the door snapshot, ID order only): the attendees with an ID above this one, `offset` unused.
   * The total stays that of the whole list.
   */
  afterId?: number;
  /** Only attendees of events this user authored (an organizer's reach). */
  eventAuthor?: number;
  /** Matches nothing (a filter no attendee can satisfy). */
  empty?: boolean;
  orderby: 'id' | 'date' | 'include' | 'title' | 'slug';
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/** Every post status but trash (domain/events/access.ts WRITABLE_STATUSES). */
const NON_TRASH = ['publish', 'future', 'draft', 'pending', 'private'];

/** The parts of a list statement, in `engine`'s SQL. */
function build(q: AttendeeQuery, engine: Engine): { from: string; where: string; params: unknown[]; orderBy: string } {
  const where: string[] = [];
  const params: unknown[] = [];
  const joins = new Set<string>();
  const inList = (col: string, kind: 'id' | 'text', values: readonly (string | number)[], not = false) => {
    where.push(sqlFor(engine, inJson(col, kind, not)));
    params.push(JSON.stringify(values));
  };
  const like = sqlFor(engine, LIKE_NOCASE);
  if (q.empty) where.push('FALSE');
  // A single event is the kiosk's query: filter on the covering index (event_id, post_id, status).
  if (q.eventIds?.length === 1) {
    where.push('a.event_id = ?');
    params.push(q.eventIds[0]);
  } else if (q.eventIds) inList('a.event_id', 'id', q.eventIds);
  if (q.excludeEventIds) inList('a.event_id', 'id', q.excludeEventIds, true);
  if (q.ticketIds) inList('a.ticket_id', 'id', q.ticketIds);
  if (q.excludeTicketIds) inList('a.ticket_id', 'id', q.excludeTicketIds, true);
  if (q.include) inList('a.post_id', 'id', q.include);
  if (q.exclude) inList('a.post_id', 'id', q.exclude, true);
  if (q.providers) inList('a.provider', 'text', q.providers);
  if (q.statuses) {
    // The managers' default (every status but trash) as one comparison: the kiosk's full download pages
    // through the covering index, and a list lookup per entry would double its cost.
    const notTrash = NON_TRASH.every((st) => q.statuses!.includes(st)) && !q.statuses.includes('trash');
    if (notTrash) where.push("a.status <> 'trash'");
    else if (q.statuses.length === 1) {
      where.push('a.status = ?');
      params.push(q.statuses[0]);
    } else inList('a.status', 'text', q.statuses);
  }
  if (q.eventStatuses || q.publicOnly || q.eventAuthor !== undefined) joins.add('JOIN posts e ON e.id = a.event_id');
  if (q.eventAuthor !== undefined) {
    where.push('e.author = ?');
    params.push(q.eventAuthor);
  }
  if (q.eventStatuses) inList('e.status', 'text', q.eventStatuses);
  if (q.orderStatuses) {
    joins.add('LEFT JOIN orders o ON o.post_id = a.order_id');
    inList(
      q.rsvpStatusAsOrderStatus
        ? `CASE WHEN a.provider = 'rsvp' THEN COALESCE(a.rsvp_status, 'yes') ELSE ${EFFECTIVE_ORDER_STATUS} END`
        : EFFECTIVE_ORDER_STATUS,
      'text',
      q.orderStatuses,
    );
  }
  if (q.publicOnly) where.push("a.optout = 0 AND (a.rsvp_status IS NULL OR a.rsvp_status = 'yes') AND e.password = ''");
  if (q.search) {
    // E-mail addresses are private: only a manager's search looks into them.
    if (q.publicOnly) where.push(`a.full_name ${like} ? ESCAPE '\\'`);
    else {
      where.push(`(a.full_name ${like} ? ESCAPE '\\' OR a.email ${like} ? ESCAPE '\\')`);
      params.push(likeContains(q.search));
    }
    params.push(likeContains(q.search));
  }
  if (q.name) {
    where.push(`a.full_name ${like} ? ESCAPE '\\'`);
    params.push(likeContains(q.name));
  }
  if (q.email) {
    where.push(`a.email ${like} ? ESCAPE '\\'`);
    params.push(likeContains(q.email));
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
  // As the original: the going status narrows RSVP attendees only; other attendees have none and stay.
  if (q.rsvpGoing) {
    where.push(`(a.provider <> 'rsvp' OR ${sqlFor(engine, inJson("COALESCE(a.rsvp_status, 'yes')", 'text'))})`);
    params.push(JSON.stringify(q.rsvpGoing));
  }
  // The change cursor: SQLite keeps each attendee's number in its row, PostgreSQL in attendee_cursor
  // (migrations-pg/025), where every attendee has one from the commit that made it: 0 asks for all of them.
  if (q.changedSince !== undefined && (engine === 'sqlite' || q.changedSince > 0)) {
    where.push(
      engine === 'sqlite' ? 'a.change_seq > ?' : 'EXISTS (SELECT 1 FROM attendee_cursor ch WHERE ch.post_id = a.post_id AND ch.change_seq > ?)',
    );
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
        orderBy = `(SELECT MIN(CAST(j.key AS BIGINT)) FROM ${sqlFor(engine, jsonElements('j', 'id'))} WHERE j.value = a.post_id) ${dir}`;
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

// Totals of recent queries, and where each served page ended (kept on the database's handle, Db.state), keyed by the query and by the connection's
// change counter plus SQLite's data version: any write (this connection or another) makes every entry miss.
// With shared state in the database (PostgreSQL) another process's change is seen through the change log, which a
// change made outside Doorstep (psql) does not write: the key then also moves every ATTENDEE_MEMO_REVALIDATE_MS
// (as server/routes/events/present-cache.ts's PRESENT_REVALIDATE_MS), so such a change shows within a minute.
// On a quiet list, page N+1 of an ID-ordered query then starts after the last ID of page N (keyset) instead
// of stepping over N pages of index entries, which keeps a 100,000-attendee download linear.
/** Totals and page boundaries of recent attendee queries, by query and change stamp, on the database's handle. */
const MEMOS = new StateKey<Map<string, QueryMemo>>('attendee query memos');

export interface QueryMemo {
  total: number;
  /** offset -> ID of the row just before it, for ID-ordered queries. */
  boundaries: Map<number, number>;
}
export const ATTENDEE_MEMO_REVALIDATE_MS = 60_000;

async function memoFor(db: Db, key: string): Promise<{ memo: QueryMemo | undefined; store: (m: QueryMemo) => void; k: string }> {
  const v = { c: db.totalChanges() };
  const dv = await changeStamp(db, 'any');
  const epoch = sharedStateOf(db) === 'database' ? Math.floor(dbNow(db) / ATTENDEE_MEMO_REVALIDATE_MS) : 0;
  const k = `${v.c}:${dv}:${epoch}:${key}`;
  const map = db.state.of(MEMOS, () => new Map<string, QueryMemo>());
  return {
    memo: map.get(k),
    k,
    store: (memo) => {
      if (map.size >= 200) map.clear();
      map.set(k, memo);
    },
  };
}

/**
 * The statement of one page's IDs (keyset after the memo's boundary when it has one) and what it learns.
 * `inlineCount`: when no memo has the total, the caller counts in its own statement (`count`, with its
 * arguments) and hands the total to `counted`, instead of a statement here.
 */
async function pageStatement(db: Db, q: AttendeeQuery, inlineCount = false) {
  const { from, where, params, orderBy } = build(q, db.engine);
  const { memo: found, store } = await memoFor(db, `${from} ${where} ${orderBy} ${JSON.stringify(params)}`);
  const countSql = `SELECT COUNT(*) AS n FROM ${from} ${where}`;
  // A first page counts afresh even with a memo (inlineCount): the memo's total was counted before this
  // request's change-log read, and a change committed after that read is in the page; the cursor is read with
  // the first page, so its total must be of the same snapshot. A delta (changed_since > 0) counts at every page:
  // an attendee changed between two pages enters the set wherever its ID falls and pushes the rows after it one
  // place on, so the last rows would fall past a total counted before (rows the first page's cursor already
  // covers: lost; the invariant test missed the highest IDs so). A delta is small, its count cheap; a whole list
  // only grows at its end (new IDs), where nothing is pushed.
  const fresh = inlineCount && (!found || (q.offset === 0 && q.afterId === undefined) || (q.changedSince ?? 0) > 0);
  const memo = found ?? {
    total: inlineCount ? -1 : ((await statement(db, countSql).get(...params)) as { n: number }).n,
    boundaries: new Map(),
  };
  if (!found && !inlineCount) store(memo);
  const count = fresh ? { sql: countSql, args: params } : null;
  /** The total the caller's statement counted (inlineCount). */
  const counted = (n: number) => {
    memo.total = n;
    store(memo);
  };
  const byId = q.orderby === 'id' || (q.orderby === 'include' && !q.include?.length);
  const keyset = byId && q.afterId !== undefined;
  const after = keyset ? q.afterId : byId ? memo.boundaries.get(q.offset) : undefined;
  let sql: string;
  let args: unknown[];
  if (after !== undefined) {
    const cmp = q.order === 'DESC' ? '<' : '>';
    const clause = where ? `${where} AND a.post_id ${cmp} ?` : `WHERE a.post_id ${cmp} ?`;
    sql = `SELECT a.post_id AS id FROM ${from} ${clause} ORDER BY ${orderBy} LIMIT ?`;
    args = [...params, after, q.limit];
  } else {
    const orderParams = q.orderby === 'include' && q.include?.length ? [JSON.stringify(q.include)] : [];
    sql = `SELECT a.post_id AS id FROM ${from} ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`;
    args = [...params, ...orderParams, q.limit, q.offset];
  }
  /** Keeps where an ID-ordered page ended, so the next one starts after it. */
  const seen = (ids: readonly number[]) => {
    if (byId && !keyset && ids.length === q.limit) {
      if (memo.boundaries.size >= 5_000) memo.boundaries.clear();
      memo.boundaries.set(q.offset + q.limit, ids[ids.length - 1]!);
    }
  };
  return { sql, args, total: memo.total, seen, count, counted };
}

/** IDs of one page and the total before paging (offset already taken off, as Event Tickets reports it). */
export async function queryAttendees(db: Db, q: AttendeeQuery): Promise<{ ids: number[]; total: number }> {
  const page = await pageStatement(db, q);
  const ids = (
    (await statement(db, page.sql)
      .raw()
      .all(...page.args)) as [number][]
  ).map((r) => r[0]);
  page.seen(ids);
  return { ids, total: page.total };
}

/** What `readAttendeePage` answers: the page's rows, the total, the change cursor, and whether a hold had lapsed. */
export interface AttendeePage {
  rows: AttendeeRow[];
  total: number;
  cursor: number;
  /** An unpaid order's hold had run out (order-hold.ts): the caller sweeps and reads again. */
  lapsed: boolean;
  /** How many IDs the page statement gave and the last of them (rows leave out an ID whose post is gone). */
  idCount: number;
  lastId: number | null;
}

/**
 * PostgreSQL: a page's rows, the change cursor and whether a hold has lapsed, in ONE statement (one round trip,
 * one snapshot: a change committed after the cursor cannot be in the page without also being after it). Its IDs
 * come from the page statement numbered in its order (a subquery's ORDER BY ... LIMIT feeds ROW_NUMBER() OVER ()
 * in that order); every join is a LEFT JOIN from the one `sequences` row, so an empty page still carries the
 * cursor, and an ID whose post, ticket or event is gone still moves the keyset boundary but shows no row (as
 * getAttendeeRows drops it). On SQLite the route reads cursor, IDs and rows in one read transaction instead.
 */
export async function readAttendeePage(db: Db, q: AttendeeQuery, nowUtc: string): Promise<AttendeePage> {
  // The total is counted in the same statement (one snapshot with the page and the cursor) unless a memo has it:
  // counted a statement earlier, a change committed between the two made the page longer than the total said,
  // a reader paging by the total stopped a page short, and the cursor, newer than the count, passed over what
  // it had not read (the change-cursor invariant test failed so under load).
  const page = await pageStatement(db, q, true);
  const sql = `SELECT s.value AS evt_cursor,
  EXISTS (SELECT 1 FROM orders WHERE status = 'pending' AND hold_until_utc IS NOT NULL AND hold_until_utc <= ?) AS evt_lapsed,
  ${page.count ? `(${page.count.sql})` : 'NULL'} AS evt_total,
  pg.id AS evt_id, p.id AS evt_post, t.post_id AS evt_ticket, e.id AS evt_event, ${ROW_COLS}
FROM sequences s
LEFT JOIN (SELECT id, ROW_NUMBER() OVER () AS pos FROM (${page.sql}) ids) pg ON 1 = 1
LEFT JOIN attendees a ON a.post_id = pg.id
LEFT JOIN posts p ON p.id = a.post_id
${PG_ORDER_CHECKIN_JOINS}
LEFT JOIN tickets t ON t.post_id = a.ticket_id
LEFT JOIN posts tp ON tp.id = a.ticket_id
LEFT JOIN posts e ON e.id = a.event_id
WHERE s.name = 'attendee_change'
ORDER BY pg.pos`;
  type Joined = AttendeeRow & {
    evt_cursor: number;
    evt_lapsed: number;
    evt_total: number | null;
    evt_id: number | null;
    evt_post: number | null;
    evt_ticket: number | null;
    evt_event: number | null;
  };
  const found = await rowReader<Joined>(db, sql).all(nowUtc, ...(page.count?.args ?? []), ...page.args);
  if (page.count) page.counted(Number(found[0]?.evt_total ?? 0));
  const ids: number[] = [];
  const rows: AttendeeRow[] = [];
  for (const { evt_cursor: _c, evt_lapsed: _l, evt_total: _t, evt_id, evt_post, evt_ticket, evt_event, ...row } of found) {
    if (evt_id === null) continue;
    ids.push(evt_id);
    if (evt_post !== null && evt_ticket !== null && evt_event !== null) rows.push(row);
  }
  page.seen(ids);
  const first = found[0];
  return {
    rows,
    total: page.count ? Number(first?.evt_total ?? 0) : page.total,
    cursor: Number(first?.evt_cursor ?? 0),
    lapsed: first?.evt_lapsed === 1,
    idCount: ids.length,
    lastId: ids.at(-1) ?? null,
  };
}

/** `EXPLAIN QUERY PLAN` of a list query's count and page statements (a test holds them to their indexes). */
export async function explainAttendeeQuery(db: Db, q: AttendeeQuery): Promise<{ count: string[]; page: string[] }> {
  const { from, where, params, orderBy } = build(q, db.engine);
  const plan = async (sql: string, p: unknown[]) =>
    ((await db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...p)) as { detail: string }[]).map((r) => r.detail);
  return {
    count: await plan(`SELECT COUNT(*) AS n FROM ${from} ${where}`, params),
    page: await plan(`SELECT a.post_id AS id FROM ${from} ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`, [...params, q.limit, q.offset]),
  };
}
