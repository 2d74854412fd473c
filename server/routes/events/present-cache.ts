import type { EventRow } from '../../db/repos/events.ts';
import { getEventRows } from '../../db/repos/events.ts';
import { changeStamp, sharedStateOf } from '../../db/change-feed.ts';
import type { Ctx } from '../../kernel/context.ts';
import type { PresentOpts } from '../../kernel/hooks.ts';
import { eventDecorators, presentFresh } from './present-event.ts';

/** A presented event as kept between requests: the object (never handed out itself) and its JSON as UTF-8. */
interface Kept {
  event: Record<string, unknown>;
  json: Buffer;
  /** `json` without its closing brace, for appending what the decorators set. */
  head: Buffer;
  /** `Object.keys(event)` and `Object.values(event)`, for comparing a copy with it (`pushEventJson`). */
  keys: string[];
  values: unknown[];
  /** Where the DECORATED slots start in `keys`. */
  open: number;
}

/**
 * The keys the event decorators add (Event Tickets: `attendance`, `ticketed`, `nonces`, then the signing keys of
 * CONTRACT section 8, in that order), kept
 * present and unset (undefined: no JSON) at the end of a kept event, so its per-request copy already has them: a
 * key added to a copy of a kept object of 45 keys cost ~4 us (V8 makes the copy's shape anew each time: 0.2 ms a
 * page of 50), a value set in a slot it already has costs nothing. What `JSON.stringify` writes is the same.
 */
const DECORATED = ['attendance', 'ticketed', 'nonces', 'signing_key', 'signing_key_id', 'signing_keys'] as const;

function keep(event: Record<string, unknown>): Kept {
  const json = Buffer.from(JSON.stringify(event));
  const open = Object.keys(event).length;
  for (const key of DECORATED) if (!(key in event)) event[key] = undefined;
  return { event, json, head: json.subarray(0, json.length - 1), keys: Object.keys(event), values: Object.values(event), open };
}

/**
 * Presented events kept between requests (issue 14 item 1), by post, language, interface root and single/archive
 * form, with the event rows they were made from (by post). What an event answer shows (the event, its venues,
 * organizers, terms and images, the site's settings) changes only by writes that change everything for the
 * response cache (cache-tags.ts: no declared write touches content), so the kept presentations and rows live
 * exactly as long as the app's `contentVersion` and SQLite's `data_version` (another process's commit) stay the
 * same (with shared state in the database: the change log's stamp, and at most PRESENT_REVALIDATE_MS); check-ins, sales and carts leave them. Bounded (CONTRACT section 3): at most MAX_KEPT presentations and
 * MAX_KEPT rows, and MAX_KEPT_BYTES of presented JSON and of row texts (an event's content is as long as its author
 * made it), each * map emptied whole when full. The caller-dependent parts (decorators: `ticketed`, `attendance`, nonces;
 * password blanking) are applied per request to a shallow copy.
 */
const MAX_KEPT = 4000;
const MAX_KEPT_BYTES = 32 * 1024 * 1024;
/**
 * With shared state in the database (PostgreSQL) another process's change is seen through the change log, which
 * a change made outside Doorstep (psql) does not write: the kept presentations and rows are started again at
 * least this often (the response cache's default TTL), so such a change shows within a minute. SQLite's
 * `data_version` sees every commit, so there they live until a change.
 */
export const PRESENT_REVALIDATE_MS = 60_000;

declare module '../../kernel/services.ts' {
  interface Services {
    /** Presented events and rows kept since the last write (see `presentCache`). */
    presentCache?: PresentCache;
  }
}

interface PresentCache {
  version: string;
  kept: Map<string, Kept>;
  /** The JSON bytes of `kept` (the kept objects hold about as much again). */
  keptBytes: number;
  rows: Map<number, EventRow>;
  /** The text lengths of `rows` (what can grow; the other columns are short). */
  rowBytes: number;
  /** App-clock ms after which it is started again (shared state in the database), else Infinity. */
  until: number;
}

/** What a kept event row counts against MAX_KEPT_BYTES: its texts, by length. */
function rowBytes(r: EventRow): number {
  return r.title.length + r.content.length + r.excerpt.length + (r.title_et?.length ?? 0) + (r.content_et?.length ?? 0) + (r.excerpt_et?.length ?? 0);
}

/** Keeps row `r`, emptying the kept rows first when it would pass a bound. */
function keepRow(c: PresentCache, r: EventRow): void {
  if (c.rows.has(r.id)) return;
  const n = rowBytes(r);
  if (c.rows.size >= MAX_KEPT || c.rowBytes + n > MAX_KEPT_BYTES) {
    c.rows.clear();
    c.rowBytes = 0;
  }
  c.rows.set(r.id, r);
  c.rowBytes += n;
}

/**
 * Whether this process keeps event `id`'s row as a published event without a password, as of its last read (it
 * may have changed since: this decides only whether work may start early, never what is answered).
 */
export function keptAsPublic(ctx: Ctx, id: number): boolean {
  const r = ctx.app.services.presentCache?.rows.get(id);
  return r !== undefined && r.status === 'publish' && !r.password;
}

/** The copy handed out -> what it was copied from, to write its JSON from the kept JSON (see `eventJson`). */
const origin = new WeakMap<Record<string, unknown>, Kept>();

/** The kept presentations and rows, or null where none may be used: a write presents what it just changed. */
async function presentCache(ctx: Ctx): Promise<PresentCache | null> {
  if (ctx.db.inTransaction || (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD')) return null;
  // Checked once a request (an archive reads rows, then presents them: one `data_version` query, not two).
  const seen = checked.get(ctx);
  if (seen) return seen;
  const services = ctx.app.services;
  const version = `${ctx.app.contentVersion}:${await changeStamp(ctx.db)}`;
  const now = services.clock ? Number(services.clock()) : Date.now();
  let c = services.presentCache;
  if (!c || c.version !== version || now >= c.until) {
    const until = sharedStateOf(ctx.db) === 'database' ? now + PRESENT_REVALIDATE_MS : Number.POSITIVE_INFINITY;
    services.presentCache = c = { version, kept: new Map(), keptBytes: 0, rows: new Map(), rowBytes: 0, until };
  }
  checked.set(ctx, c);
  return c;
}

/** The kept presentations a request has checked the version of (a read: nothing it does changes them). */
const checked = new WeakMap<Ctx, PresentCache>();

/**
 * The event rows of `ids` in their order (missing ones skipped), as `getEventRows` reads them: rows kept since
 * nothing was written are not read again (a read outside a transaction only).
 */
export async function eventRowsOf(ctx: Ctx, ids: readonly number[]): Promise<EventRow[]> {
  const c = await presentCache(ctx);
  if (!c) return await getEventRows(ctx.db, ids);
  const got = new Map<number, EventRow>();
  for (const id of ids) {
    const r = c.rows.get(id);
    if (r) got.set(id, r);
  }
  const missing = ids.filter((id) => !got.has(id));
  if (missing.length) {
    for (const r of await getEventRows(ctx.db, missing)) {
      keepRow(c, r);
      got.set(r.id, r);
    }
  }
  const out: EventRow[] = [];
  for (const id of ids) {
    const r = got.get(id);
    if (r) out.push(r);
  }
  return out;
}

/**
 * Presents many events with a fixed number of queries: one for venues, one for organizers, one for terms and
 * one for images, whatever the number of events; events presented before (and not changed since) are reused.
 */
export async function presentEvents(ctx: Ctx, rows: EventRow[], opts: PresentOpts = {}): Promise<Record<string, unknown>[]> {
  const c = await presentCache(ctx);
  if (!c) {
    const out = await presentFresh(ctx, rows, opts);
    for (const d of eventDecorators(ctx)) await d(ctx, out, rows, opts);
    return out;
  }
  const kept = c.kept;
  const prefix = `${ctx.lang}\u0000${ctx.urls.root}\u0000${opts.single ? 1 : 0}\u0000`;
  const found: (Kept | undefined)[] = rows.map((r) => kept.get(prefix + r.id));
  const missing = rows.filter((_, i) => !found[i]);
  if (missing.length) {
    const fresh = await presentFresh(ctx, missing, opts);
    let j = 0;
    rows.forEach((r, i) => {
      if (found[i]) return;
      const event = fresh[j++];
      const k = keep(event);
      if (kept.size >= MAX_KEPT || c.keptBytes + k.json.length > MAX_KEPT_BYTES) {
        kept.clear();
        c.keptBytes = 0;
      }
      kept.set(prefix + r.id, k);
      c.keptBytes += k.json.length;
      keepRow(c, r);
      found[i] = k;
    });
  }
  const out = found.map((k) => {
    const copy = { ...k!.event };
    origin.set(copy, k!);
    return copy;
  });
  for (const d of eventDecorators(ctx)) await d(ctx, out, rows, opts);
  return out;
}

/**
 * Appends the UTF-8 JSON of a presented event, `JSON.stringify(e)` exactly, to `out`: the kept JSON when the copy
 * still holds the kept values under the kept keys, in order, followed by what the decorators set in the DECORATED
 * slots; else serialised afresh. Compared as key and value lists (`Object.keys`/`Object.values`, one call each).
 */
export function pushEventJson(e: Record<string, unknown>, out: Buffer[]): void {
  const k = origin.get(e);
  const keys = k ? Object.keys(e) : undefined;
  if (!k || !keys || keys.length !== k.keys.length || k.json.length <= 2) {
    out.push(Buffer.from(JSON.stringify(e)));
    return;
  }
  const values = Object.values(e);
  let extra = '';
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== k.keys[i] || (i < k.open && values[i] !== k.values[i])) {
      out.push(Buffer.from(JSON.stringify(e)));
      return;
    }
    if (i < k.open || values[i] === undefined) continue;
    const v = JSON.stringify(values[i]);
    if (v !== undefined) extra += `,${JSON.stringify(keys[i])}:${v}`;
  }
  if (!extra) {
    out.push(k.json);
    return;
  }
  let tail = tails.get(extra);
  if (!tail) {
    tail = Buffer.from(`${extra}}`);
    if (tails.size < 256) tails.set(extra, tail);
  }
  out.push(k.head, tail);
}

/** The decorators' usual endings (`,"ticketed":false}`), encoded once; a few hundred at most. */
const tails = new Map<string, Buffer>();

/** The UTF-8 JSON of a presented event, `JSON.stringify(e)` exactly (see `pushEventJson`). */
export function eventJson(e: Record<string, unknown>): Buffer {
  const out: Buffer[] = [];
  pushEventJson(e, out);
  return out.length === 1 ? out[0] : Buffer.concat(out);
}
