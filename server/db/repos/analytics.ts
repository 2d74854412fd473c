import crypto from 'node:crypto';
import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { StateKey } from '../engine/types.ts';

/** The salt of the day read last, on the database's handle. */
const DAY_SALT = new StateKey<{ day: string; salt: Buffer }>('analytics day salt');

/** One row of counted views: a page (or API read) on a day, from one referrer and visitor. */
export interface HitRow {
  ts: string;
  day: string;
  kind: 'page' | 'api';
  path: string;
  post_id: number;
  referrer_host: string;
  visitor: string;
  /** Views counted in the row (1 when not given). */
  views?: number;
}

/** Forgets the salt held in memory (a test that removes the stored one, as a new day or a new process would find it). */
export function forgetDaySalt(db: Db): void {
  db.state.set(DAY_SALT, undefined);
}

/**
 * Today's salt, created on first use; salts of earlier days are deleted, so old hashes cannot be recomputed. The
 * handle keeps the one day's salt it read last (Db.state): a day's salt never changes once stored (ON CONFLICT DO
 * NOTHING, and only earlier days are deleted), so a view need not read it again (on PostgreSQL a round trip each
 * view). One day only: yesterday's salt leaves memory when today's is read.
 */
export async function daySalt(db: Db, day: string): Promise<Buffer> {
  const known = db.state.get(DAY_SALT);
  if (known?.day === day) return known.salt;
  const salt = await storedSalt(db, day);
  db.state.set(DAY_SALT, { day, salt });
  return salt;
}

async function storedSalt(db: Db, day: string): Promise<Buffer> {
  const row = (await statement(db, 'SELECT salt FROM analytics_salts WHERE day = ?').get(day)) as { salt: Buffer } | undefined;
  if (row) return row.salt;
  const salt = crypto.randomBytes(32);
  await statement(db, 'DELETE FROM analytics_salts WHERE day < ?').run(day);
  await statement(db, 'INSERT INTO analytics_salts (day, salt) VALUES (?, ?) ON CONFLICT DO NOTHING').run(day, salt);
  return ((await statement(db, 'SELECT salt FROM analytics_salts WHERE day = ?').get(day)) as { salt: Buffer }).salt;
}

const HIT_COLS = 'ts, day, kind, path, post_id, referrer_host, visitor, views';
const HIT_CONFLICT =
  'ON CONFLICT (day, post_id, kind, path, referrer_host, visitor) DO UPDATE SET views = analytics_hits.views + excluded.views, ts = excluded.ts';

/**
 * Counts the views of `rows` in one statement, whatever their number (a flush of the recorder): each row's views
 * added to its day, page, referrer and visitor. The rows must be distinct in those (one statement may not update a
 * row twice). SQLite reads the list with json_each; PostgreSQL with json_to_recordset.
 */
export async function insertHits(db: Db, rows: readonly HitRow[]): Promise<void> {
  if (!rows.length) return;
  await statement(db, {
    sqlite: `INSERT INTO analytics_hits (${HIT_COLS})
      SELECT json_extract(value, '$.ts'), json_extract(value, '$.day'), json_extract(value, '$.kind'), json_extract(value, '$.path'),
        json_extract(value, '$.post_id'), json_extract(value, '$.referrer_host'), json_extract(value, '$.visitor'), json_extract(value, '$.views')
      FROM json_each(?) WHERE true ${HIT_CONFLICT}`,
    pg: `INSERT INTO analytics_hits (${HIT_COLS})
      SELECT ${HIT_COLS} FROM json_to_recordset(?::json)
        AS x(ts text, day text, kind text, path text, post_id bigint, referrer_host text, visitor text, views bigint)
      ${HIT_CONFLICT}`,
  }).run(
    JSON.stringify(
      rows.map((h) => ({
        ts: h.ts,
        day: h.day,
        kind: h.kind,
        path: h.path,
        post_id: h.post_id,
        referrer_host: h.referrer_host,
        visitor: h.visitor,
        views: h.views ?? 1,
      })),
    ),
  );
}

/** Rows of one day (the recorder folds new visitors and referrers into one row per page past its daily bound). */
export async function rowsOfDay(db: Db, day: string): Promise<number> {
  return ((await statement(db, 'SELECT COUNT(*) AS n FROM analytics_hits WHERE day = ?').get(day)) as { n: number }).n;
}

export interface Counts {
  views: number;
  visitors: number;
  page_views: number;
  api_reads: number;
}

// A visitor hash is only meaningful within its day, so unique visitors are distinct (day, hash) pairs.
const COUNTS =
  "COALESCE(SUM(views), 0) AS views, COUNT(DISTINCT day || ':' || visitor) AS visitors, COALESCE(SUM(CASE WHEN kind = 'page' THEN views ELSE 0 END), 0) AS page_views, COALESCE(SUM(CASE WHEN kind = 'api' THEN views ELSE 0 END), 0) AS api_reads";

export async function totals(db: Db, from: string, to: string): Promise<Counts & { posts: number; referrers: number }> {
  return (await statement(
    db,
    `SELECT ${COUNTS}, COUNT(DISTINCT CASE WHEN post_id > 0 THEN post_id END) AS posts, COUNT(DISTINCT NULLIF(referrer_host, '')) AS referrers FROM analytics_hits WHERE day BETWEEN ? AND ?`,
  ).get(from, to)) as Counts & { posts: number; referrers: number };
}

/** Counts per day ('YYYY-MM-DD') or per month ('YYYY-MM'), only periods with hits. */
export async function series(db: Db, from: string, to: string, monthly: boolean): Promise<(Counts & { period: string })[]> {
  const period = monthly ? 'substr(day, 1, 7)' : 'day';
  return (await statement(
    db,
    `SELECT ${period} AS period, ${COUNTS} FROM analytics_hits WHERE day BETWEEN ? AND ? GROUP BY period ORDER BY period`,
  ).all(from, to)) as (Counts & { period: string })[];
}

export async function topPosts(db: Db, from: string, to: string, limit: number): Promise<(Counts & { post_id: number })[]> {
  return (await statement(
    db,
    `SELECT post_id, ${COUNTS} FROM analytics_hits WHERE day BETWEEN ? AND ? AND post_id > 0 GROUP BY post_id ORDER BY views DESC, post_id ASC LIMIT ?`,
  ).all(from, to, limit)) as (Counts & { post_id: number })[];
}

export async function topReferrers(db: Db, from: string, to: string, limit: number): Promise<(Counts & { host: string })[]> {
  return (await statement(
    db,
    `SELECT referrer_host AS host, ${COUNTS} FROM analytics_hits WHERE day BETWEEN ? AND ? AND referrer_host <> '' GROUP BY referrer_host ORDER BY views DESC, host ASC LIMIT ?`,
  ).all(from, to, limit)) as (Counts & { host: string })[];
}

export async function since(db: Db, fromTs: string): Promise<Counts> {
  return (await statement(db, `SELECT ${COUNTS} FROM analytics_hits WHERE ts >= ?`).get(fromTs)) as Counts;
}

export async function pathsSince(db: Db, fromTs: string, limit: number): Promise<{ path: string; post_id: number; views: number }[]> {
  return (await statement(
    db,
    'SELECT path, MAX(post_id) AS post_id, SUM(views) AS views FROM analytics_hits WHERE ts >= ? GROUP BY path ORDER BY views DESC, path ASC LIMIT ?',
  ).all(fromTs, limit)) as { path: string; post_id: number; views: number }[];
}
