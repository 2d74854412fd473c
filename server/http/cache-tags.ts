import type { AppState } from '../kernel/context.ts';
import { recordChange } from '../db/change-feed.ts';

/**
 * Which cached answers a write can change (issue 14 item 2), as data, so it can be checked by reading.
 *
 * Every cached answer (routes marked `publicCache`) depends on everything, unless a write says precisely what it
 * changed: a write through a route listed in `WRITE_TAGS` drops only the cached answers that depend on one of
 * the tags it names; every other write (a route not listed, an event or venue edit, a ticket edit, a write by
 * another process such as the CLI) empties the whole cache, as before. A write that is not listed can never be
 * served stale; forgetting a route costs speed, never correctness.
 *
 * The tags:
 * - `checkins`: check-in and check-out records, attendees' names and e-mails (shown only to managers, never in a
 *   cached answer);
 * - `tickets:<event id>`: one event's ticket availability (sold, pending, stock); `tickets` alone: any event's;
 * - `carts`, `mail`, `security`, `forms`: what those namespaces keep for themselves.
 *
 * Cached answers depend on `READ_TAGS[route id]`, `['content']` when not listed: the public event, venue,
 * organizer and term answers show posts, terms and whether an event has published tickets (`ticketed`), none of
 * which the listed writes change. A route whose cached answer starts to show availability (or check-ins) must
 * list `tickets:<id>` (or `checkins`) here; a tag `x:<id>` is also dropped by a write that names `x`, and a write
 * naming `x:<id>` drops answers that depend on `x` (a list of many events' tickets).
 */
export type Tags = readonly string[];

type Declaration = (input: Record<string, unknown>) => Tags | 'all';

const only =
  (...tags: string[]): Declaration =>
  () =>
    tags;

/** Attendee fields whose change moves availability (the order status); names and e-mails show only to managers. */
function attendeeUpdate(input: Record<string, unknown>): Tags {
  return input.attendee_status !== undefined ? ['checkins', 'tickets'] : ['checkins'];
}

export const WRITE_TAGS: Readonly<Record<string, Declaration>> = {
  // Check-ins and check-outs (a PATCH of check-in fields, or a name or e-mail), one by one or in a batch.
  'attendees.update': attendeeUpdate,
  // A door or box-office attendee takes a place.
  'attendees.create': only('checkins', 'tickets'),
  // A batch's items are dispatched one by one (executeInline), each declaring its own; the batch itself writes nothing.
  'core.batch': only(),
  'cart.update': only('carts'),
  // A checkout holds places (pending) or sells them (completed): availability moves, the public calendar does not.
  'cart.checkout': only('carts', 'tickets'),
  // Paid, cancelled, refunded: availability moves.
  'orders.update': only('tickets'),
  'mail.connect-app': only('mail'),
  'mail.disconnect-site': only('mail'),
  'mail.v1.resend-email': only('mail'),
  'mail.activate-license': only('mail'),
  'security.scan.start': only('security'),
  'security.scan.stop': only('security'),
  'security.scan.issue.update': only('security'),
  'forms.views.submit': only('forms'),
};

export const READ_TAGS: Readonly<Record<string, Tags>> = {
  // A single event's JSON-LD offers show each ticket's availability (InStock, LimitedAvailability, SoldOut).
  'events.read': ['content', 'tickets'],
  'events.readBySlug': ['content', 'tickets'],
};

export const DEFAULT_READ_TAGS: Tags = ['content'];

/** What a write through `routeId` with `input` can change: its declaration, or everything. */
export function writeTags(routeId: string, input: Record<string, unknown>): Tags | 'all' {
  const d = WRITE_TAGS[routeId];
  return d ? d(input) : 'all';
}

/** What a cached answer of `routeId` depends on (besides the writes that change everything). */
export function readTags(routeId: string): Tags {
  return READ_TAGS[routeId] ?? DEFAULT_READ_TAGS;
}

/**
 * Tells the response cache that a write changed what `tags` name ('all': anything), and, with shared state in
 * the database, the other processes (server/db/change-feed.ts: call it inside the write's transaction, so the
 * record commits with the write). Routes that write outside the dispatcher's write path (a GET that checks in,
 * a sweep) call this themselves.
 */
export async function touch(app: AppState, tags: Tags | 'all'): Promise<void> {
  await recordChange(app.db, tags);
  if (tags === 'all') {
    app.contentVersion++;
    return;
  }
  app.services.responseCache?.invalidate(tags);
}
