import type { Db } from '../db/connection.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { clearRateKey, insertRateEvent, rateLimitedSince, sweepRateEvents, takeRateEvent } from '../db/repos/shared-state.ts';
import type { SharedState } from '../db/change-feed.ts';
import { held, WindowLimiter, type RateLimiter, type WindowLimiterOptions } from './window-limiter.ts';

/**
 * The sliding-window limit of `WindowLimiter`, counted in the database (table `evt_rate_events`), so every
 * process on one database counts against the same limit: ten failed sign-ins spread over three processes are
 * ten, not three times ten.
 *
 * Bounded as the in-memory one is: a key longer than 64 characters is stored as its hash, each key keeps at most
 * `max` events, events older than the window are swept (at most once a window, or a minute, per process), and
 * past `maxKeys * max` events the limiter's oldest go first.
 *
 * Each call is a query or two; checking and counting are separate statements, so processes racing on one key
 * can pass the limit by the number of racers at most (in one process calls do not interleave).
 */
export class DbWindowLimiter implements RateLimiter {
  readonly max: number;
  readonly windowMs: number;
  private readonly maxRows: number;
  private readonly now: () => number;
  private nextSweep = 0;

  constructor(
    private readonly db: Db,
    /** Names this limiter's rows (one table holds every limiter). */
    readonly name: string,
    opts: WindowLimiterOptions,
  ) {
    this.max = opts.max;
    this.windowMs = opts.windowMs;
    this.maxRows = (opts.maxKeys ?? 50_000) * opts.max;
    this.now = opts.now ?? Date.now;
  }

  async retryAfter(keys: readonly string[]): Promise<number> {
    const now = this.now();
    let wait = 0;
    for (const key of keys) {
      const at = await rateLimitedSince(this.db, this.name, held(key), now - this.windowMs, this.max);
      if (at !== undefined) wait = Math.max(wait, Math.ceil((at + this.windowMs - now) / 1000));
    }
    return wait > 0 ? Math.max(1, wait) : 0;
  }

  async record(keys: readonly string[]): Promise<void> {
    const now = this.now();
    const write = async () => {
      for (const key of keys) await insertRateEvent(this.db, this.name, held(key), now, now - this.windowMs, this.max);
      if (now >= this.nextSweep) {
        this.nextSweep = now + Math.min(this.windowMs, 60_000);
        await sweepRateEvents(this.db, this.name, now - this.windowMs, this.maxRows);
      }
    };
    // In the caller's transaction (a checkout counting its own), its writes commit or roll back with it: no
    // savepoint of their own (on PostgreSQL a round trip).
    if (this.db.inTransaction) await write();
    else await inTransaction(this.db, write);
  }

  /**
   * For a caller that folds this limiter's read and record into statements of its own (the PostgreSQL checkout,
   * repos/checkout.ts and orders.ts): what `retryAfter` looks up and `record` writes for `keys` now, and how the
   * lookup's answer (`rateLimitedSince`, the latest over the keys) turns into seconds to wait. `sweepIfDue` then
   * does the sweep `record` would have done.
   */
  fold(keys: readonly string[]): {
    name: string;
    keys: string[];
    atMs: number;
    afterMs: number;
    max: number;
    wait: (at: number | undefined) => number;
  } {
    const now = this.now();
    const wait = (at: number | undefined) => (at === undefined ? 0 : Math.max(1, Math.ceil((at + this.windowMs - now) / 1000)));
    return { name: this.name, keys: [...new Set(keys.map(held))], atMs: now, afterMs: now - this.windowMs, max: this.max, wait };
  }

  /**
   * `retryAfter`, and when it is 0 `record`, in one statement on PostgreSQL (repos/shared-state.ts takeRateEvent):
   * seconds to wait (nothing counted), or 0 with the event counted against every key.
   */
  async take(keys: readonly string[]): Promise<number> {
    if (this.db.engine !== 'postgres') {
      const wait = await this.retryAfter(keys);
      if (wait === 0) await this.record(keys);
      return wait;
    }
    const f = this.fold(keys);
    const at = await takeRateEvent(this.db, f);
    const wait = f.wait(at);
    if (wait === 0) await this.sweepIfDue();
    return wait;
  }

  /** The sweep of `record`, for a caller that wrote its events itself (`fold`). */
  async sweepIfDue(): Promise<void> {
    const now = this.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + Math.min(this.windowMs, 60_000);
    await sweepRateEvents(this.db, this.name, now - this.windowMs, this.maxRows);
  }

  async clear(key: string): Promise<void> {
    await clearRateKey(this.db, this.name, held(key));
  }
}

/** Where an app keeps shared state: its database, and whether limits are counted there. */
export interface LimiterHost {
  db?: Db;
  sharedState?: SharedState;
}

/**
 * A new limiter for `host`, counted where it keeps shared state: in memory, or in the database under `name`
 * (shared by every process on it).
 */
export function limiterFor(host: LimiterHost, name: string, opts: WindowLimiterOptions): RateLimiter {
  return host.sharedState === 'database' && host.db ? new DbWindowLimiter(host.db, name, opts) : new WindowLimiter(opts);
}
