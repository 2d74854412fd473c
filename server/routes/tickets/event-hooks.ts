import type { AppState, Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { hooks } from '../../kernel/hooks.ts';
import { createNonce } from '../../auth/nonces.ts';
import { attendanceByPost, availableOf, providersByPost, publishedTicketStock, ticketedCondition } from '../../db/repos/tickets.ts';
import type { EventRow } from '../../db/repos/events.ts';
import type { PresentOpts } from '../../kernel/hooks.ts';
import { nowMs } from './clock.ts';
import { readsAttendeesOf } from './attendee-access.ts';
import { installOrderHolds } from './order-hold.ts';
import { currentSigningKey } from '../../db/repos/signing-keys.ts';
import { ensureSigningKey, validPublicKeys } from '../../security/ticket-signing.ts';

/**
 * Event Tickets' marks on events (reference 4.8): `ticketed` on every event, `attendance` for callers with
 * manage access (a key bound to an event: that event's only, CONTRACT section 3), (CONTRACT section 5) `nonces.add_ticket_nonce` on single reads for ticket editors, and the event's signing keys for the same callers as `attendance` (section 8).
 */
export async function decorateEvents(ctx: Ctx, events: Record<string, unknown>[], rows: EventRow[], opts: PresentOpts): Promise<void> {
  const ids = rows.map((r) => r.id);
  // A single read with offers reads its tickets' stock for their availability: the providers come with it (one
  // statement instead of two; each is a round trip on PostgreSQL).
  // The stock read as the request started (prefetchStock) serves the providers too, offers or not: a read of
  // an event without tickets would otherwise make its providers' round trip besides it.
  const single = opts.single === true && rows.length === 1;
  const early = single ? takePrefetched(ctx, ids[0]) : undefined;
  const stock = early !== undefined ? await early : single && hasOffers(events[0]) ? await publishedTicketStock(ctx.db, ids[0]) : null;
  const providers = stock ? new Map(stock.length ? [[ids[0], [...new Set(stock.map((t) => t.provider))]]] : []) : await providersByPost(ctx.db, ids);
  const attendance = can(ctx, 'manage_attendees') ? await attendanceByPost(ctx.db, ids) : null;
  const editor = opts.single === true && can(ctx, 'edit_tickets');
  for (const [i, r] of rows.entries()) {
    const e = events[i] as Record<string, unknown>;
    // The original's order: `attendance` before `ticketed`.
    const reaches = attendance !== null && (await readsAttendeesOf(ctx, r.id));
    if (reaches) e.attendance = attendance.get(r.id) ?? { total_attendees: 0, checked_in: 0, not_checked_in: 0 };
    e.ticketed = providers.get(r.id) ?? false;
    if (editor) e.nonces = { add_ticket_nonce: createNonce(ctx, 'add_ticket_nonce', r.id, nowMs(ctx)) };
    if (reaches) await signingKeys(ctx, e, r.id, opts.single === true);
    if (stock && hasOffers(e)) offerAvailability(e, stock);
  }
}

type Stock = Awaited<ReturnType<typeof publishedTicketStock>>;

/** A single read's ticket stock, read as the request started (prefetchStock), by request. */
const prefetched = new WeakMap<Ctx, { eventId: number; stock: Promise<Stock> }>();

/**
 * Starts the ticket stock read of a single event's read (Hooks.eventPrefetch) while the event itself is looked up:
 * on PostgreSQL it goes in the round trip of the event's own reads (Db.together) instead of after them.
 */
function prefetchStock(ctx: Ctx, eventId: number): void {
  const stock = publishedTicketStock(ctx.db, eventId);
  // Taken by the decorator, or not (the event is not found, or has no offers): never an unhandled rejection.
  stock.catch(() => {});
  prefetched.set(ctx, { eventId, stock });
}

/** The stock prefetchStock started for this request and event, once. */
function takePrefetched(ctx: Ctx, eventId: number): Promise<Stock> | undefined {
  const p = prefetched.get(ctx);
  if (p?.eventId !== eventId) return undefined;
  prefetched.delete(ctx);
  return p.stock;
}

/**
 * CONTRACT section 8, for door and manager callers whose reach holds the event: `signing_key` and
 * `signing_key_id` (the current key, which signs new tickets) and `signing_keys` (every key not revoked, as
 * `{signing_key_id, signing_key}`, oldest first: tickets signed before a rotation stay valid, as pretix's
 * `valid_keys`). A single read makes the key when the event has none (a kiosk reads its event at every
 * download); an archive shows the keys made already.
 */
async function signingKeys(ctx: Ctx, e: Record<string, unknown>, eventId: number, single: boolean): Promise<void> {
  const current = single ? await ensureSigningKey(ctx.db, ctx.app.secret, eventId, nowMs(ctx)) : await currentSigningKey(ctx.db, eventId);
  if (!current) return;
  e.signing_key = current.public_key;
  e.signing_key_id = current.kid;
  e.signing_keys = (await validPublicKeys(ctx.db, eventId)).map((k) => ({ signing_key_id: k.kid, signing_key: k.key }));
}

/**
 * Each JSON-LD offer's `availability` as Event Tickets gives it (Tribe__Tickets__JSON_LD__Order): `SoldOut` when
 * the ticket has no stock left, `LimitedAvailability` with 1 to 5 left, `InStock` otherwise (unlimited too). Sales
 * change it, so it is set per request here, not kept with the presented event (a new `json_ld` object: the kept
 * one is shared); the cached single reads depend on the `tickets` tag for it (http/cache-tags.ts).
 */
function offerAvailability(e: Record<string, unknown>, tickets: Stock): void {
  const ld = e.json_ld as Record<string, unknown>;
  if (tickets.length !== (ld.offers as unknown[]).length) return;
  const offers = (ld.offers as Record<string, unknown>[]).map((o, i) => {
    const stock = availableOf(tickets[i].capacity, tickets[i].stats);
    return { ...o, availability: stock === 0 ? 'SoldOut' : stock >= 1 && stock <= 5 ? 'LimitedAvailability' : 'InStock' };
  });
  e.json_ld = { ...ld, offers };
}

/** Whether the presented event's JSON-LD lists offers (offerAvailability sets their availability). */
function hasOffers(e: Record<string, unknown> | undefined): boolean {
  const ld = e?.json_ld as Record<string, unknown> | undefined;
  return !!ld && Array.isArray(ld.offers) && ld.offers.length > 0;
}

/** The events archive's `ticketed=true|false`. */
export function ticketedFilter(input: Record<string, unknown>) {
  if (typeof input.ticketed !== 'boolean') return null;
  return ticketedCondition(input.ticketed);
}

export async function installTickets(state: AppState): Promise<void> {
  const h = hooks(state);
  h.eventDecorators.push(decorateEvents);
  h.eventPrefetch.push(prefetchStock);
  h.eventFilters.push(ticketedFilter);
  await installOrderHolds(state);
}
