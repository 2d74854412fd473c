import type { AppState } from '../../kernel/context.ts';
import { touch } from '../../http/cache-tags.ts';
import { hooks } from '../../kernel/hooks.ts';
import { setDbClock } from '../../db/connection.ts';
import { nowUtc } from '../../db/clock.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { expireHolds, hasLapsedHold } from '../../db/repos/orders.ts';
import { CART_LIFETIME_SECONDS, dropStaleCarts } from '../../db/repos/carts.ts';
import { nowMs } from './clock.ts';
import type { Ctx } from '../../kernel/context.ts';

/**
 * Pending orders expire (CONTRACT section 3): a checkout that leaves something to pay holds its places for
 * `orderHoldMinutes`; past that the places count for nothing at once (capacity counts compare the hold with
 * SQL's `evt_now_utc()`, the app clock), and this sweep, run at start-up and every minute, cancels the order.
 * The same sweep drops carts untouched for a cart cookie's lifetime.
 */
export const SWEEP_MS = 60_000;

export interface SweepOutcome {
  cancelled: number[];
  carts: number;
}

/** One pass of the sweep, at the app clock's now. Skipped (null) while a request holds a transaction open. */
export async function sweepHolds(state: AppState): Promise<SweepOutcome | null> {
  const db = state.db;
  // An async handler may hold a transaction across an await: a sweep now would become part of it.
  if (!db.open || db.inTransaction) return null;
  const now = nowMs({ app: state });
  // One transaction: the change-log row other processes read (touch) commits with the writes it describes, so
  // a crash between them cannot leave those processes answering from stale caches.
  const { cancelled, carts } = await inTransaction(db, async () => {
    const cancelled = await expireHolds(db, nowUtc(new Date(now)));
    const carts = await dropStaleCarts(db, nowUtc(new Date(now - CART_LIFETIME_SECONDS * 1000)));
    // Cancelled holds give their places back (availability moves); dropped carts show in no cached answer.
    const tags = [...(cancelled.length ? ['tickets'] : []), ...(carts ? ['carts'] : [])];
    if (tags.length) await touch(state, tags);
    return { cancelled, carts };
  });
  if (cancelled.length) state.log({ level: 'info', msg: 'unpaid orders cancelled: their hold ran out', order_ids: cancelled });
  return { cancelled, carts };
}

/**
 * Every read says a lapsed order is cancelled at once (CONTRACT section 3), not up to a sweep later: reads of
 * orders and attendees call this first, which runs the sweep when a hold has run out (one indexed lookup
 * otherwise). Inside an open transaction (a batch's group) the sweep is left to its timer.
 */
export async function sweepIfLapsed(ctx: Pick<Ctx, 'app' | 'db'>): Promise<void> {
  if (await hasLapsedHold(ctx.db, nowUtc(new Date(nowMs(ctx))))) await sweepHolds(ctx.app);
}

/** Installs the app clock for SQL and the sweep: once now, then on an unref'd timer stopped when the app closes. */
export async function installOrderHolds(state: AppState): Promise<void> {
  setDbClock(state.db, () => nowMs({ app: state }));
  const run = async () => {
    try {
      await sweepHolds(state);
    } catch (e) {
      state.log({ level: 'error', msg: 'order hold sweep failed', error: String((e as Error)?.stack ?? e) });
    }
  };
  await run();
  const timer = setInterval(run, SWEEP_MS);
  timer.unref();
  hooks(state).onClose.push(() => clearInterval(timer));
}
