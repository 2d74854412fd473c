import type { EventRow } from '../../db/repos/events.ts';
import { getEventRows } from '../../db/repos/events.ts';
import { changeStamp, sharedStateOf } from '../../db/change-feed.ts';
import type { Ctx } from '../../kernel/context.ts';
import type { PresentOpts } from '../../kernel/hooks.ts';
import { type ByIds, eventDecorators, presentFresh, readByIds } from './present-event.ts';

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
 * Whether this process keeps event `id`'s row as anything but a published event without a password (a draft,
 * trashed or protected event), as of its last read: its read starts no early reads (startsEarly).
 */
function keptAsNotPublic(ctx: Ctx, id: number): boolean {
  const r = ctx.app.services.presentCache?.rows.get(id);
  return r !== undefined && (r.status !== 'publish' || !!r.password);
}

/**
 * Whether a single read of event `id` starts reads before its row is known (prefetchEvent, Hooks.eventPrefetch):
 * only a plain read on PostgreSQL outside a transaction (SQLite has no round trips to save; a batch's items share
 * a transaction's connection, where nothing overlaps), and none for an event this process keeps as not public
 * (a draft's 403 makes no reads beyond its own).
 */
export function startsEarly(ctx: Ctx, id: number): boolean {
  return ctx.db.engine === 'postgres' && !ctx.db.inTransaction && ctx.req.method === 'GET' && id > 0 && !keptAsNotPublic(ctx, id);
}

/** What prefetchEvent started for a request, each taken once by the read that wants it. */
interface Early {
  id: number;
  row?: Promise<EventRow[]>;
  byIds?: Promise<ByIds>;
}
const early = new WeakMap<Ctx, Early>();

/**
 * Starts the reads a single read of event `id` will make but that this process keeps nothing of: its row, and
 * what presenting it reads by its ID (prices, links, terms). Inside Db.together they go in the round trip of the
 * request's first statement (the change log's, presentCache) instead of one after another once it has answered:
 * the first read of an event was 8.2 round trips on PostgreSQL, now 1.2 with its view's flush
 * (test/bench/round-trips.ts). Called where startsEarly allows it. The price: a read of an event that
 * does not exist makes these lookups too (seven indexed reads in its one round trip, where it made two in two).
 * What is started and not taken (the event is not found, its kept presentation is still good) is dropped; a
 * stale kept state only costs a read, since the taking checks what is kept as of the request.
 */
export function prefetchEvent(ctx: Ctx, id: number, single: boolean): void {
  const c = ctx.app.services.presentCache;
  const row = !c?.rows.has(id);
  const byIds = !c?.kept.has(keyOf(ctx, single) + id);
  if (!row && !byIds) return;
  // The version check first, with a log read of this request's own: on one connection PostgreSQL runs statements
  // in the order they were sent, so the row and links read next are no older than the stamp they are kept under
  // (a log read shared with another request could run after them, and a change committed in between would be
  // kept as if seen). Its statement is sent before presentCache returns its promise.
  void presentCache(ctx, true).catch(() => {});
  const e: Early = { id };
  if (row) {
    e.row = getEventRows(ctx.db, [id]);
    e.row.catch(() => {});
  }
  if (byIds) {
    e.byIds = readByIds(ctx, [id]);
    e.byIds.catch(() => {});
  }
  early.set(ctx, e);
}

/** The early read of `ids` (one ID) of kind `kind`, if one was started for this request; taken once. */
function takeEarly<K extends 'row' | 'byIds'>(ctx: Ctx, ids: readonly number[], kind: K): Early[K] | undefined {
  const e = early.get(ctx);
  if (!e || ids.length !== 1 || ids[0] !== e.id) return undefined;
  const got = e[kind];
  e[kind] = undefined;
  return got;
}

/** The kept presentations' key prefix for this request's language, interface root and form. */
function keyOf(ctx: Ctx, single: boolean): string {
  return `${ctx.lang}\u0000${ctx.urls.root}\u0000${single ? 1 : 0}\u0000`;
}

/** The copy handed out -> what it was copied from, to write its JSON from the kept JSON (see `eventJson`). */
const origin = new WeakMap<Record<string, unknown>, Kept>();

/**
 * The kept presentations and rows, or null where none may be used: a write presents what it just changed. `own`:
 * the change log is read for this request alone, its statement sent before this returns (changeStamp).
 */
function presentCache(ctx: Ctx, own = false): Promise<PresentCache | null> {
  if (ctx.db.inTransaction || (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD')) return Promise.resolve(null);
  // Checked once a request (an archive reads rows, then presents them: one `data_version` query, not two).
  let p = checked.get(ctx);
  if (!p) checked.set(ctx, (p = checkVersion(ctx, own)));
  return p;
}

async function checkVersion(ctx: Ctx, own: boolean): Promise<PresentCache> {
  const services = ctx.app.services;
  const version = `${ctx.app.contentVersion}:${await changeStamp(ctx.db, 'all', own)}`;
  const now = services.clock ? Number(services.clock()) : Date.now();
  let c = services.presentCache;
  if (!c || c.version !== version || now >= c.until) {
    const until = sharedStateOf(ctx.db) === 'database' ? now + PRESENT_REVALIDATE_MS : Number.POSITIVE_INFINITY;
    services.presentCache = c = { version, kept: new Map(), keptBytes: 0, rows: new Map(), rowBytes: 0, until };
  }
  return c;
}

/**
 * Starts the check of what is kept for this request (the change log's read, shared with concurrent requests) now,
 * so that inside Db.together it goes in the round trip of the statements started with it (the archive's count and
 * page) instead of after them.
 */
export function startKeptCheck(ctx: Ctx): void {
  void presentCache(ctx).catch(() => {});
}

/** The kept presentations a request has checked (or is checking) the version of (a read: nothing it does changes them). */
const checked = new WeakMap<Ctx, Promise<PresentCache | null>>();

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
    for (const r of await (takeEarly(ctx, missing, 'row') ?? getEventRows(ctx.db, missing))) {
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
  const prefix = keyOf(ctx, opts.single === true);
  const found: (Kept | undefined)[] = rows.map((r) => kept.get(prefix + r.id));
  const missing = rows.filter((_, i) => !found[i]);
  if (missing.length) {
    const fresh = await presentFresh(
      ctx,
      missing,
      opts,
      takeEarly(
        ctx,
        missing.map((r) => r.id),
        'byIds',
      ),
    );
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
