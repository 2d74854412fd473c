import type { Hooks } from './hooks.ts';

/**
 * The app's process-wide services (`AppState.services`), one named, typed field each, read without casts.
 *
 * The kernel declares the fields whose types it can name without importing a layer above it. A module above
 * declares its own field next to the code that owns it, by merging into this interface:
 *
 *     declare module '../kernel/services.ts' {
 *       interface Services { mail?: MailService }
 *     }
 *
 * so the kernel stays a leaf (test/server/structure.test.ts) and every field still has one declared type.
 * Fields are optional when made on first use (`hooks(app)`, the limiters) or set only by `createApp`.
 * Where the fields are declared: `grep -rn "interface Services" server`.
 */
export interface Services {
  /** Extension points between namespaces (see `hooks(app)`). */
  hooks?: Hooks;
  /** The app's clock in ms; tests replace it to move time (nonce expiry, limiter windows). */
  clock?: () => number;
  /** Set when the server is shutting down: `/health` answers 503 so a balancer stops sending. */
  draining?: boolean;
}
