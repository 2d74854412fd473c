import { ORDER_STATUSES } from '../../../shared/models/tickets.ts';
import { attendeeListArgs, ticketsRoutes } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import type { Input } from '../../../shared/http/route.ts';
import { queryAttendees, readAttendeePage, type AttendeeQuery } from '../../db/repos/attendee-query.ts';
import { attendeeCursor, getAttendeeRows, getDoorRows, type AttendeeRow } from '../../db/repos/attendees.ts';
import { nowUtc } from '../../db/clock.ts';
import { nowMs } from './clock.ts';
import { sweepHolds, sweepIfLapsed } from './order-hold.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { getPostType } from '../../db/repos/posts.ts';
import { ALL_STATUSES, WRITABLE_STATUSES } from '../../domain/events/access.ts';
import { archiveLinks, knownQuery } from '../events/archive.ts';
import {
  attendeeNotFound,
  keyEventScope,
  loadReadableAttendee,
  organizerScope,
  PUBLIC_ORDER_STATUSES,
  readsAttendeesOf,
  utcFilter,
} from './attendee-access.ts';
import {
  managesAttendees,
  presentAttendee,
  presentAttendees,
  presentDoorAttendees,
  presentSnapshotAttendees,
  presentSnapshotRows,
} from './attendee-present.ts';
import { createAttendee } from './attendee-create.ts';
import { keyListTicketIds } from '../../domain/checkin/lists.ts';
import { etTotalHeaders, invalidPage } from './paging.ts';

const SUPPORTED = Object.keys(attendeeListArgs).filter((k) => k !== 'translation_language');
// Order statuses, plus the RSVP answers that stand in for them (EFFECTIVE_ORDER_STATUS).
const ORDER_STATUS_VALUES: readonly string[] = [...ORDER_STATUSES, 'yes', 'no'];

/** A post-status list filter: `any` expands to every status but trash; unknown statuses are invalid. */
function statusList(given: string[], param: string): string[] {
  const out = new Set<string>();
  for (const s of given.map((x) => x.toLowerCase())) {
    if (s === 'any') WRITABLE_STATUSES.forEach((w) => out.add(w));
    else if ((ALL_STATUSES as readonly string[]).includes(s)) out.add(s);
    else throw invalidParam(param);
  }
  return [...out];
}

function orderStatusList(given: string[]): string[] | null {
  const out = new Set<string>();
  for (const s of given.map((x) => x.toLowerCase())) {
    if (s === 'any') return null;
    // `public` also keeps RSVP attendees who are going (their status is the going status, see rsvpStatusAsOrderStatus).
    if (s === 'public') [...PUBLIC_ORDER_STATUSES, 'yes'].forEach((p) => out.add(p));
    else if (ORDER_STATUS_VALUES.includes(s)) out.add(s);
    else throw invalidParam('order_status');
  }
  return [...out];
}

/** Combines a single-ID filter with its list form (`post_id` with `include_post`): both must hold. */
function both(one: number | undefined, many: number[] | undefined): number[] | undefined {
  if (one === undefined) return many;
  if (!many) return [one];
  return many.includes(one) ? [one] : [];
}

type ListInput = Input<typeof attendeeListArgs>;

/**
 * A list request with no filter sent (every argument's default), which the door snapshot narrows to its event:
 * with no status filter sent, a manager's `changed_since` query keeps every status, trash included.
 */
const attendeeListDefaults: ListInput = {
  page: 1,
  per_page: 100,
  order: 'ASC',
  orderby: 'id',
  post_status: ['publish'],
  status: ['publish'],
  order_status: ['public'],
} as ListInput;

/**
 * The original's attendee list order: by name (`title`) when no `orderby` is sent, in `order` (ASC by default);
 * an explicit `orderby` sorts DESC unless `order` is sent (WordPress's default); `slug` sorts by name, as
 * `title` (an attendee's slug is made from its name). A delta (`changed_since`) is always in ID order.
 */
function listOrder(ctx: Ctx, orderby: AttendeeQuery['orderby'], order: AttendeeQuery['order']): Pick<AttendeeQuery, 'orderby' | 'order'> {
  if (ctx.req.params.orderby === undefined) return { orderby: 'title', order };
  const dir = ctx.req.params.order === undefined ? 'DESC' : order;
  return { orderby: orderby === 'slug' ? 'title' : orderby, order: dir };
}

/** Whether the request sent a parameter (the status filters' defaults differ by caller when none is sent). */
const sentParams = (ctx: Ctx) => (k: string) => ctx.req.params[k] !== undefined && ctx.req.params[k] !== null;

/** As the original's validators: `post_id` must be a post and `ticket_id` a ticket (400, `post_id` first). */
async function checkIds(ctx: Ctx, input: Pick<ListInput, 'post_id' | 'ticket_id'>): Promise<void> {
  const [post, ticket] = await Promise.all([
    input.post_id === undefined ? undefined : getPostType(ctx.db, input.post_id),
    input.ticket_id === undefined ? undefined : getPostType(ctx.db, input.ticket_id),
  ]);
  if (input.post_id !== undefined && !post) throw invalidParam('post_id');
  if (input.ticket_id !== undefined && ticket !== 'ticket') throw invalidParam('ticket_id');
}

/**
 * The query of a list request (buildQuery) and its page (`read`), started beside the check of its IDs (checkIds):
 * inside Db.together on PostgreSQL the check goes in the round trip of the page's change-log read, a page one round
 * trip fewer. The check decides what is answered: its 400 comes first, before any other parameter's, and a page
 * of IDs that fail it is read and dropped (it is of nothing, or of what the query's rights allow anyway).
 */
async function checkedPage<T>(
  ctx: Ctx,
  input: Pick<ListInput, 'post_id' | 'ticket_id'>,
  build: () => Promise<AttendeeQuery>,
  read: (q: AttendeeQuery) => Promise<T>,
): Promise<T> {
  const checked = checkIds(ctx, input);
  checked.catch(() => {});
  let q: AttendeeQuery;
  try {
    q = await build();
  } catch (e) {
    await checked;
    throw e;
  }
  const page = read(q);
  page.catch(() => {});
  await checked;
  return await page;
}

/** Turns the request into a query, applying the caller's visibility (CONTRACT section 7, reference 4.4); its IDs are checkIds's to check. */
async function buildQuery(ctx: Ctx, input: ListInput, perPage: number, sent = sentParams(ctx)): Promise<AttendeeQuery> {
  const given = sent;
  const manager = managesAttendees(ctx);
  const delta = input.changed_since !== undefined;
  const q: AttendeeQuery = {
    statuses: ['publish'],
    eventStatuses: ['publish'],
    orderStatuses: [...PUBLIC_ORDER_STATUSES],
    publicOnly: !manager,
    ...(delta ? { orderby: 'id' as const, order: 'ASC' as const } : listOrder(ctx, input.orderby, input.order)),
    limit: perPage,
    offset: (input.offset ?? 0) + (input.page - 1) * perPage,
  };
  const statuses = given('status') ? statusList(input.status, 'status') : null;
  const eventStatuses = given('post_status') ? statusList(input.post_status, 'post_status') : null;
  const orderStatuses = given('order_status') ? orderStatusList(input.order_status) : null;
  if (manager) {
    // Managers default to `any`; a delta also carries trashed attendees so caches drop them.
    q.statuses = statuses ?? (delta ? null : [...WRITABLE_STATUSES]);
    if (delta && q.statuses) q.statuses.push('trash');
    q.eventStatuses = eventStatuses;
    q.orderStatuses = given('order_status') ? orderStatuses : null;
    q.rsvpStatusAsOrderStatus = given('order_status');
  }
  let events = both(input.post_id, input.include_post);
  const scope = keyEventScope(ctx);
  if (scope !== null) events = events ? events.filter((e) => e === scope) : [scope];
  // An organizer reads the attendees of its own events only (CONTRACT section 3).
  const author = organizerScope(ctx);
  if (author !== null) q.eventAuthor = author;
  if (events) {
    if (events.length === 0) q.empty = true;
    else q.eventIds = events;
  }
  if (input.exclude_post) q.excludeEventIds = input.exclude_post;
  const tickets = both(input.ticket_id, input.include_ticket);
  if (tickets) {
    if (tickets.length === 0) q.empty = true;
    else q.ticketIds = tickets;
  }
  // A key bound to a check-in list downloads the attendees whose ticket the list admits (CONTRACT section 8).
  const admitted = await keyListTicketIds(ctx);
  if (admitted) {
    q.ticketIds = q.ticketIds ? q.ticketIds.filter((t) => admitted.includes(t)) : admitted;
    if (q.ticketIds.length === 0) q.empty = true;
  }
  if (input.exclude_ticket) q.excludeTicketIds = input.exclude_ticket;
  if (input.include) q.include = input.include;
  if (input.exclude) q.exclude = input.exclude;
  if (input.provider?.length) q.providers = input.provider.map((p) => p.toLowerCase());
  if (input.search) q.search = input.search;
  if (input.name) q.name = input.name;
  // Filtering by e-mail would let the public probe who is coming: managers only.
  if (input.email && manager) q.email = input.email;
  if (input.after) q.createdAfter = utcFilter(input.after, 'after');
  if (input.before) q.createdBefore = utcFilter(input.before, 'before');
  if (input.price_min !== undefined) q.priceMin = input.price_min * 100;
  if (input.price_max !== undefined) q.priceMax = input.price_max * 100;
  if (input.checkedin !== undefined) q.checkedIn = input.checkedin;
  if (input.rsvp_going_status?.length) {
    const going = input.rsvp_going_status.map((s) => s.toLowerCase());
    if (going.some((s) => s !== 'yes' && s !== 'no')) throw invalidParam('rsvp_going_status');
    q.rsvpGoing = going;
  }
  // No ticket collects extra attendee information (that needs the extended add-on).
  if (input.attendee_information_available === true) q.empty = true;
  // Every attendee has a change number above 0: `changed_since=0` is a full pass (trashed included, so
  // nothing shifts between pages), read through the ID-ordered index rather than sorted.
  if (delta && input.changed_since! > 0) q.changedSince = input.changed_since;
  return q;
}

/**
 * The page, its total and the change cursor, from one snapshot: a change committed after the cursor was read
 * cannot be in this page without also being after the cursor. SQLite: one read transaction, after the lapsed-hold
 * sweep. PostgreSQL: one statement that also tells whether a hold has lapsed (then the sweep, and the page again),
 * so a page is one round trip besides the memo's change-log read.
 */
async function readPage(
  ctx: Ctx,
  q: AttendeeQuery,
  rowsOf: (db: Ctx['db'], ids: readonly number[]) => Promise<AttendeeRow[]> = getAttendeeRows,
): Promise<{ rows: AttendeeRow[]; total: number; cursor: number; idCount: number; lastId: number | null }> {
  if (ctx.db.engine === 'postgres') {
    const now = () => nowUtc(new Date(nowMs(ctx)));
    const page = await readAttendeePage(ctx.db, q, now());
    if (!page.lapsed) return page;
    await sweepHolds(ctx.app);
    return await readAttendeePage(ctx.db, q, now());
  }
  return await inTransaction(ctx.db, async () => {
    const cursor = await attendeeCursor(ctx.db);
    const { ids, total } = await queryAttendees(ctx.db, q);
    return { rows: await rowsOf(ctx.db, ids), total, cursor, idCount: ids.length, lastId: ids.at(-1) ?? null };
  });
}

const list = implement(ticketsRoutes.listAttendees, (input, ctx) =>
  ctx.db.together(async () => {
    if (ctx.db.engine !== 'postgres') await sweepIfLapsed(ctx);
    const perPage = input.per_page;
    const { rows, total, cursor } = await checkedPage(
      ctx,
      input,
      () => buildQuery(ctx, input, perPage),
      (q) => readPage(ctx, q),
    );
    const shown = Math.max(0, total - (input.offset ?? 0));
    const totalPages = Math.ceil(shown / perPage);
    if (input.page > 1 && input.page > totalPages) throw invalidPage();
    // A door device's download asks for the door's fields only; anyone else gets the full object.
    const attendees = input.door && managesAttendees(ctx) ? presentDoorAttendees(ctx, rows) : presentAttendees(ctx, rows);
    const { rest_url } = archiveLinks(ctx.urls.rest('/evt/tickets/v1/attendees/'), knownQuery(ctx.req.params, SUPPORTED), 1, 1);
    return ok(
      { rest_url, total: shown, total_pages: totalPages, attendees },
      { ...etTotalHeaders(shown, totalPages), 'X-EVT-Cursor': String(cursor) },
    );
  }),
);

const read = implement(ticketsRoutes.readAttendee, async (input, ctx) => {
  await sweepIfLapsed(ctx);
  const row = await loadReadableAttendee(ctx, input.id);
  // A key bound to a check-in list reads the attendees its list admits, as it downloads them (CONTRACT section 8).
  const admitted = await keyListTicketIds(ctx);
  if (admitted && !admitted.includes(row.ticket_id)) throw attendeeNotFound();
  return ok(presentAttendee(ctx, row, managesAttendees(ctx) && (await readsAttendeesOf(ctx, row.event_id))));
});

/**
 * A door device's first download in slices of up to DOOR_SNAPSHOT_LIMIT attendees (Doorstep's own route): the
 * list's `changed_since=0&door=1` query, built by the same code and so under the same access rules (a key's
 * event, a list-bound key's tickets, an organizer's events), paged by attendee ID instead of by page. At 100
 * attendees a page, the per-request work on both ends was most of a 100,000-attendee download (issue 22).
 * Attendees added meanwhile come in a later slice (IDs only grow) or, like any change after the first slice's
 * cursor, in the next delta; trashed attendees are sent as such, so a slice boundary never shifts.
 */
const doorSnapshot = implement(ticketsRoutes.doorSnapshot, (input, ctx) =>
  ctx.db.together(async () => {
    if (ctx.db.engine !== 'postgres') await sweepIfLapsed(ctx);
    const listInput = { ...attendeeListDefaults, post_id: input.post_id, changed_since: 0, page: 1, per_page: input.limit };
    const { rows, total, cursor, idCount, lastId } = await checkedPage(
      ctx,
      listInput,
      async () => {
        const q = await buildQuery(ctx, listInput, input.limit, () => false);
        q.afterId = input.after_id;
        return q;
      },
      // Only the door's presenters read these rows: on SQLite, their columns only (getDoorRows).
      (q) => readPage(ctx, q, getDoorRows),
    );
    // A full slice may have more after it; a short one is the last. The next slice starts after the last ID the
    // query gave, even when that attendee's row was left out (its ticket or event gone).
    const next = idCount === input.limit && lastId !== null ? lastId : null;
    const body =
      input.form === 'rows'
        ? { total, next_after_id: next, ...presentSnapshotRows(ctx, rows) }
        : { total, next_after_id: next, attendees: presentSnapshotAttendees(ctx, rows) };
    return {
      // The next slice's `after_id` in a header too: a kiosk asks for that slice as soon as this answer's headers
      // arrive, before it has read and written this one, so the server is not idle meanwhile.
      ...ok(body, { 'X-EVT-Cursor': String(cursor), ...(next === null ? {} : { 'X-EVT-Next-After-Id': String(next) }) }),
      quickCompress: true,
    };
  }),
);

export const attendeeEndpoints: Endpoint[] = [list, read, doorSnapshot, implement(ticketsRoutes.createAttendee, createAttendee)];
