import type { Ctx } from '../../http/context.ts';
import { nowUtc } from '../../db/clock.ts';

/**
 * The tickets namespace's notion of now (ms): nonce ticks, sale windows, order times. Tests replace it with
 * `app.state.services.clock = () => ms` to move time (nonce expiry) without waiting.
 */
export function nowMs(ctx: Pick<Ctx, 'app'>): number {
  const clock = ctx.app.services.clock;
  return typeof clock === 'function' ? Number(clock()) : Date.now();
}

/** `YYYY-MM-DD HH:MM:SS` UTC of `nowMs`. */
export function nowUtcString(ctx: Pick<Ctx, 'app'>): string {
  return nowUtc(new Date(nowMs(ctx)));
}
