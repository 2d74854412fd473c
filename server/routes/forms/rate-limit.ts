import type { AppState } from '../../kernel/context.ts';
import { WindowLimiter, type RateLimiter } from '../../security/window-limiter.ts';
import { limiterFor } from '../../security/db-window-limiter.ts';

/** Client keys remembered per limit at most: the oldest are forgotten first (CONTRACT section 3, bounded tables). */
export const MAX_KEYS = 10_000;

declare module '../../kernel/services.ts' {
  interface Services {
    /** The public forms' limits by name (see `hit`). */
    formLimits?: Map<string, FormLimit>;
  }
}

interface FormLimit {
  /** The time of the call being answered (callers pass it, tests move it). */
  clock: number;
  limiter: RateLimiter;
}

/**
 * A sliding-window limit per key (a hashed client address), one per app and name: public form submits are
 * limited to `limit` per `windowMs`. Returns the seconds to wait when over the limit, else 0. Counted where the
 * app keeps shared state (`limiterFor`): in memory, or in the database for every process on it.
 *
 * Bounded whatever callers send: the limiter keeps at most `limit` times per key and `MAX_KEYS` keys in memory
 * (forgetting the least recently seen first), or `MAX_KEYS * limit` rows in the database (the oldest first).
 * In the database the count joins the caller's transaction: a submit refused for its content rolls back and is
 * not counted there (it wrote nothing); every submit that is stored is.
 */
export async function hit(app: AppState, name: string, key: string, limit: number, windowMs: number, now = Date.now()): Promise<number> {
  const limits = (app.services.formLimits ??= new Map());
  let store = limits.get(name);
  if (!store) {
    const s: FormLimit = { clock: now, limiter: undefined as unknown as RateLimiter };
    s.limiter = limiterFor(app, `rate:${name}`, { max: limit, windowMs, maxKeys: MAX_KEYS, now: () => s.clock });
    limits.set(name, (store = s));
  }
  store.clock = now;
  const wait = await store.limiter.retryAfter([key]);
  if (wait > 0) return wait;
  await store.limiter.record([key]);
  return 0;
}

/** Keys held by one named in-memory limit (for tests of the bound). */
export function heldKeys(app: AppState, name: string): number {
  const l = app.services.formLimits?.get(name)?.limiter;
  return l instanceof WindowLimiter ? l.size : 0;
}
