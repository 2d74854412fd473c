import type { Ctx } from '../../kernel/context.ts';
import type { AppState } from '../../kernel/context.ts';
import { nowUtc } from '../../db/clock.ts';
import type { RateLimiter, WindowLimiterOptions } from '../../security/window-limiter.ts';
import { limiterFor } from '../../security/db-window-limiter.ts';

/** The app's sliding-window limiters made by `appLimiter` (tests put their own in place). */
export type AppLimiterName = 'checkoutLimiter' | 'newCartLimiter' | 'ticketMailLimiter' | 'refusalLimiter';

declare module '../../kernel/services.ts' {
  interface Services {
    /** Checkouts per client and per order. */
    checkoutLimiter?: RateLimiter;
    /** New carts per client. */
    newCartLimiter?: RateLimiter;
    /** Ticket mails sent again per order and per client. */
    ticketMailLimiter?: RateLimiter;
    /** Refused scans a door records (`POST /checkins`) per caller. */
    refusalLimiter?: RateLimiter;
    /** Places one client may hold in pending orders (default `maxTicketsPerOrder`; tests that buy a lot raise it). */
    maxHeldPlaces?: number;
  }
}

/**
 * The tickets namespace's notion of now (ms): nonce ticks, sale windows, order times. Tests replace it with
 * `app.state.services.clock = () => ms` to move time (nonce expiry) without waiting.
 */
export function nowMs(ctx: Pick<Ctx, 'app'>): number {
  const clock = ctx.app.services.clock;
  return clock ? Number(clock()) : Date.now();
}

/** `YYYY-MM-DD HH:MM:SS` UTC of `nowMs`. */
export function nowUtcString(ctx: Pick<Ctx, 'app'>): string {
  return nowUtc(new Date(nowMs(ctx)));
}

/**
 * The app's sliding-window limiter called `name` (one per server, on `app.services[name]`, made on first use);
 * it reads the app clock, which tests move.
 */
export function appLimiter(app: AppState, name: AppLimiterName | 'qrLimiter', opts: Omit<WindowLimiterOptions, 'now'>): RateLimiter {
  let l = app.services[name];
  if (!l) {
    l = limiterFor(app, name, { ...opts, now: () => nowMs({ app }) });
    app.services[name] = l;
  }
  return l;
}
