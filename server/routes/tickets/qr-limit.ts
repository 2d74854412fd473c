import type { AppState } from '../../kernel/context.ts';
import { nowMs } from './clock.ts';
import { WindowLimiter } from '../../security/window-limiter.ts';

declare module '../../kernel/services.ts' {
  interface Services {
    /** Failed ticket-code lookups per client (see `qrLimiter`). */
    qrLimiter?: FailureLimiter;
  }
}

/**
 * Failed QR check-ins (wrong security code, unknown attendee) per API key and per client address: past
 * `MAX_FAILURES` in a sliding minute, further QR check-ins answer 429 until the oldest failure ages out.
 * Guessing codes is the attack; a door with a sticky scanner stays far below it.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 60_000;

export class FailureLimiter extends WindowLimiter {
  constructor(now: () => number = Date.now) {
    super({ max: MAX_FAILURES, windowMs: WINDOW_MS, now });
  }

  fail(keys: readonly string[]): void {
    this.record(keys);
  }
}

/** The app's limiter (one per server, shared by every request). */
export function qrLimiter(app: AppState): FailureLimiter {
  let l = app.services.qrLimiter;
  if (!l) {
    // Read the app clock on each call: tests move it (app.services.clock) to age failures out.
    l = new FailureLimiter(() => nowMs({ app }));
    app.services.qrLimiter = l;
  }
  return l;
}
