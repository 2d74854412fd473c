import { HttpError } from '../kernel/errors.ts';
import type { Db } from '../db/connection.ts';
import type { SharedState } from '../db/change-feed.ts';
import { limiterFor, type LimiterHost } from '../security/db-window-limiter.ts';
import { clientKey, type RateLimiter, type WindowLimiterOptions } from '../security/window-limiter.ts';
import { digest } from './hash.ts';
import type { Services } from '../kernel/services.ts';

declare module '../kernel/services.ts' {
  interface Services {
    /** Failed sign-ins per login and per client address (see `signInGate`). */
    signInGate?: SignInGate;
  }
}

/**
 * Wrong passwords and keys, limited where they fail (CONTRACT section 3): past `MAX_FAILURES` failures within
 * `WINDOW_MS` for one login from one client address (`loginAt`), or of unknown keys from one address, the answer
 * is `429 rest_too_many_requests` with `Retry-After`.
 *
 * The limits fall on whoever fails, never on a rightful caller. A login is limited per address, so failures from
 * some addresses never refuse it at another. A random secret (a door key, a generated application password) is
 * checked by its fast hash first and accepted when right, wherever others failed (a venue's kiosks share one
 * address with its guests): such a secret cannot be guessed, so there is nothing to shield. A wrong one is
 * counted, and past the limit answered 429. Only a slow-hash check (a person's password, or a secret stored
 * before fast hashes) runs under the limit, refused before it runs.
 *
 * Concurrency cannot stretch the limit of slow checks: at most `MAX_FAILURES` different credentials per key are
 * checked at once, and a check that finishes after the limit was reached by others answers 429 whatever its
 * outcome, so no more than `MAX_FAILURES` outcomes per key and window are ever revealed. Requests presenting the
 * same credentials share one slot: a client sending 30 requests at once with its one password is one check.
 *
 * Wrong API keys count per address only: a per-key-ID count would let anyone lock a door out by sending wrong
 * secrets with its (sequential, guessable) ID. A revoked key was once right and is not counted (a kiosk
 * retrying with it must not lock out the other kiosks behind the same address), nor is a malformed one (it cannot
 * be right and costs no hash check).
 *
 * Several processes on one database (shared state 'database'): the failures are counted in the database, so the
 * limit holds across them; the slots of checks under way stay per process (they are a few milliseconds of
 * hashing each), so with N processes up to N * MAX_FAILURES checks per key can be running at one moment, and a
 * check that finishes after the limit was reached elsewhere still answers 429.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 5 * 60_000;

export class TooManyFailures extends HttpError {
  readonly headers: Record<string, string>;

  constructor(readonly retryAfter: number) {
    super(429, 'rest_too_many_requests', `Too many failed sign-in attempts. Try again in ${retryAfter} seconds.`);
    this.headers = { 'Retry-After': String(retryAfter) };
    // Thrown by a handler (a token a route checks itself), the answer carries it too.
    this.answerHeaders = this.headers;
  }
}

/** The response headers an error carries (the 429's `Retry-After`), for the writer in http/outgoing.ts. */
export function errorHeaders(e: unknown): Record<string, string> | undefined {
  return e instanceof TooManyFailures ? e.headers : undefined;
}

export const addressKey = (ip: string) => `ip:${clientKey(ip)}`;

/** A login's key: case-folded (logins are matched whatever their case here), long ones by digest, so a key stays small. */
export function loginKey(login: string): string {
  const l = login.trim().toLowerCase();
  return `login:${l.length > 100 ? digest(l) : l}`;
}

/** The key of one login at one client address: a login's failures limit it only where they came from. */
export function loginAt(ip: string, login: string): string {
  return `${addressKey(ip)}|${loginKey(login)}`;
}

export class SignInGate {
  readonly limiter: RateLimiter;
  /** Per limit key, the credentials (by digest) being checked now, with the number of requests waiting on each. */
  private readonly pending = new Map<string, Map<string, number>>();

  /** `host`: count the failures where it keeps shared state (its database in 'database' mode), else in memory. */
  constructor(opts: { max?: number; windowMs?: number; maxKeys?: number; now?: () => number; host?: LimiterHost } = {}) {
    const o: WindowLimiterOptions = { max: opts.max ?? MAX_FAILURES, windowMs: opts.windowMs ?? WINDOW_MS, maxKeys: opts.maxKeys, now: opts.now };
    this.limiter = limiterFor(opts.host ?? {}, 'sign-in', o);
  }

  /** Checks under way (for tests). */
  get inFlight(): number {
    let n = 0;
    for (const m of this.pending.values()) for (const v of m.values()) n += v;
    return n;
  }

  private async admit(keys: readonly string[], credential: string): Promise<void> {
    const wait = await this.limiter.retryAfter(keys);
    if (wait > 0) throw new TooManyFailures(wait);
    for (const k of keys) {
      const m = this.pending.get(k);
      if (m && !m.has(credential) && m.size >= this.limiter.max) throw new TooManyFailures(1);
    }
  }

  private hold(keys: readonly string[], credential: string, d: 1 | -1): void {
    for (const k of keys) {
      let m = this.pending.get(k);
      if (!m) this.pending.set(k, (m = new Map()));
      const n = (m.get(credential) ?? 0) + d;
      if (n > 0) m.set(credential, n);
      else m.delete(credential);
      if (!m.size) this.pending.delete(k);
    }
  }

  /**
   * Runs one check under the limit of `keys`. `check` answers whether the credentials failed (`counts`: a
   * failure to record) and its result; throws `TooManyFailures` when the keys are limited. `credential` names
   * what is presented (any stable text: it is digested here), so identical concurrent requests share a slot.
   */
  async attempt<T>(keys: readonly string[], credential: string, check: () => Promise<{ counts: boolean; result: T }>): Promise<T> {
    const id = digest(credential);
    await this.admit(keys, id);
    this.hold(keys, id, 1);
    let out: { counts: boolean; result: T };
    try {
      out = await check();
    } finally {
      this.hold(keys, id, -1);
    }
    const wait = await this.limiter.retryAfter(keys);
    if (out.counts) await this.limiter.record(keys);
    if (wait > 0) throw new TooManyFailures(wait);
    return out.result;
  }

  /** Counts a failed fast check against `keys`: 429 when they had already reached the limit. */
  async failed(keys: readonly string[]): Promise<void> {
    const wait = await this.limiter.retryAfter(keys);
    await this.limiter.record(keys);
    if (wait > 0) throw new TooManyFailures(wait);
  }
}

/** What the gate needs of its host: where it is kept and the clock tests move. */
export interface GateHost {
  services: Pick<Services, 'signInGate' | 'clock'>;
  /** The app's database and where it keeps shared state (failures are counted there in 'database' mode). */
  db?: Db;
  sharedState?: SharedState;
}

/**
 * Counts a wrong random secret a route checks itself (a mail app's token, a forms views token) against the
 * per-address limit of unknown secrets, as a wrong door key is: `TooManyFailures` once the address is past it.
 */
export async function refusedSecret(app: GateHost, ip: string): Promise<void> {
  await signInGate(app).failed([addressKey(ip)]);
}

/** The app's gate (one per server, on `app.services.signInGate`, where a test may put its own). */
export function signInGate(app: GateHost): SignInGate {
  let g = app.services.signInGate;
  if (!g) {
    // Read the app clock on each call: tests move it (app.services.clock) to age failures out.
    const clock = () => {
      const now = app.services.clock;
      return now ? Number(now()) : Date.now();
    };
    g = new SignInGate({ now: clock, host: app });
    app.services.signInGate = g;
  }
  return g;
}
