import type { AppState } from '../../http/context.ts';

/**
 * A sliding-window limit per key (a hashed client address), kept in memory per app: public form submits
 * are limited to `limit` per `windowMs`. Returns the seconds to wait when over the limit, else 0.
 */
export function hit(app: AppState, name: string, key: string, limit: number, windowMs: number, now = Date.now()): number {
  const store = (app.services[`rate:${name}`] ??= new Map<string, number[]>()) as Map<string, number[]>;
  const recent = (store.get(key) ?? []).filter((t) => now - t < windowMs);
  if (recent.length >= limit) {
    store.set(key, recent);
    return Math.max(1, Math.ceil((recent[0] + windowMs - now) / 1000));
  }
  recent.push(now);
  store.set(key, recent);
  if (store.size > 10000) for (const [k, v] of store) if (!v.some((t) => now - t < windowMs)) store.delete(k);
  return 0;
}
