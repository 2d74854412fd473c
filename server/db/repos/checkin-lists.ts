import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, sql } from '../engine/sql.ts';
import { nowUtc } from '../clock.ts';
import { CHECKIN_ORDER_STATUSES } from '../../../shared/checkin/order-status.ts';
import { EFFECTIVE_ORDER_STATUS } from './attendees.ts';
import type { LastPass } from '../../../shared/checkin/decide.ts';

/** Check-in lists (table `checkin_lists`, CONTRACT section 8) and what is read of the check-in log per list. */

export interface CheckinListRow {
  id: number;
  event_id: number;
  name: string;
  /** JSON array of ticket IDs; `[]` admits every ticket of the event. */
  ticket_ids: string;
  allow_reentry: number;
  allow_multiple_entries: number;
  /** Site-local `YYYY-MM-DD HH:MM:SS`, or null (open on that side). */
  window_start: string | null;
  window_end: string | null;
  entries_per_day: number | null;
  direction: 'entry' | 'exit';
  created_utc: string;
}

/** A list's fields as written (every one, after defaults and a PATCH's merge). */
export type CheckinListFields = Omit<CheckinListRow, 'id' | 'created_utc'>;

export async function insertCheckinList(db: Db, f: CheckinListFields): Promise<number> {
  const info = await statement(
    db,
    `INSERT INTO checkin_lists (event_id, name, ticket_ids, allow_reentry, allow_multiple_entries, window_start, window_end, entries_per_day,
       direction, created_utc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).run(
    f.event_id,
    f.name,
    f.ticket_ids,
    f.allow_reentry,
    f.allow_multiple_entries,
    f.window_start,
    f.window_end,
    f.entries_per_day,
    f.direction,
    nowUtc(),
  );
  return Number(info.lastInsertRowid);
}

export async function updateCheckinList(db: Db, id: number, f: CheckinListFields): Promise<void> {
  await statement(
    db,
    `UPDATE checkin_lists SET name = ?, ticket_ids = ?, allow_reentry = ?, allow_multiple_entries = ?, window_start = ?, window_end = ?,
       entries_per_day = ?, direction = ? WHERE id = ?`,
  ).run(f.name, f.ticket_ids, f.allow_reentry, f.allow_multiple_entries, f.window_start, f.window_end, f.entries_per_day, f.direction, id);
}

export async function deleteCheckinList(db: Db, id: number): Promise<void> {
  await statement(db, 'DELETE FROM checkin_lists WHERE id = ?').run(id);
}

export async function getCheckinList(db: Db, id: number): Promise<CheckinListRow | undefined> {
  return (await statement(db, 'SELECT * FROM checkin_lists WHERE id = ?').get(id)) as CheckinListRow | undefined;
}

export interface CheckinListQuery {
  eventId?: number;
  /** Only lists of events this user authored (an organizer's reach). */
  eventAuthor?: number;
  /** Only this list (a key bound to a list). */
  listId?: number;
  limit: number;
  offset: number;
}

export async function queryCheckinLists(db: Db, q: CheckinListQuery): Promise<{ rows: CheckinListRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.eventId !== undefined) where.push('event_id = ?'), params.push(q.eventId);
  if (q.eventAuthor !== undefined) where.push('event_id IN (SELECT id FROM posts WHERE author = ?)'), params.push(q.eventAuthor);
  if (q.listId !== undefined) where.push('id = ?'), params.push(q.listId);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = ((await statement(db, `SELECT COUNT(*) AS n FROM checkin_lists ${w}`).get(...params)) as { n: number }).n;
  const rows = (await statement(db, `SELECT * FROM checkin_lists ${w} ORDER BY id LIMIT ? OFFSET ?`).all(
    ...params,
    q.limit,
    q.offset,
  )) as CheckinListRow[];
  return { rows, total };
}

/** A pass of an attendee through a list that counts for its rules: an accepted entry, or an exit of someone inside. */
export interface ListPassRow {
  result: 'accepted' | 'checked_out';
  scanned_at: string;
}

/**
 * The attendee's passes through the list, in the order they were accepted. An exit of someone who was not inside
 * is logged with a reason (`not_checked_in`) and does not count. Read under the attendee's lock (scan.ts), so no
 * other scan of the attendee can add a pass between this read and the decision's write.
 */
export async function listPassesOf(db: Db, listId: number, attendeeId: number, eventId: number): Promise<ListPassRow[]> {
  return (await statement(db, PASSES_SQL).all(listId, attendeeId, eventId, listId, attendeeId)) as ListPassRow[];
}

/**
 * The list's own passes, and the exits through the event's exit lists (direction `exit`): those are exits from the
 * whole event, so they end an entry on every list (domain/checkin/lists.ts).
 */
const PASSES_SQL = `SELECT id, result, scanned_at FROM checkins
  WHERE list_id = ? AND attendee_id = ? AND (result = 'accepted' OR (result = 'checked_out' AND reason IS NULL))
  UNION ALL
  SELECT c.id, c.result, c.scanned_at FROM checkin_lists l JOIN checkins c ON c.list_id = l.id
  WHERE l.event_id = ? AND l.direction = 'exit' AND l.id <> ? AND c.attendee_id = ? AND c.result = 'checked_out' AND c.reason IS NULL
  ORDER BY id`;

/**
 * The attendee's last pass on each list it passed through (`list_id` null: through no list), for the event's
 * standing check-in after a list exit (shared `standingAfterListExit`). Read under the attendee's lock (scan.ts).
 */
export async function lastPassesOf(db: Db, attendeeId: number): Promise<LastPass[]> {
  const rows = (await statement(
    db,
    `SELECT last_pass.id, last_pass.list_id, last_pass.result, l.direction FROM (
       SELECT id, list_id, result, ROW_NUMBER() OVER (PARTITION BY list_id ORDER BY id DESC) AS rn
       FROM checkins WHERE attendee_id = ? AND (result = 'accepted' OR (result = 'checked_out' AND reason IS NULL))
     ) last_pass LEFT JOIN checkin_lists l ON l.id = last_pass.list_id WHERE last_pass.rn = 1`,
  ).all(attendeeId)) as { id: number; list_id: number | null; result: string; direction: string | null }[];
  return rows.map((r) => ({
    id: Number(r.id),
    listId: r.list_id === null ? null : Number(r.list_id),
    kind: r.result === 'accepted' ? ('entry' as const) : ('exit' as const),
    exitList: r.direction === 'exit',
  }));
}

/** SQLite's plans of the per-scan history read and of the lists of an event (test/server/tickets/checkin-lists-plans.test.ts). */
export async function explainListQueries(db: Db): Promise<Record<'passes' | 'lists', string[]>> {
  const plan = async (sql: string, ...params: unknown[]) =>
    ((await db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params)) as { detail: string }[]).map((r) => r.detail);
  return {
    passes: await plan(PASSES_SQL, 1, 1, 1, 1, 1),
    lists: await plan('SELECT * FROM checkin_lists WHERE event_id = ? ORDER BY id LIMIT ? OFFSET ?', 1, 10, 0),
  };
}

/**
 * Moves the attendee change cursor (CONTRACT section 7) past the attendees of these tickets of the event, so the
 * delta download of a key bound to a list whose tickets changed brings them: setting a column to itself fires the
 * change triggers on both engines (SQLite's `AFTER UPDATE OF`, PostgreSQL's at commit, migrations-pg/018).
 */
export async function touchAttendeesOfTickets(db: Db, eventId: number, ticketIds: readonly number[]): Promise<void> {
  if (ticketIds.length === 0) return;
  await statement(db, sql`UPDATE attendees SET ticket_id = ticket_id WHERE event_id = ? AND ${inJson('ticket_id', 'id')}`).run(
    eventId,
    JSON.stringify(ticketIds),
  );
}

/** Revokes the keys bound to a list (the list is being deleted); returns their IDs. */
export async function revokeKeysOfList(db: Db, listId: number): Promise<number[]> {
  const ids = (await statement(db, 'SELECT id FROM api_keys WHERE list_id = ? AND revoked_at IS NULL ORDER BY id').all(listId)) as { id: number }[];
  await statement(db, 'UPDATE api_keys SET revoked_at = ? WHERE list_id = ? AND revoked_at IS NULL').run(nowUtc(), listId);
  return ids.map((r) => r.id);
}

export interface PresenceCounts {
  checked_in: number;
  inside: number;
  expected: number;
}

/**
 * `{checked_in, inside, expected}` of one list: attendees the list admits who may be checked in (published, their
 * order allowing it: `admitted` lists them), those with an accepted entry on the list, and those whose last pass
 * through it was an entry.
 */
export async function listPresence(db: Db, listId: number, admittedIds: readonly number[]): Promise<PresenceCounts> {
  const row = (await statement(
    db,
    sql`WITH passes AS (
       SELECT attendee_id, result, ROW_NUMBER() OVER (PARTITION BY attendee_id ORDER BY id DESC) AS rn
       FROM checkins
       WHERE (list_id = ? OR list_id IN (SELECT id FROM checkin_lists WHERE direction = 'exit'))
         AND ${inJson('attendee_id', 'id')}
         AND (result = 'accepted' OR (result = 'checked_out' AND reason IS NULL))
     )
     SELECT COUNT(DISTINCT attendee_id) AS checked_in, COALESCE(SUM(CASE WHEN rn = 1 AND result = 'accepted' THEN 1 ELSE 0 END), 0) AS inside
     FROM passes`,
  ).get(listId, JSON.stringify(admittedIds))) as { checked_in: number; inside: number };
  return { checked_in: Number(row.checked_in), inside: Number(row.inside), expected: admittedIds.length };
}

/** The same counts for the event as a whole: any accepted check-in (any list or none), and the standing check-ins. */
export async function eventPresence(db: Db, admittedIds: readonly number[]): Promise<PresenceCounts> {
  const ids = JSON.stringify(admittedIds);
  const checkedIn = (await statement(
    db,
    sql`SELECT COUNT(DISTINCT attendee_id) AS n FROM checkins WHERE result = 'accepted' AND ${inJson('attendee_id', 'id')}`,
  ).get(ids)) as { n: number };
  const inside = (await statement(db, sql`SELECT COUNT(*) AS n FROM attendees WHERE checked_in = 1 AND ${inJson('post_id', 'id')}`).get(ids)) as {
    n: number;
  };
  return { checked_in: Number(checkedIn.n), inside: Number(inside.n), expected: admittedIds.length };
}

/** The attendees of an event who may be checked in (published, their order allowing it), with their tickets. */
export async function checkinCandidates(db: Db, eventId: number): Promise<{ id: number; ticket_id: number }[]> {
  return (await statement(
    db,
    sql`SELECT a.post_id AS id, a.ticket_id FROM attendees a LEFT JOIN orders o ON o.post_id = a.order_id
     WHERE a.event_id = ? AND a.status = 'publish' AND ${inJson(EFFECTIVE_ORDER_STATUS, 'text')}
     ORDER BY a.post_id`,
  ).all(eventId, JSON.stringify(CHECKIN_ORDER_STATUSES))) as { id: number; ticket_id: number }[];
}

/** The IDs of an event's tickets (trashed ones too: a list may name a ticket whose sales ended). */
export async function eventTicketIds(db: Db, eventId: number): Promise<number[]> {
  return ((await statement(db, 'SELECT post_id FROM tickets WHERE event_id = ? ORDER BY post_id').all(eventId)) as { post_id: number }[]).map((r) =>
    Number(r.post_id),
  );
}
