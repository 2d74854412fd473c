import type { Db } from '../db/connection.ts';
import { changeStamp, onChangedTags } from '../db/change-feed.ts';
import type { Lang } from '../kernel/context.ts';
import type { Result } from '../kernel/result.ts';
import { DEFAULT_READ_TAGS, type Tags } from './cache-tags.ts';
import { presetJson } from './preset-json.ts';

declare module '../kernel/services.ts' {
  interface Services {
    /** Anonymous public reads, kept until the next write. */
    responseCache: ResponseCache;
  }
}

/**
 * Reuse of anonymous GET answers of routes marked `publicCache` (public event, venue, organizer and term
 * reads; indexes and docs). An entry is valid while nothing it shows was written: a write that declares what it
 * changed (server/http/cache-tags.ts) drops the entries that depend on one of its tags (`invalidate`); any other
 * write of ours bumps the app's `contentVersion`, and other processes' commits (the CLI) move the change
 * feed's stamp (server/db/change-feed.ts: SQLite's `data_version`, or with shared state in the database an
 * undescribed change in its log; a described one there drops just its tags): either empties the cache. A TTL bounds answers that depend on the clock (the archive's
 * default date window moves at midnight).
 *
 * Memory is bounded whatever callers send (CONTRACT section 3): an entry keeps only its serialised body (a
 * Buffer) and a few headers, never the object tree; the total of entry sizes (body, key, headers and a fixed
 * overhead) stays within `maxBytes`, an answer larger than `maxEntryBytes` is not kept, and the least recently
 * used entries make room for new ones. Expired entries and entries of an older content version are dropped
 * as soon as they are seen to be dead, not only when asked for again. Keys are normalised (see `cacheKey`), so
 * one answer is one entry however its query is spelt; junk parameters make new entries, which the byte bound
 * and LRU order push out.
 */
export interface CachedAnswer {
  result: Result;
  allow: string;
  routeKey: string;
  /** The body as UTF-8 JSON, serialised and encoded once. */
  json: Buffer;
  /** Compressed forms of `json`, by content coding, made once on first demand (see `compressed`). */
  encoded?: Map<string, Buffer>;
}

interface Entry {
  status: number;
  headers?: Record<string, string>;
  allow: string;
  routeKey: string;
  json: Buffer;
  expires: number;
  /** What this entry counts against `maxBytes`. */
  cost: number;
  /** What the answer shows (cache-tags.ts): a write naming one of these drops the entry. */
  tags: Tags;
  /** Compressed forms of `json` (counted in `cost` once made). */
  encoded: Map<string, Buffer>;
}

export interface ResponseCacheOptions {
  /** Total bytes of entries at most (default 32 MiB). */
  maxBytes?: number;
  /** Largest single entry kept (default 1 MiB, and never more than an eighth of `maxBytes`). */
  maxEntryBytes?: number;
  /** Entries at most, whatever their size (default 20,000). */
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

export const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;
const ENTRY_OVERHEAD = 256;

/** JSON with object keys sorted at every level (arrays keep their order): one spelling per parsed query. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

/**
 * The cache key of a REST GET: language segment, route and the parsed query with its parameters sorted, so
 * `?a=1&b=2`, `?b=2&a=1` and the `?rest_route=` spelling of one request share an entry. Routes match
 * case-insensitively and the cached routes' parameters are digits, so the route is lower-cased, except a
 * by-slug route, whose slug is looked up as written.
 */
export function cacheKey(target: { route: string; langSegment: Lang | null; query: Record<string, unknown> }): string {
  const route = /\/by-slug\//i.test(target.route) ? target.route : target.route.toLowerCase();
  let query = target.query;
  if ('rest_route' in query) {
    // Where the route came from (`?rest_route=` or the path) changes nothing in the answer.
    const { rest_route: _, ...rest } = query;
    query = rest;
  }
  return `${target.langSegment ?? ''}\u0000${route}\u0000${canonical(query)}`;
}

export class ResponseCache {
  /** In least-recently-used-first order: a hit re-inserts its entry. */
  private readonly entries = new Map<string, Entry>();
  private readonly enabled: boolean;
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private total = 0;
  /** The content version the entries were made under; a different one empties the cache. */
  private current = '';
  private nextSweep = 0;
  /** Keys of entries by each tag they depend on. */
  private readonly byTag = new Map<string, Set<string>>();
  /** The database whose change feed this cache listens to. */
  private fed: Db | null = null;

  constructor(enabled: boolean, opts: ResponseCacheOptions = {}) {
    this.enabled = enabled;
    this.maxBytes = opts.maxBytes ?? DEFAULT_CACHE_BYTES;
    this.maxEntryBytes = Math.min(opts.maxEntryBytes ?? 1024 * 1024, Math.floor(this.maxBytes / 8));
    this.maxEntries = opts.maxEntries ?? 20_000;
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Bytes held (bodies, keys, headers and per-entry overhead). */
  get bytes(): number {
    return this.total;
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Keys from least to most recently used (for tests of the eviction order). */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  clear(): void {
    this.entries.clear();
    this.byTag.clear();
    this.total = 0;
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    this.total -= e.cost;
    for (const t of e.tags) {
      const keys = this.byTag.get(t);
      if (!keys) continue;
      keys.delete(key);
      if (!keys.size) this.byTag.delete(t);
    }
  }

  /**
   * Drops the entries that depend on what a write changed: a tag, its per-item forms (`tickets` drops
   * `tickets:12`) and its family (`tickets:12` drops `tickets`, the answers listing every event's tickets).
   */
  invalidate(tags: Tags): void {
    if (!this.entries.size) return;
    const hit = new Set<string>();
    for (const t of tags) {
      const colon = t.indexOf(':');
      const family = colon < 0 ? null : t.slice(0, colon);
      for (const [tag, keys] of this.byTag) {
        if (tag === t || tag.startsWith(`${t}:`) || tag === family) for (const k of keys) hit.add(k);
      }
    }
    for (const k of hit) {
      const e = this.entries.get(k);
      if (e) this.remove(k, e);
    }
  }

  /**
   * The entry's body compressed with `coding` by `make`, made on first demand and kept with the entry (its
   * bytes counted); undefined when the entry is gone, or keeping it would exceed the bounds.
   */
  compressed(key: string, coding: string, make: (json: Buffer) => Buffer): Buffer | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    let out = e.encoded.get(coding);
    if (out) return out;
    out = make(e.json);
    const cost = out.length + 64;
    if (e.cost + cost <= this.maxEntryBytes && this.total + cost <= this.maxBytes) {
      // An unpooled copy: zlib's result may be a view of a larger allocation.
      const kept = Buffer.allocUnsafeSlow(out.length);
      out.copy(kept);
      e.encoded.set(coding, kept);
      e.cost += cost;
      this.total += cost;
      out = kept;
    }
    return out;
  }

  /**
   * Checks the content version (a write empties the cache) and, now and then, drops expired entries. Other
   * processes' changes come through the change feed: an undescribed one moves its stamp, a described one
   * drops the entries of its tags (the listener added on first use).
   */
  private async refresh(db: Db, contentVersion: number, now: number): Promise<string> {
    if (this.fed !== db) {
      this.fed = db;
      onChangedTags(db, (tags) => this.invalidate(tags));
    }
    const v = `${contentVersion}:${await changeStamp(db)}`;
    if (v !== this.current) {
      this.clear();
      this.current = v;
    }
    if (now >= this.nextSweep) {
      for (const [k, e] of this.entries) if (e.expires <= now) this.remove(k, e);
      this.nextSweep = now + Math.max(1000, this.ttlMs / 4);
    }
    return v;
  }

  async get(db: Db, contentVersion: number, key: string): Promise<CachedAnswer | undefined> {
    if (!this.enabled) return undefined;
    const now = this.now();
    await this.refresh(db, contentVersion, now);
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.remove(key, e);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, e);
    return { result: answerOf(e), allow: e.allow, routeKey: e.routeKey, json: e.json, encoded: e.encoded };
  }

  /** Stores an answer; returns its serialised body (also when it is too large to keep), or undefined when off. */
  async set(
    db: Db,
    contentVersion: number,
    key: string,
    answer: Omit<CachedAnswer, 'json' | 'encoded'>,
    tags: Tags = DEFAULT_READ_TAGS,
  ): Promise<Buffer | undefined> {
    if (!this.enabled) return undefined;
    // An unpooled buffer: a small Buffer.from() is a slice of a shared 8 KiB slab, which one kept entry would pin
    // whole, so the bytes counted would not be the bytes held.
    const text = presetJson(answer.result.body) ?? JSON.stringify(answer.result.body);
    let json: Buffer;
    if (typeof text === 'string') {
      json = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      json.write(text);
    } else {
      json = Buffer.allocUnsafeSlow(text.length);
      text.copy(json);
    }
    const { status, headers } = answer.result;
    let cost = ENTRY_OVERHEAD + json.length + 2 * (key.length + answer.allow.length + answer.routeKey.length);
    for (const [k, v] of Object.entries(headers ?? {})) cost += 2 * (k.length + v.length) + 32;
    for (const t of tags) cost += 2 * t.length + 32;
    if (cost > this.maxEntryBytes) return json;
    const now = this.now();
    await this.refresh(db, contentVersion, now);
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    while (this.entries.size && (this.total + cost > this.maxBytes || this.entries.size >= this.maxEntries)) {
      const [k, e] = this.entries.entries().next().value as [string, Entry];
      this.remove(k, e);
    }
    this.entries.set(key, {
      status,
      headers: headers ? { ...headers } : undefined,
      allow: answer.allow,
      routeKey: answer.routeKey,
      json,
      expires: now + this.ttlMs,
      cost,
      tags,
      encoded: new Map(),
    });
    this.total += cost;
    for (const t of tags) {
      let keys = this.byTag.get(t);
      if (!keys) this.byTag.set(t, (keys = new Set()));
      keys.add(key);
    }
    return json;
  }
}

/** A cached entry as a Result; its body is parsed from the stored JSON only if something reads it. */
function answerOf(e: Entry): Result {
  let body: unknown;
  let parsed = false;
  return {
    status: e.status,
    headers: e.headers && { ...e.headers },
    get body() {
      if (!parsed) {
        body = JSON.parse(e.json.toString('utf8'));
        parsed = true;
      }
      return body;
    },
    set body(v: unknown) {
      body = v;
      parsed = true;
    },
  };
}
