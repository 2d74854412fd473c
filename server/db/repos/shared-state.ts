import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';

/*
 * The tables of 014-shared-state.sql: counted events of the database-backed rate limiters, and the change log the
 * processes sharing one database invalidate their caches from (server/db/change-feed.ts).
 */

/**
 * When `key` already has `max` events after `afterMs`: the time of the `max`-th most recent of them (the one
 * whose ageing out frees a place), else undefined.
 */
export async function rateLimitedSince(db: Db, name: string, key: string, afterMs: number, max: number): Promise<number | undefined> {
  return (await statement(
    db,
    'SELECT at_ms FROM evt_rate_events WHERE name = ? AND key = ? AND at_ms > ? ORDER BY at_ms DESC, id DESC LIMIT 1 OFFSET ?',
  )
    .pluck()
    .get(name, key, afterMs, max - 1)) as number | undefined;
}

const PG_INSERT_RATE_EVENT = `WITH ins AS (INSERT INTO evt_rate_events (name, key, at_ms) VALUES ($1, $2, $3))
DELETE FROM evt_rate_events WHERE name = $1 AND key = $2 AND (at_ms <= $4 OR $5::int <= 1 OR id < (
  SELECT id FROM evt_rate_events WHERE name = $1 AND key = $2 ORDER BY id DESC LIMIT 1 OFFSET GREATEST($5::int - 2, 0)))`;

/** Counts one event at `atMs` against `key`, keeping only its `max` most recent events after `afterMs`. */
export async function insertRateEvent(db: Db, name: string, key: string, atMs: number, afterMs: number, max: number): Promise<void> {
  if (db.engine === 'postgres') {
    // One statement: the insert, and the delete of what falls out (the delete does not see the row inserted
    // beside it, so of the others it keeps the max - 1 most recent; none when max is 1).
    await (db as PgDb).native(PG_INSERT_RATE_EVENT, [name, key, String(atMs), String(afterMs), String(max)]);
    // The insert's row, which the statement's command tag (the DELETE's) does not count.
    (db as PgDb).countWritten(1);
    return;
  }
  await statement(db, 'INSERT INTO evt_rate_events (name, key, at_ms) VALUES (?, ?, ?)').run(name, key, atMs);
  await statement(
    db,
    `DELETE FROM evt_rate_events WHERE name = ? AND key = ? AND (at_ms <= ? OR id < (
       SELECT id FROM evt_rate_events WHERE name = ? AND key = ? ORDER BY id DESC LIMIT 1 OFFSET ?))`,
  ).run(name, key, afterMs, name, key, max - 1);
}

// PostgreSQL, written for it: the limiter's read over the keys (rateLimitedSince, the latest), and only when no
// key is at its limit, the event counted against each and what falls out of the window deleted (as
// PG_INSERT_RATE_EVENT: the delete keeps the max - 1 most recent others).
const PG_TAKE_RATE_EVENT = `WITH r AS MATERIALIZED (
  SELECT max(x.at_ms) AS at FROM unnest($2::text[]) AS k(key), LATERAL (
    SELECT e.at_ms FROM evt_rate_events e WHERE e.name = $1::text AND e.key = k.key AND e.at_ms > $4::bigint
    ORDER BY e.at_ms DESC, e.id DESC LIMIT 1 OFFSET $5::int - 1) x
), ins AS (
  INSERT INTO evt_rate_events (name, key, at_ms) SELECT $1::text, k, $3::bigint FROM unnest($2::text[]) AS k WHERE (SELECT at FROM r) IS NULL
  RETURNING 1
), del AS (
  DELETE FROM evt_rate_events e WHERE e.name = $1::text AND e.key = ANY($2::text[]) AND (SELECT at FROM r) IS NULL
    AND (e.at_ms <= $4::bigint OR $5::int <= 1 OR e.id < (
      SELECT e2.id FROM evt_rate_events e2 WHERE e2.name = e.name AND e2.key = e.key ORDER BY e2.id DESC LIMIT 1 OFFSET GREATEST($5::int - 2, 0)))
  RETURNING 1
)
SELECT (SELECT at FROM r) AS at, (SELECT count(*) FROM ins) + (SELECT count(*) FROM del) AS written`;

/**
 * PostgreSQL: when no key has `max` events after `afterMs`, one event at `atMs` counted against each (keeping
 * their `max` most recent); else nothing written. Answers rateLimitedSince's answer (the latest over the keys).
 */
export async function takeRateEvent(
  db: Db,
  r: { name: string; keys: readonly string[]; atMs: number; afterMs: number; max: number },
): Promise<number | undefined> {
  const row = (
    await (db as PgDb).native(PG_TAKE_RATE_EVENT, [r.name, [...r.keys], String(r.atMs), String(r.afterMs), String(r.max)], { plan: 'generic' })
  )[0] as {
    at: number | null;
    written: number;
  };
  (db as PgDb).countWritten(Number(row.written));
  return row.at ?? undefined;
}

/** Forgets every event of `key`. */
export async function clearRateKey(db: Db, name: string, key: string): Promise<void> {
  await statement(db, 'DELETE FROM evt_rate_events WHERE name = ? AND key = ?').run(name, key);
}

/**
 * Drops the events of limiter `name` at or before `beforeMs` (aged out of its window) and, past `maxRows`, its
 * oldest ones (a flood of new keys forgets the oldest events first, as the in-memory limiter forgets keys).
 */
export async function sweepRateEvents(db: Db, name: string, beforeMs: number, maxRows: number): Promise<number> {
  let n = (await statement(db, 'DELETE FROM evt_rate_events WHERE name = ? AND at_ms <= ?').run(name, beforeMs)).changes;
  n += (
    await statement(
      db,
      'DELETE FROM evt_rate_events WHERE name = ? AND id <= (SELECT id FROM evt_rate_events WHERE name = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
    ).run(name, name, maxRows)
  ).changes;
  return n;
}

/** Events held by limiter `name` (for tests of the bound). */
export async function rateEventCount(db: Db, name: string): Promise<number> {
  return (await statement(db, 'SELECT COUNT(*) FROM evt_rate_events WHERE name = ?').pluck().get(name)) as number;
}

export interface ChangeRow {
  seq: number;
  /** A JSON array of cache tags, or 'all'. */
  tags: string;
  /** The process that made the change. */
  origin: string;
  at_ms: number;
}

/**
 * Appends a change (in the caller's transaction, if one is open; on PostgreSQL sent with its COMMIT, in the same
 * round trip: only other processes read the log).
 */
export async function appendChange(db: Db, tags: string, origin: string, atMs: number): Promise<void> {
  if (db.engine === 'postgres') {
    await (db as PgDb).atCommit('INSERT INTO evt_change_log (tags, origin, at_ms) VALUES ($1, $2, $3)', [tags, origin, atMs]);
    return;
  }
  await statement(db, 'INSERT INTO evt_change_log (tags, origin, at_ms) VALUES (?, ?, ?)').run(tags, origin, atMs);
}

/** The changes after `seq`, in order, at most `limit`. */
export async function changesAfter(db: Db, seq: number, limit: number): Promise<ChangeRow[]> {
  return (await statement(db, 'SELECT seq, tags, origin, at_ms FROM evt_change_log WHERE seq > ? ORDER BY seq LIMIT ?').all(
    seq,
    limit,
  )) as ChangeRow[];
}

/** The last change's sequence number (0 when the log is empty). */
export async function lastChangeSeq(db: Db): Promise<number> {
  return ((await statement(db, 'SELECT MAX(seq) FROM evt_change_log').pluck().get()) as number | null) ?? 0;
}

/** Drops the changes made before `beforeMs`, but never the last one (it carries the sequence on). */
export async function pruneChanges(db: Db, beforeMs: number): Promise<number> {
  return (await statement(db, 'DELETE FROM evt_change_log WHERE at_ms < ? AND seq < (SELECT MAX(seq) FROM evt_change_log)').run(beforeMs)).changes;
}
