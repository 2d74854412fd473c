import type { AppState } from '../../kernel/context.ts';
import { appLimiter } from './clock.ts';
import type { RateLimiter } from '../../security/window-limiter.ts';

declare module '../../kernel/services.ts' {
  interface Services {
    /** Failed ticket-code lookups per client (see `qrLimiter`). */
    qrLimiter?: RateLimiter;
  }
}

/**
 * Failed QR check-ins (wrong security code, unknown attendee) per API key at each client address: past
 * `MAX_FAILURES` in a sliding minute, further QR check-ins answer 429 until the oldest failure ages out.
 * Guessing codes is the attack; a door with a sticky scanner stays far below it.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 60_000;

/** The app's limiter (one per server, shared by every request; in the database with shared state there). */
export function qrLimiter(app: AppState): RateLimiter {
  return appLimiter(app, 'qrLimiter', { max: MAX_FAILURES, windowMs: WINDOW_MS });
}
