import crypto from 'node:crypto';

/** Keys longer than this are held as a hash (a login can be as long as a header), so each key costs little. */
const MAX_KEY_CHARS = 64;

/** The key as held: as it is, or its hash when long. */
export function held(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `#${crypto.createHash('sha256').update(key).digest('base64url')}`;
}

/**
 * A sliding-window limit per key: past `max` events within `windowMs`, `retryAfter` says how many seconds remain
 * until the oldest of them ages out. Two implementations: `WindowLimiter` below (in memory, per process: the
 * SQLite default, where one process serves a database) and `DbWindowLimiter` (db-window-limiter.ts: counted in
 * the database, shared by every process on it). `limiterFor` (db-window-limiter.ts) picks one per app.
 * The database one answers promises: callers await every call, whichever they hold.
 */
export interface RateLimiter {
  readonly max: number;
  readonly windowMs: number;
  /** Seconds to wait when any of the keys is at its limit, else 0. */
  retryAfter(keys: readonly string[]): number | Promise<number>;
  /** Counts one event against each key. */
  record(keys: readonly string[]): void | Promise<void>;
  /** Forgets a key (a successful sign-in clears its login's failures). */
  clear(key: string): void | Promise<void>;
}

/**
 * A sliding-window counter per key (a login, a client address, an API key): past `max` events within
 * `windowMs`, `retryAfter` says how many seconds remain until the oldest of them ages out. Used for failed
 * sign-ins, failed QR check-ins and anonymous checkouts.
 *
 * Memory is bounded whatever callers send: each key keeps at most `max` timestamps, and past `maxKeys` keys the
 * least recently touched ones are forgotten (a Map keeps insertion order; a touched key is re-inserted); a key
 * longer than 64 characters is held as its hash, so a key costs at most about 100 bytes plus its timestamps.
 */
export interface WindowLimiterOptions {
  max: number;
  windowMs: number;
  /** Keys remembered at most (default 50,000). */
  maxKeys?: number;
  now?: () => number;
}

export class WindowLimiter implements RateLimiter {
  private readonly hits = new Map<string, number[]>();
  readonly max: number;
  readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(opts: WindowLimiterOptions) {
    this.max = opts.max;
    this.windowMs = opts.windowMs;
    this.maxKeys = opts.maxKeys ?? 50_000;
    this.now = opts.now ?? Date.now;
  }

  /** Number of keys held (for tests of the bound). */
  get size(): number {
    return this.hits.size;
  }

  private recent(key: string, now: number): number[] {
    const list = this.hits.get(key);
    if (!list) return [];
    const cutoff = now - this.windowMs;
    let i = 0;
    while (i < list.length && list[i] <= cutoff) i++;
    if (i === list.length) {
      this.hits.delete(key);
      return [];
    }
    return i ? list.slice(i) : list;
  }

  /** Seconds to wait when any of the keys is at its limit, else 0. */
  retryAfter(keys: readonly string[]): number {
    const now = this.now();
    let wait = 0;
    for (const key of keys) {
      const list = this.recent(held(key), now);
      if (list.length >= this.max) wait = Math.max(wait, Math.ceil((list[list.length - this.max] + this.windowMs - now) / 1000));
    }
    return wait > 0 ? Math.max(1, wait) : 0;
  }

  /** Counts one event against each key. */
  record(keys: readonly string[]): void {
    const now = this.now();
    for (const key of keys) {
      const k = held(key);
      const list = this.recent(k, now);
      list.push(now);
      if (list.length > this.max) list.splice(0, list.length - this.max);
      this.hits.delete(k);
      this.hits.set(k, list);
    }
    while (this.hits.size > this.maxKeys) this.hits.delete(this.hits.keys().next().value as string);
  }

  /** Forgets a key (a successful sign-in clears its login's failures). */
  clear(key: string): void {
    this.hits.delete(held(key));
  }
}

/**
 * The limiter key of a client address: IPv4 as is (an IPv4-mapped IPv6 address as its IPv4), IPv6 by its /64,
 * since one machine commonly holds a whole /64 and could otherwise rotate through addresses.
 */
export function clientKey(ip: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4) return v4[1];
  if (!ip.includes(':')) return ip;
  const [head, tail] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
