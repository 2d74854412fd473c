import crypto from 'node:crypto';
import { callerTag, type Ctx } from '../kernel/context.ts';

const HALF_DAY_MS = 12 * 60 * 60 * 1000;

function tick(now: number): number {
  return Math.ceil(now / HALF_DAY_MS);
}

function mac(secret: string, action: string, object: number | string, who: string, t: number): string {
  return crypto.createHmac('sha256', secret).update(`${t}|${action}|${object}|${who}`).digest('hex').slice(-12, -2);
}

/**
 * A WordPress-style nonce: an HMAC of (action, object, caller, time tick). A tick is 12 hours and the current
 * and previous ticks verify, so a nonce lives 12 to 24 hours, as in WordPress.
 */
export function createNonce(ctx: Pick<Ctx, 'caller' | 'app'>, action: string, object: number | string, now = Date.now()): string {
  return mac(ctx.app.secret, action, object, callerTag(ctx.caller), tick(now));
}

export function verifyNonce(ctx: Pick<Ctx, 'caller' | 'app'>, nonce: unknown, action: string, object: number | string, now = Date.now()): boolean {
  if (typeof nonce !== 'string' || !/^[0-9a-f]{10}$/.test(nonce)) return false;
  const t = tick(now);
  for (const candidate of [t, t - 1]) {
    const expected = mac(ctx.app.secret, action, object, callerTag(ctx.caller), candidate);
    if (crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(nonce))) return true;
  }
  return false;
}
