import crypto from 'node:crypto';
import type { Db } from '../connection.ts';
import { rowReader, statement } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';
import { inJson, sql } from '../engine/sql.ts';
import type { CheckinRow } from './checkins.ts';
import { NONCE_LOCK_SPACE } from './locks.ts';

/**
 * Attendees (table `attendees`, each also a post of type `attendee`). Reads join everything an attendee
 * object shows (its post, ticket, event, order and standing check-in) in one statement per page.
 */

export interface AttendeeRow {
  id: number;
  ticket_id: number;
  event_id: number;
  order_id: number | null;
  provider: 'rsvp' | 'tc';
  full_name: string;
  email: string;
  security_code: string;
  price_minor: number;
  optout: number;
  rsvp_status: string | null;
  checked_in: number;
  checkin_id: number | null;
  status: string;
  author: number;
  slug: string;
  title: string;
  date: string;
  date_gmt: string;
  modified: string;
  modified_gmt: string;
  ticket_title: string;
  ticket_title_et: string | null;
  ticket_content: string;
  ticket_content_et: string | null;
  ticket_price_minor: number;
  ticket_currency: string;
  ticket_sku: string;
  ticket_start_date: string;
  ticket_start_time: string;
  ticket_end_date: string;
  ticket_end_time: string;
  event_status: string;
  event_password: string;
  order_status: string | null;
  order_currency: string | null;
  order_created_utc: string | null;
  order_completed_utc: string | null;
  /** `box-office` for the one-line order of a sale made through `POST /attendees` (see markBoxOfficeOrder). */
  order_gateway_ref: string | null;
  ci_scanned_at: string | null;
  ci_source: string | null;
  ci_user_id: number | null;
  ci_device_id: string | null;
  /**
   * A venue hub's scan the standing check-in overruled (the site had another first; server/hub/push.ts): its
   * device, scan time and nonce, so the kiosk that made it is told. Null everywhere else.
   */
  ci_replaced_device_id?: string | null;
  ci_replaced_scanned_at?: string | null;
  ci_replaced_nonce?: string | null;
  /** The label of the door key that made the standing check-in ("Door 1"), for the door view. */
  ci_device_label?: string | null;
}

/**
 * The status the check-in rules and `order_status` read: the order's, except that an RSVP "not going" is
 * `no` (Event Tickets' RSVP vocabulary), which no rule admits. An attendee without an order counts as complete.
 */
export const EFFECTIVE_ORDER_STATUS = "CASE WHEN a.rsvp_status = 'no' THEN 'no' ELSE COALESCE(o.status, 'completed') END";

export function effectiveOrderStatus(row: Pick<AttendeeRow, 'rsvp_status' | 'order_status'>): string {
  return row.rsvp_status === 'no' ? 'no' : (row.order_status ?? 'completed');
}

// Column lists shared by the single-row join and the page reads, so the two cannot drift apart.
const CORE_COLS = `a.post_id AS id, a.ticket_id, a.event_id, a.order_id, a.provider, a.full_name, a.email, a.security_code,
  a.price_minor, a.optout, a.rsvp_status, a.checked_in, a.checkin_id, a.status,
  p.author, p.slug, p.title, p.date, p.date_gmt, p.modified, p.modified_gmt,
  o.status AS order_status, o.currency AS order_currency, o.created_utc AS order_created_utc, o.completed_utc AS order_completed_utc, o.gateway_ref AS order_gateway_ref,
  c.scanned_at AS ci_scanned_at, c.source AS ci_source, c.user_id AS ci_user_id, c.device_id AS ci_device_id,
  (SELECT r.device_id FROM checkins r WHERE r.id = c.replaces_id) AS ci_replaced_device_id,
  (SELECT r.scanned_at FROM checkins r WHERE r.id = c.replaces_id) AS ci_replaced_scanned_at,
  (SELECT r.nonce FROM checkins r WHERE r.id = c.replaces_id) AS ci_replaced_nonce,
  COALESCE(c.device_label, (SELECT k.label FROM api_keys k WHERE k.id = c.api_key_id)) AS ci_device_label`;
const TICKET_COLS = `tp.title AS ticket_title, tp.title_et AS ticket_title_et, tp.content AS ticket_content, tp.content_et AS ticket_content_et,
  t.price_minor AS ticket_price_minor, t.currency AS ticket_currency, t.sku AS ticket_sku,
  t.start_date AS ticket_start_date, t.start_time AS ticket_start_time, t.end_date AS ticket_end_date, t.end_time AS ticket_end_time`;
const CORE_JOINS = `JOIN posts p ON p.id = a.post_id
LEFT JOIN orders o ON o.post_id = a.order_id
LEFT JOIN checkins c ON c.id = a.checkin_id`;

/**
 * PostgreSQL's CORE_JOINS (the page read, attendee-query.ts, joins the post its own way and these the same): the
 * order and the standing check-in each looked up by key for each attendee (a fenced
 * LATERAL, OFFSET 0, cannot be pulled up into a join the planner may hash), whatever the tables' statistics say.
 * A statement's cached plan is made with the statistics of when it was first planned: planned at the start of an
 * evening, with `checkins` a few hundred rows, the plain join hashed all of `checkins` for every batch of 25
 * (a sequential scan of 16,000 rows, 15 ms, seen with auto_explain in bench:scale) until an ANALYZE came.
 */
export const PG_ORDER_CHECKIN_JOINS = `LEFT JOIN LATERAL (SELECT * FROM orders WHERE orders.post_id = a.order_id OFFSET 0) o ON true
LEFT JOIN LATERAL (SELECT * FROM checkins WHERE checkins.id = a.checkin_id OFFSET 0) c ON true`;
const PG_CORE_JOINS = `JOIN posts p ON p.id = a.post_id
${PG_ORDER_CHECKIN_JOINS}`;

/** A whole row's columns (CORE_JOINS and the ticket's and event's joins under their aliases), for attendee-query.ts. */
export const ROW_COLS = `${CORE_COLS}, ${TICKET_COLS}, e.status AS event_status, e.password AS event_password`;

const SELECT_ROW = `
SELECT ${ROW_COLS}
FROM attendees a
${CORE_JOINS}
JOIN tickets t ON t.post_id = a.ticket_id
JOIN posts tp ON tp.id = a.ticket_id
JOIN posts e ON e.id = a.event_id
WHERE a.post_id = ?`;

// SQLite only (see getAttendeeRows): a page's attendees share a handful of tickets and events, read once each.
const SELECT_PAGE = `SELECT ${CORE_COLS} FROM attendees a ${CORE_JOINS} WHERE a.post_id IN (SELECT value FROM json_each(?))`;

const SELECT_TICKETS = `SELECT t.post_id AS ticket_id, ${TICKET_COLS}
FROM tickets t JOIN posts tp ON tp.id = t.post_id WHERE t.post_id IN (SELECT value FROM json_each(?))`;

const SELECT_EVENTS =
  'SELECT id AS event_id, status AS event_status, password AS event_password FROM posts WHERE id IN (SELECT value FROM json_each(?))';

type TicketPart = Pick<
  AttendeeRow,
  | 'ticket_id'
  | 'ticket_title'
  | 'ticket_title_et'
  | 'ticket_content'
  | 'ticket_content_et'
  | 'ticket_price_minor'
  | 'ticket_currency'
  | 'ticket_sku'
  | 'ticket_start_date'
  | 'ticket_start_time'
  | 'ticket_end_date'
  | 'ticket_end_time'
>;
type EventPart = Pick<AttendeeRow, 'event_id' | 'event_status' | 'event_password'>;
type CorePart = Omit<AttendeeRow, keyof TicketPart | keyof EventPart> & { ticket_id: number; event_id: number };

/**
 * PostgreSQL: the whole rows of a set in one statement (each statement there is a round trip to the server; the
 * same join SQLite makes row by row is cheap for PostgreSQL's planner, which hashes the few tickets and events).
 */
const PG_SELECT_ROW = SELECT_ROW.replace(CORE_JOINS, PG_CORE_JOINS);
const SELECT_SET = PG_SELECT_ROW.replace('WHERE a.post_id = ?', `WHERE ${inJson('a.post_id', 'id').pg}`);

/** SQLite: the tickets' and events' parts of these rows, each read once. */
async function ticketAndEventParts(
  db: Db,
  core: readonly { ticket_id: number; event_id: number }[],
): Promise<{ tickets: Map<number, TicketPart>; events: Map<number, EventPart> }> {
  const tickets = (await statement(db, SELECT_TICKETS).all(JSON.stringify([...new Set(core.map((r) => r.ticket_id))]))) as TicketPart[];
  const events = (await statement(db, SELECT_EVENTS).all(JSON.stringify([...new Set(core.map((r) => r.event_id))]))) as EventPart[];
  return { tickets: new Map(tickets.map((t) => [t.ticket_id, t])), events: new Map(events.map((e) => [e.event_id, e])) };
}

/**
 * Rows in the order of `ids` (missing ones skipped): three statements for a whole page on SQLite, where a page's
 * few tickets and events read once each beat a join per row; one statement on PostgreSQL.
 */
export async function getAttendeeRows(db: Db, ids: readonly number[]): Promise<AttendeeRow[]> {
  if (!ids.length) return [];
  if (db.engine === 'postgres') {
    const byId = new Map((await rowReader<AttendeeRow>(db, SELECT_SET).all(JSON.stringify(ids))).map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is AttendeeRow => r !== undefined);
  }
  const core = await rowReader<CorePart>(db, SELECT_PAGE).all(JSON.stringify(ids));
  const { tickets, events } = await ticketAndEventParts(db, core);
  const byId = new Map<number, AttendeeRow>();
  for (const r of core) {
    const t = tickets.get(r.ticket_id);
    const e = events.get(r.event_id);
    // The single-row join drops attendees whose ticket or event is gone; so does a page.
    if (t && e) byId.set(r.id, Object.assign(r, t, e) as AttendeeRow);
  }
  return ids.map((id) => byId.get(id)).filter((r): r is AttendeeRow => r !== undefined);
}

/**
 * SQLite: what the door's presenters (presentDoorAttendee, presentSnapshotAttendees, presentSnapshotRows) read of
 * an attendee without a standing check-in; a third of CORE_COLS, and none of its per-row subqueries.
 */
const SELECT_DOOR_PAGE = `SELECT a.post_id AS id, a.ticket_id, a.event_id, a.provider, a.full_name, a.email, a.security_code, a.rsvp_status,
  a.checked_in, a.status, p.title, o.status AS order_status
FROM attendees a JOIN posts p ON p.id = a.post_id LEFT JOIN orders o ON o.post_id = a.order_id
WHERE a.post_id IN (SELECT value FROM json_each(?))`;
type DoorPart = Pick<
  AttendeeRow,
  | 'id'
  | 'ticket_id'
  | 'event_id'
  | 'provider'
  | 'full_name'
  | 'email'
  | 'security_code'
  | 'rsvp_status'
  | 'checked_in'
  | 'status'
  | 'title'
  | 'order_status'
>;

/**
 * Rows for the door's presenters only (the door snapshot), in the order of `ids` (missing ones skipped, as
 * getAttendeeRows skips them): on SQLite an attendee without a standing check-in is read with the columns those
 * presenters read and its ticket's and event's parts (the rest of its AttendeeRow left out), one with a check-in
 * whole (its details need the check-in's columns). On a 100,000-attendee download the whole rows' reads were the
 * server's largest item (issue 22). PostgreSQL reads whole rows (getAttendeeRows).
 */
export async function getDoorRows(db: Db, ids: readonly number[]): Promise<AttendeeRow[]> {
  if (!ids.length || db.engine === 'postgres') return await getAttendeeRows(db, ids);
  const core = await rowReader<DoorPart>(db, SELECT_DOOR_PAGE).all(JSON.stringify(ids));
  const checkedIn = core.filter((r) => r.checked_in).map((r) => r.id);
  // Checked-in attendees' whole core columns; every row's ticket and event parts read once for all of them.
  const whole = new Map((checkedIn.length ? await rowReader<CorePart>(db, SELECT_PAGE).all(JSON.stringify(checkedIn)) : []).map((r) => [r.id, r]));
  const { tickets, events } = await ticketAndEventParts(db, core);
  const byId = new Map<number, AttendeeRow>();
  for (const r of core) {
    const t = tickets.get(r.ticket_id);
    const e = events.get(r.event_id);
    // As getAttendeeRows: an attendee whose ticket or event is gone is left out. Only the door's presenters read
    // these rows, and of one not checked in only the fields above (checkinDetails reads nothing more of it).
    const base = r.checked_in ? whole.get(r.id) : r;
    if (base && t && e) byId.set(r.id, Object.assign(base, t, e) as unknown as AttendeeRow);
  }
  return ids.map((id) => byId.get(id)).filter((r): r is AttendeeRow => r !== undefined);
}

const SELECT_ROWS = SELECT_ROW.replace('WHERE a.post_id = ?', 'WHERE a.post_id IN (SELECT value FROM json_each(?))');

/** What a scan decides on: the attendees, and the scans their nonces were first recorded with. */
export interface ScanState {
  rows: AttendeeRow[];
  seen: Pick<CheckinRow, 'nonce' | 'attendee_id' | 'result' | 'reason' | 'list_id'>[];
}

// PostgreSQL, written for it: the attendees' row locks, then the nonces' advisory locks (repos/locks.ts order; a
// target list is evaluated left to right), in one statement; then, in a second statement (a snapshot taken after
// both locks were granted, so it sees what their holders committed), the rows and the nonces' scans. The nonces'
// `IS NOT NULL` lets the partial unique index serve a cached generic plan (one cannot prove it from `= ANY($2)`
// with an array it has not seen): without it every batch read all of checkins, a table that grows at the door.
const PG_LOCK_SCANS = `SELECT
  (SELECT count(*) FROM (SELECT post_id FROM attendees WHERE post_id = ANY($1::bigint[]) ORDER BY post_id FOR NO KEY UPDATE) AS l) AS attendees,
  (SELECT count(pg_advisory_xact_lock(${NONCE_LOCK_SPACE}, h)) FROM (SELECT DISTINCT hashtext(n) AS h FROM unnest($2::text[]) AS n ORDER BY h) AS k) AS nonces`;
// Each nonce is looked up by itself (a fenced LATERAL, as PG_CORE_JOINS): with `= ANY($2)` a plan made while
// `checkins` was small read all of it for every batch (31 ms at 16,000 rows).
export const PG_READ_SCANS = PG_SELECT_ROW.replace(
  'e.password AS event_password',
  `e.password AS event_password, (SELECT json_agg(json_build_object('nonce', k.nonce, 'attendee_id', k.attendee_id, 'result', k.result, 'reason', k.reason, 'list_id', k.list_id))::text
     FROM unnest($2::text[]) AS n(nonce)
     CROSS JOIN LATERAL (SELECT * FROM checkins WHERE checkins.nonce = n.nonce AND checkins.nonce IS NOT NULL OFFSET 0) AS k) AS seen_nonces`,
).replace('WHERE a.post_id = ?', 'WHERE a.post_id = ANY($1::bigint[])');

/** PostgreSQL only (see attendeeRowsOfOrders). */
const SELECT_OF_ORDERS = PG_SELECT_ROW.replace('WHERE a.post_id = ?', `WHERE ${inJson('a.order_id', 'id').pg} ORDER BY a.post_id`);

/**
 * The rows of the attendees of these orders, in ID order: one statement on PostgreSQL; on SQLite their IDs, then
 * getAttendeeRows' statements.
 */
export async function attendeeRowsOfOrders(db: Db, orderIds: readonly number[]): Promise<AttendeeRow[]> {
  if (!orderIds.length) return [];
  if (db.engine === 'postgres') return await rowReader<AttendeeRow>(db, SELECT_OF_ORDERS).all(JSON.stringify(orderIds));
  const ids = (
    (await statement(db, 'SELECT post_id FROM attendees WHERE order_id IN (SELECT value FROM json_each(?)) ORDER BY post_id').all(
      JSON.stringify(orderIds),
    )) as { post_id: number }[]
  ).map((r) => r.post_id);
  return await getAttendeeRows(db, ids);
}

/**
 * The state scans of these attendees with these nonces decide on, under the locks that keep it (repos/locks.ts:
 * one accepted check-in per attendee, one recorded scan per nonce), for the rest of the transaction.
 * PostgreSQL: two statements for any number of scans. A lock and the read must be separate statements: under READ
 * COMMITTED a statement that waited for a row lock re-reads the locked row but keeps the snapshot taken before the
 * wait for everything else (the standing check-in it joins, a nonce recorded meanwhile). SQLite (one writer at a
 * time): the reads alone.
 */
export async function lockScanState(db: Db, ids: readonly number[], nonces: readonly string[]): Promise<ScanState> {
  const idSet = [...new Set(ids)].sort((a, b) => a - b);
  const nonceSet = [...new Set(nonces)];
  if (db.engine !== 'postgres') {
    const rows = idSet.length ? await rowReader<AttendeeRow>(db, SELECT_ROWS).all(JSON.stringify(idSet)) : [];
    const seen = nonceSet.length
      ? ((await statement(db, 'SELECT nonce, attendee_id, result, reason, list_id FROM checkins WHERE nonce IN (SELECT value FROM json_each(?))').all(
          JSON.stringify(nonceSet),
        )) as ScanState['seen'])
      : [];
    return { rows, seen };
  }
  const pgDb = db as PgDb;
  await pgDb.native(PG_LOCK_SCANS, [idSet, nonceSet]);
  const rows = (await pgDb.native(PG_READ_SCANS, [idSet, nonceSet])) as unknown as (AttendeeRow & { seen_nonces?: string | null })[];
  // Every row carries the nonces' scans (one subquery, run once); a scan of no attendee found decides nothing.
  const seenJson = rows[0]?.seen_nonces ?? null;
  for (const r of rows) delete r.seen_nonces;
  return { rows, seen: seenJson ? (JSON.parse(seenJson) as ScanState['seen']) : [] };
}

export async function getAttendeeRow(db: Db, id: number): Promise<AttendeeRow | undefined> {
  return await rowReader<AttendeeRow>(db, SELECT_ROW).get(id);
}

/** The change cursor handed to kiosks (`X-EVT-Cursor`): every attendee change moves it forward. */
export async function attendeeCursor(db: Db): Promise<number> {
  return ((await statement(db, "SELECT value FROM sequences WHERE name = 'attendee_change'").get()) as { value: number }).value;
}

/** A random security code (16 lowercase hex characters), unique among attendees. */
export async function newSecurityCode(db: Db): Promise<string> {
  const taken = statement(db, 'SELECT 1 FROM attendees WHERE security_code = ?');
  for (;;) {
    const code = crypto.randomBytes(8).toString('hex');
    if (!(await taken.get(code))) return code;
  }
}

/** `n` random security codes, distinct and unique among attendees: one lookup for all (again for the rare taken one). */
export async function newSecurityCodes(db: Db, n: number): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < n) {
    const fresh: string[] = [];
    while (codes.size + fresh.length < n) {
      const code = crypto.randomBytes(8).toString('hex');
      if (!codes.has(code) && !fresh.includes(code)) fresh.push(code);
    }
    const taken = new Set(
      (await statement(db, sql`SELECT security_code FROM attendees WHERE ${inJson('security_code', 'text')}`)
        .pluck()
        .all(JSON.stringify(fresh))) as string[],
    );
    for (const c of fresh) if (!taken.has(c)) codes.add(c);
  }
  return [...codes];
}

export interface AttendeeInsert {
  postId: number;
  ticketId: number;
  eventId: number;
  orderId: number | null;
  provider: 'rsvp' | 'tc';
  fullName: string;
  email: string;
  securityCode: string;
  priceMinor: number;
  optout?: boolean;
  rsvpStatus?: 'yes' | 'no' | null;
}

/** The attendee row of an attendee post created with `insertPost(db, 'attendee', ...)`. */
export async function insertAttendeeRow(db: Db, a: AttendeeInsert): Promise<void> {
  await insertAttendeeRows(db, [a]);
}

/** The attendee rows of attendee posts already inserted, in one statement. */
export async function insertAttendeeRows(db: Db, rows: readonly AttendeeInsert[]): Promise<void> {
  if (!rows.length) return;
  await statement(
    db,
    `INSERT INTO attendees (post_id, ticket_id, event_id, order_id, provider, full_name, email, security_code, price_minor, optout, rsvp_status)
     VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  ).run(
    ...rows.flatMap((a) => [
      a.postId,
      a.ticketId,
      a.eventId,
      a.orderId,
      a.provider,
      a.fullName,
      a.email,
      a.securityCode,
      a.priceMinor,
      a.optout ? 1 : 0,
      a.rsvpStatus ?? null,
    ]),
  );
}

export async function updateAttendeeFields(
  db: Db,
  id: number,
  f: { fullName?: string; email?: string; rsvpStatus?: 'yes' | 'no'; optout?: boolean },
): Promise<void> {
  if (f.optout !== undefined) await statement(db, 'UPDATE attendees SET optout = ? WHERE post_id = ?').run(f.optout ? 1 : 0, id);
  if (f.fullName !== undefined) await statement(db, 'UPDATE attendees SET full_name = ? WHERE post_id = ?').run(f.fullName, id);
  if (f.email !== undefined) await statement(db, 'UPDATE attendees SET email = ? WHERE post_id = ?').run(f.email, id);
  if (f.rsvpStatus !== undefined) await statement(db, 'UPDATE attendees SET rsvp_status = ? WHERE post_id = ?').run(f.rsvpStatus, id);
}

/**
 * Marks the attendee checked in with a standing check-in, or out (`checkinId` null), and moves it past every
 * change cursor handed out so far in the same write (the update trigger stands back when change_seq moves).
 */
export async function setCheckedIn(db: Db, id: number, checkinId: number | null): Promise<void> {
  await statement(db, 'UPDATE attendees SET checked_in = ?, checkin_id = ? WHERE post_id = ?').run(checkinId === null ? 0 : 1, checkinId, id);
}

export interface TicketRef {
  id: number;
  event_id: number;
  provider: 'rsvp' | 'tc';
  price_minor: number;
  currency: string;
  capacity: number;
  status: string;
  title: string;
}

export async function getTicketRef(db: Db, id: number): Promise<TicketRef | undefined> {
  return (await statement(
    db,
    `SELECT t.post_id AS id, t.event_id, t.provider, t.price_minor, t.currency, t.capacity, p.status, p.title
     FROM tickets t JOIN posts p ON p.id = t.post_id WHERE t.post_id = ?`,
  ).get(id)) as TicketRef | undefined;
}

/** The event an attendee belongs to, or undefined when there is no such attendee. */
export async function attendeeEventId(db: Db, attendeeId: number): Promise<number | undefined> {
  return (await statement(db, 'SELECT event_id FROM attendees WHERE post_id = ?').pluck().get(attendeeId)) as number | undefined;
}

/** Sets the attendee row's name only (its post's title is the caller's; see updateAttendeeFields for edits). */
export async function setAttendeeFullName(db: Db, id: number, name: string): Promise<void> {
  await statement(db, 'UPDATE attendees SET full_name = ? WHERE post_id = ?').run(name, id);
}

/** The event ending at or after `fromUtc` with the most attendees, and how many (the demo's door). */
export async function busiestEventFrom(db: Db, fromUtc: string): Promise<{ id: number; n: number } | undefined> {
  return (await statement(
    db,
    'SELECT a.event_id AS id, COUNT(*) AS n FROM attendees a JOIN events e ON e.post_id = a.event_id WHERE e.end_utc >= ? GROUP BY a.event_id ORDER BY n DESC LIMIT 1',
  ).get(fromUtc)) as { id: number; n: number } | undefined;
}

/** Up to five attendees of an event not checked in whose order has `orderStatus`, by ID (the demo's sample tickets). */
export async function uncheckedAttendeeCodes(
  db: Db,
  eventId: number,
  orderStatus: string,
): Promise<{ post_id: number; ticket_id: number; security_code: string }[]> {
  return (await statement(
    db,
    'SELECT a.post_id, a.ticket_id, a.security_code FROM attendees a JOIN orders o ON o.post_id = a.order_id WHERE a.event_id = ? AND a.checked_in = 0 AND o.status = ? ORDER BY a.post_id LIMIT 5',
  ).all(eventId, orderStatus)) as { post_id: number; ticket_id: number; security_code: string }[];
}
