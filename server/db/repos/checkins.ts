import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';
import { NONCE_LOCK_SPACE } from './locks.ts';

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
}

export type CheckinInsert = Omit<CheckinRow, 'id' | 'list_id'> & { list_id?: number | null };

export async function insertCheckin(db: Db, c: CheckinInsert): Promise<number> {
  return Number(
    (
      await stmt(
        db,
        `INSERT INTO checkins (attendee_id, event_id, result, reason, scanned_at, received_at, device_id, nonce, source, user_id, api_key_id, list_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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

/** The scan a client nonce was first recorded with (nonces are unique across the log). */
export async function findCheckinByNonce(db: Db, nonce: string): Promise<CheckinRow | undefined> {
  return (await stmt(db, 'SELECT * FROM checkins WHERE nonce = ?').get(nonce)) as CheckinRow | undefined;
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
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

export async function queryCheckins(db: Db, q: CheckinQuery): Promise<{ rows: CheckinRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.eventIds) {
    where.push('event_id IN (SELECT value FROM json_each(?))');
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
    where.push('list_id = ?');
    params.push(q.listId);
  }
  if (q.deviceId !== undefined) {
    where.push('device_id = ?');
    params.push(q.deviceId);
  }
  if (q.results) {
    where.push('result IN (SELECT value FROM json_each(?))');
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
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = ((await stmt(db, `SELECT COUNT(*) AS n FROM checkins ${w}`).get(...params)) as { n: number }).n;
  const rows = (await stmt(db, `SELECT * FROM checkins ${w} ORDER BY id ${q.order === 'DESC' ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`).all(
    ...params,
    q.limit,
    q.offset,
  )) as CheckinRow[];
  return { rows, total };
}

/** The label of the door key that made check-in `checkinId`, or undefined when no key made it. */
export async function checkinKeyLabel(db: Db, checkinId: number): Promise<string | undefined> {
  return (
    (await stmt(db, 'SELECT k.label FROM checkins c JOIN api_keys k ON k.id = c.api_key_id WHERE c.id = ?').get(checkinId)) as
      | { label: string }
      | undefined
  )?.label;
}
