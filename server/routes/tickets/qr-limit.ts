import type { AppState } from '../../http/context.ts';
import { nowMs } from './clock.ts';

/**
 * Failed QR check-ins (wrong security code, unknown attendee) per API key and per client address: past
 * `MAX_FAILURES` in a sliding minute, further QR check-ins answer 429 until the oldest failure ages out.
 * Guessing codes is the attack; a door with a sticky scanner stays far below it.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 60_000;

export class FailureLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  private recent(key: string): number[] {
    const cutoff = this.now() - WINDOW_MS;
    const list = (this.hits.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.hits.set(key, list);
    else this.hits.delete(key);
    return list;
  }

  /** Seconds to wait when any of the keys is over the limit, else 0. */
  retryAfter(keys: readonly string[]): number {
    let wait = 0;
    for (const k of keys) {
      const list = this.recent(k);
      if (list.length >= MAX_FAILURES) wait = Math.max(wait, Math.ceil((list[list.length - MAX_FAILURES] + WINDOW_MS - this.now()) / 1000));
    }
    return wait > 0 ? wait : 0;
  }

  fail(keys: readonly string[]): void {
    const t = this.now();
    for (const k of keys) {
      const list = this.recent(k);
      list.push(t);
      this.hits.set(k, list);
    }
    // Bound memory under a spray of addresses: forget the quietest half.
    if (this.hits.size > 50_000) for (const k of [...this.hits.keys()].slice(0, 25_000)) this.hits.delete(k);
  }
}

/** The app's limiter (one per server, shared by every request). */
export function qrLimiter(app: AppState): FailureLimiter {
  let l = app.services.qrLimiter as FailureLimiter | undefined;
  if (!l) {
    // Read the app clock on each call: tests move it (app.services.clock) to age failures out.
    l = new FailureLimiter(() => nowMs({ app }));
    app.services.qrLimiter = l;
  }
  return l;
}
