import crypto from 'node:crypto';
import { formatInZone } from '../../../shared/dates.ts';
import type { AppState } from '../../kernel/context.ts';
import type { RestResponseFilter } from '../../kernel/hooks.ts';
import { nowUtc } from '../../db/clock.ts';
import { daySalt, insertHits, rowsOfDay, type HitRow } from '../../db/repos/analytics.ts';

export interface Hit {
  kind: 'page' | 'api';
  path: string;
  postId: number;
  ip: string;
  userAgent: string;
  referrer?: string;
}

const BOTS = /bot|crawler|spider|slurp|facebookexternalhit|preview/i;

/** Host of an external referrer; '' for none, an unparsable one, or this site itself. */
export function referrerHost(referrer: string | undefined, publicUrl: string): string {
  if (!referrer) return '';
  try {
    const u = new URL(referrer);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return '';
    const own = new URL(publicUrl).hostname.toLowerCase();
    const host = u.hostname.toLowerCase();
    return host === own ? '' : host.slice(0, 253);
  } catch {
    return '';
  }
}

interface Pending {
  /** Views not yet written, one entry per day, page, referrer and visitor (the row each is counted in). */
  rows: Map<string, HitRow>;
  timer: NodeJS.Timeout | null;
}

const FLUSH_AFTER_MS = 1000;
const FLUSH_AT_ROWS = 500;
/**
 * Rows one day holds at most: past it, views of new visitors and referrers are counted in one row per page
 * (visitor `*`, no referrer), so whatever strangers send (user agents, referrers) the table grows by at most
 * this many rows a day plus one per page. A soft bound, on purpose (no lock): a flush counts the day's rows, then
 * writes, so flushes that count at once near the bound (several processes, or a timer's beside a full buffer's) may
 * each add up to FLUSH_AT_ROWS rows past it; still bounded, by the flushes that can overlap.
 */
export const MAX_ROWS_PER_DAY = 50_000;
const pending = new WeakMap<AppState, Pending>();

/** What a row of views is counted under: its day, page, referrer and visitor. */
function hitKey(r: HitRow): string {
  return `${r.day}\u0000${r.kind}\u0000${r.path}\u0000${r.post_id}\u0000${r.referrer_host}\u0000${r.visitor}`;
}

function queueOf(state: AppState): Pending {
  let q = pending.get(state);
  if (!q) pending.set(state, (q = { rows: new Map(), timer: null }));
  return q;
}

/**
 * Writes the views recorded so far in one statement (after a count of each day's rows: on PostgreSQL two round
 * trips a flush, however many rows; a statement each was a round trip a row). Recording buffers rows so that a
 * public read does not pay for a write of its own; the analytics routes flush before they count, so they always
 * see every view. A day past MAX_ROWS_PER_DAY takes new visitors and referrers in one row per page (the rows
 * folded into it merged first: one statement updates a row once).
 */
export async function flushHits(state: AppState): Promise<void> {
  const q = pending.get(state);
  if (!q?.rows.size) return;
  const rows = [...q.rows.values()];
  q.rows = new Map();
  if (q.timer) clearTimeout(q.timer);
  q.timer = null;
  try {
    const full = new Map<string, boolean>();
    for (const day of new Set(rows.map((r) => r.day))) full.set(day, (await rowsOfDay(state.db, day)) >= MAX_ROWS_PER_DAY);
    const out = new Map<string, HitRow>();
    for (const row of rows) {
      const r = full.get(row.day) ? { ...row, visitor: '*', referrer_host: '' } : row;
      const key = hitKey(r);
      const seen = out.get(key);
      if (!seen) out.set(key, { ...r });
      else {
        seen.views = (seen.views ?? 1) + (r.views ?? 1);
        if (r.ts > seen.ts) seen.ts = r.ts;
      }
    }
    await insertHits(state.db, [...out.values()]);
  } catch (e) {
    state.log({ level: 'error', msg: 'analytics flush failed', rows: rows.length, error: String(e) });
  }
}

/**
 * Counts one view. The client address never reaches the database: it is hashed with the user agent under a
 * random salt that exists only for the current day, so visitors are countable within a day and unlinkable
 * across days once the salt is gone. Failures are logged and never disturb the response.
 */
export async function recordHit(state: AppState, hit: Hit, now = new Date()): Promise<void> {
  if (BOTS.test(hit.userAgent)) return;
  try {
    const q = queueOf(state);
    const day = formatInZone(now, state.config.timezone).slice(0, 10);
    const salt = await daySalt(state.db, day);
    const visitor = crypto.createHash('sha256').update(salt).update(hit.ip).update('\n').update(hit.userAgent).digest('hex').slice(0, 32);
    const row: HitRow = {
      ts: nowUtc(now),
      day,
      kind: hit.kind,
      path: hit.path.slice(0, 500),
      post_id: hit.postId,
      referrer_host: referrerHost(hit.referrer, state.config.publicUrl),
      visitor,
      views: 1,
    };
    // Views are counted per page and day (CONTRACT section 3): a repeated view adds to its row, never a row.
    const key = hitKey(row);
    const seen = q.rows.get(key);
    if (seen) {
      seen.views = (seen.views ?? 1) + 1;
      seen.ts = row.ts;
    } else q.rows.set(key, row);
    if (q.rows.size >= FLUSH_AT_ROWS) await flushHits(state);
    else if (!q.timer) {
      q.timer = setTimeout(() => flushHits(state), FLUSH_AFTER_MS);
      q.timer.unref();
    }
  } catch (e) {
    state.log({ level: 'error', msg: 'analytics record failed', error: String(e) });
  }
}

const EVENT_READ = /^\/evt\/events\/v1\/events(\/(?:\d+|by-slug\/[^/]+))?$/i;

function header(h: Record<string, string | string[] | undefined>, name: string): string {
  const v = h[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

function singleId(body: unknown): number {
  const id = body && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : 0;
}

/**
 * Public API reads of events: an anonymous GET of the events archive or of one event that succeeded. The
 * single read carries the post ID; archive reads are recorded against the archive path.
 */
export const apiReadRecorder: RestResponseFilter = async (state, ex, result) => {
  if (ex.method !== 'GET' || ex.caller.kind !== 'anonymous' || result.status !== 200) return result;
  const m = EVENT_READ.exec(ex.route);
  if (!m) return result;
  // The ID in the path when there is one: a cached answer's body would be parsed from its JSON just to read it.
  const pathId = m[1] ? /^\/(\d{1,15})$/.exec(m[1])?.[1] : undefined;
  await recordHit(state, {
    kind: 'api',
    path: ex.route,
    postId: pathId ? Number(pathId) : m[1] ? singleId(result.body) : 0,
    ip: ex.ip,
    userAgent: header(ex.headers, 'user-agent'),
    referrer: header(ex.headers, 'referer'),
  });
  return result;
};
