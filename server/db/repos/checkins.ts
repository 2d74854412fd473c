import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, inJsonOf, sql, sqlFor } from '../engine/sql.ts';
import type { PgDb } from '../engine/postgres.ts';
import { NONCE_LOCK_SPACE } from './locks.ts';
import { setCheckedIn } from './attendees.ts';

/** The check-in log (table `checkins`): every scan, accepted or not, by every path (attendee route, QR, batch). */

export type CheckinResult = 'accepted' | 'checked_out' | 'conflict' | 'rejected';
export const CHECKIN_RESULTS: readonly CheckinResult[] = ['accepted', 'checked_out', 'conflict', 'rejected'];

export interface CheckinRow {
  id: number;
  attendee_id: number | null;
  event_id: number | null;
  result: CheckinResult;
  reason: string | null;
  /** ISO 8601 UTC (`toISOString`): the moment of the scan on the device. */
  scanned_at: string;
  /** ISO 8601 UTC: arrival at the server. */
  received_at: string;
  device_id: string | null;
  nonce: string | null;
  source: string;
  user_id: number;
  api_key_id: number | null;
  /** The check-in list the scan went through; null for the event's implicit list (and scans before lists). */
  list_id: number | null;
  /** Venue hub (migration 024): what became of the scan at the site; null on a site. */
  upstream?: string | null;
}

export type CheckinInsert = Omit<CheckinRow, 'id' | 'list_id'> & { list_id?: number | null };

export async function insertCheckin(db: Db, c: CheckinInsert): Promise<number> {
  return Number(
    (
      await statement(
        db,
        `INSERT INTO checkins (attendee_id, event_id, result, reason, scanned_at, received_at, device_id, nonce, source, user_id, api_key_id, list_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ).run(
        c.attendee_id,
        c.event_id,
        c.result,
        c.reason,
        c.scanned_at,
        c.received_at,
        c.device_id,
        c.nonce,
        c.source,
        c.user_id,
        c.api_key_id,
        c.list_id ?? null,
      )
    ).lastInsertRowid,
  );
}

/**
 * The nonce's lock (repos/locks.ts: one recorded scan per nonce), then the scan it was first recorded with: two
 * statements, since a statement that waited for a lock still reads from the snapshot it took before the wait (a
 * scan recorded meanwhile would be missed). On SQLite, where one writer runs at a time, the lookup alone.
 */
export async function findCheckinByNonceLocked(db: Db, nonce: string): Promise<CheckinRow | undefined> {
  if (db.engine !== 'postgres') return await findCheckinByNonce(db, nonce);
  await (db as PgDb).native(`SELECT pg_advisory_xact_lock(${NONCE_LOCK_SPACE}, hashtext($1))`, [nonce]);
  return await findCheckinByNonce(db, nonce);
}

/**
 * Several scans at once: their log rows, in order, and the standing check-in of each attendee they moved
 * (`standing`: attendee ID -> `true` when its last accepted scan among `rows` now stands, `false` when it is
 * checked out). Answers the log rows' IDs in the same order.
 *
 * PostgreSQL: one statement, one round trip however many rows: the rows inserted from arrays in their order
 * (`INSERT … SELECT … ORDER BY` hands out identity values in that order, so the last accepted row of an attendee
 * is its highest ID), and the attendees updated from them in a data-modifying CTE. SQLite: the one-row
 * statements, which cost no round trip.
 */
export async function recordScans(db: Db, rows: readonly CheckinInsert[], standing: ReadonlyMap<number, boolean>): Promise<number[]> {
  if (!rows.length) return [];
  if (db.engine !== 'postgres') {
    const ids: number[] = [];
    for (const r of rows) ids.push(await insertCheckin(db, r));
    for (const [attendee, isIn] of standing) {
      let id: number | null = null;
      if (isIn) for (let k = 0; k < rows.length; k++) if (rows[k]?.attendee_id === attendee && rows[k]?.result === 'accepted') id = ids[k] as number;
      await setCheckedIn(db, attendee, id);
    }
    return ids;
  }
  const col = <K extends keyof CheckinInsert>(k: K) => rows.map((r) => r[k]);
  const moved = [...standing.keys()].sort((a, b) => a - b);
  const out = await (db as PgDb).native(
    `WITH ins AS (
       INSERT INTO checkins (attendee_id, event_id, result, reason, scanned_at, received_at, device_id, nonce, source, user_id, api_key_id)
       SELECT attendee_id, event_id, result, reason, scanned_at, received_at, device_id, nonce, source, user_id, api_key_id
       FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[])
         WITH ORDINALITY AS r(attendee_id, event_id, result, reason, scanned_at, received_at, device_id, nonce, source, user_id, api_key_id, ord)
       ORDER BY ord
       RETURNING id, attendee_id, result
     ), now_in AS (
       SELECT v.id, v.is_in, (SELECT max(i.id) FROM ins AS i WHERE i.attendee_id = v.id AND i.result = 'accepted') AS checkin_id
       FROM unnest($12::bigint[], $13::boolean[]) AS v(id, is_in)
     ), upd AS (
       UPDATE attendees AS a SET checked_in = CASE WHEN n.is_in THEN 1 ELSE 0 END, checkin_id = CASE WHEN n.is_in THEN n.checkin_id END
       FROM now_in AS n WHERE a.post_id = n.id
       RETURNING a.post_id
     )
     SELECT id, (SELECT count(*) FROM upd) AS moved FROM ins ORDER BY id`,
    [
      col('attendee_id'),
      col('event_id'),
      col('result'),
      col('reason'),
      col('scanned_at'),
      col('received_at'),
      col('device_id'),
      col('nonce'),
      col('source'),
      col('user_id'),
      col('api_key_id'),
      moved,
      moved.map((id) => standing.get(id) === true),
    ],
  );
  // A SELECT's answer: the rows the CTEs wrote are counted here (totalChanges()).
  (db as PgDb).countWritten(out.length + Number(out[0]?.moved ?? 0));
  return out.map((r) => Number(r.id));
}

/** The labels of the door keys that made these check-ins (see checkinKeyLabel), in one statement. */
export async function checkinKeyLabels(db: Db, checkinIds: readonly number[]): Promise<Map<number, string>> {
  if (!checkinIds.length) return new Map();
  const rows = (await statement(
    db,
    // A venue hub's mirrored check-in names the site's door itself (there is no key of it here).
    sql`SELECT c.id, COALESCE(c.device_label, k.label) AS label FROM checkins c LEFT JOIN api_keys k ON k.id = c.api_key_id
     WHERE ${inJson('c.id', 'id')} AND COALESCE(c.device_label, k.label) IS NOT NULL`,
  ).all(JSON.stringify([...new Set(checkinIds)]))) as { id: number; label: string }[];
  return new Map(rows.map((r) => [Number(r.id), r.label]));
}

/** The scan a client nonce was first recorded with (nonces are unique across the log). */
export async function findCheckinByNonce(db: Db, nonce: string): Promise<CheckinRow | undefined> {
  return (await statement(db, 'SELECT * FROM checkins WHERE nonce = ?').get(nonce)) as CheckinRow | undefined;
}

export interface CheckinQuery {
  eventIds?: number[];
  /** Only scans of events this user authored (an organizer's reach). */
  eventAuthor?: number;
  attendeeId?: number;
  /** Only scans through this check-in list (a key bound to a list). */
  listId?: number;
  deviceId?: string;
  results?: string[];
  /** ISO 8601 UTC bounds on the scan time, inclusive. */
  after?: string;
  before?: string;
  /** Only log rows with a greater ID (arrival order). */
  afterId?: number;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/**
 * The check-in log's cursor for `after_id` (CONTRACT section 7's delta idea, on the log): the greatest log ID below
 * which no row can still appear. Read BEFORE the page, so a row committed meanwhile is after the cursor and read
 * again next time (a reader merges by nonce). SQLite has one writer at a time and numbers rows as they commit: the
 * greatest ID. PostgreSQL numbers rows at insert, and concurrent transactions commit in another order, so a row
 * numbered below the greatest may still commit: the cursor stops at the rows that arrived `graceMs` ago, longer than
 * a scan's transaction runs (the rows after it are answered now and read again next time).
 */
export async function checkinLogCursor(db: Db, nowMs: number, graceMs = 60_000): Promise<number> {
  if (db.engine !== 'postgres') return Number(((await statement(db, 'SELECT COALESCE(MAX(id), 0) AS n FROM checkins').get()) as { n: number }).n);
  const settled = new Date(nowMs - graceMs).toISOString();
  return Number(((await statement(db, 'SELECT COALESCE(MAX(id), 0) AS n FROM checkins WHERE received_at <= ?').get(settled)) as { n: number }).n);
}

export async function queryCheckins(db: Db, q: CheckinQuery): Promise<{ rows: CheckinRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.eventIds) {
    where.push(sqlFor(db.engine, inJson('event_id', 'id')));
    params.push(JSON.stringify(q.eventIds));
  }
  if (q.eventAuthor !== undefined) {
    where.push('event_id IN (SELECT id FROM posts WHERE author = ?)');
    params.push(q.eventAuthor);
  }
  if (q.attendeeId !== undefined) {
    where.push('attendee_id = ?');
    params.push(q.attendeeId);
  }
  if (q.listId !== undefined) {
    // The list's scans, and the exits through its event's exit lists: those end an entry on every list, so a
    // kiosk on the list reads them as its own list's exits (renderer/checkin/gate.ts passesFromLog). Only the exits
    // of attendees the list admits: a key bound to the list reads nobody else's scans (CONTRACT section 3).
    where.push(
      sqlFor(
        db.engine,
        sql`(list_id = ? OR (result = 'checked_out' AND list_id IN (SELECT x.id FROM checkin_lists x JOIN checkin_lists o
      ON o.event_id = x.event_id WHERE o.id = ? AND x.direction = 'exit')
      AND attendee_id IN (SELECT a.post_id FROM attendees a JOIN checkin_lists l ON l.id = ?
        WHERE a.event_id = l.event_id AND (l.ticket_ids = '[]' OR ${inJsonOf('l.ticket_ids', 'a.ticket_id', 'id')}))))`,
      ),
    );
    params.push(q.listId, q.listId, q.listId);
  }
  if (q.deviceId !== undefined) {
    where.push('device_id = ?');
    params.push(q.deviceId);
  }
  if (q.results) {
    where.push(sqlFor(db.engine, inJson('result', 'text')));
    params.push(JSON.stringify(q.results));
  }
  if (q.after) {
    where.push('scanned_at >= ?');
    params.push(q.after);
  }
  if (q.before) {
    where.push('scanned_at <= ?');
    params.push(q.before);
  }
  if (q.afterId !== undefined) {
    where.push('id > ?');
    params.push(q.afterId);
  }
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = ((await statement(db, `SELECT COUNT(*) AS n FROM checkins ${w}`).get(...params)) as { n: number }).n;
  const rows = (await statement(db, `SELECT * FROM checkins ${w} ORDER BY id ${q.order === 'DESC' ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`).all(
    ...params,
    q.limit,
    q.offset,
  )) as CheckinRow[];
  return { rows, total };
}

/** The label of the door key that made check-in `checkinId`, or undefined when no key made it. */
export async function checkinKeyLabel(db: Db, checkinId: number): Promise<string | undefined> {
  return (await checkinKeyLabels(db, [checkinId])).get(checkinId);
}
