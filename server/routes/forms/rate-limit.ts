import type { AppState } from '../../kernel/context.ts';
import { WindowLimiter } from '../../security/window-limiter.ts';

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
  limiter: WindowLimiter;
}

/**
 * A sliding-window limit per key (a hashed client address), kept in memory per app: public form submits
 * are limited to `limit` per `windowMs`. Returns the seconds to wait when over the limit, else 0.
 *
 * Memory is bounded whatever callers send: the shared `WindowLimiter` keeps at most `limit` times per key and
 * `MAX_KEYS` keys, forgetting the least recently seen first.
 */
export function hit(app: AppState, name: string, key: string, limit: number, windowMs: number, now = Date.now()): number {
  const limits = (app.services.formLimits ??= new Map());
  let store = limits.get(name);
  if (!store) {
    const s: FormLimit = { clock: now, limiter: undefined as unknown as WindowLimiter };
    s.limiter = new WindowLimiter({ max: limit, windowMs, maxKeys: MAX_KEYS, now: () => s.clock });
    limits.set(name, (store = s));
  }
  store.clock = now;
  const wait = store.limiter.retryAfter([key]);
  if (wait > 0) return wait;
  store.limiter.record([key]);
  return 0;
}

/** Keys held by one named limit (for tests of the bound). */
export function heldKeys(app: AppState, name: string): number {
  return app.services.formLimits?.get(name)?.limiter.size ?? 0;
}
