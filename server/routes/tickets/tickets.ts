import { lockTickets } from '../../db/repos/locks.ts';
import { parseDateInput } from '../../../shared/dates.ts';
import { ticketListArgs, ticketsRoutes, TICKETS_NS } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok, type Result } from '../../kernel/result.ts';
import { nowDates, utcString } from '../../content/site-time.ts';
import { getPost, getPostType } from '../../db/repos/posts.ts';
import { queryTickets, type TicketQuery } from '../../db/repos/ticket-query.ts';
import { createTicket, EMPTY_STATS, getTicketRow, getTicketRows, ticketStats, updateTicketCols, type TicketRow } from '../../db/repos/tickets.ts';
import { removeTicketFromCarts } from '../../db/repos/carts.ts';
import { readsPrivate } from '../../domain/events/access.ts';
import { knownQuery } from '../events/archive.ts';
import { presentTickets } from './ticket-present.ts';
import { managesAttendees } from './attendee-present.ts';
import { inKeyScope, keyEventScope } from './attendee-access.ts';
import { invalidNonce, providerOf, requireEditorNonce, ticketColsFrom, ticketPostFields, touchTicket } from './ticket-write.ts';
import { nowMs } from './clock.ts';
import { etTotalHeaders, invalidPage } from './paging.ts';

const notFound = () => new HttpError(404, 'ticket-not-found', 'ticket-not-found');
const notAccessible = () => new HttpError(401, 'ticket-not-accessible', 'ticket-not-accessible');
const LIVE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'];

/**
 * `Tickets_Handler::is_ticket_readable`: 404 for no post, 401 `ticket-not-accessible` for a post that is no
 * ticket (an event, a venue...) as in the original, and when the ticket or its post is not public and the caller
 * cannot read private content. A trashed ticket is gone. The original answers an attendee's ID with 500
 * `ticket-object-not-found`; bad input never gets a 5xx here, so it is 400 with the original code (declared:
 * ERR-ticket-object). A key bound to an event sees only that event's tickets (CONTRACT section 3): another
 * event's ticket is hidden as a missing one.
 */
export async function readableTicket(ctx: Ctx, id: number): Promise<TicketRow> {
  // The ticket join reads the post too; only a miss needs the post alone, to tell "none" from "no ticket".
  const row = await getTicketRow(ctx.db, id);
  if (!row) {
    const type = await getPostType(ctx.db, id);
    if (!type) throw notFound();
    if (type === 'attendee') throw new HttpError(400, 'ticket-object-not-found', 'The requested ticket object could not be built or found');
    throw notAccessible();
  }
  if (row.status === 'trash' || !inKeyScope(ctx, row.event_id)) throw notFound();
  const parent = await getPost(ctx.db, row.event_id);
  if (!readsPrivate(ctx) && (row.status !== 'publish' || !parent || parent.status !== 'publish')) throw notAccessible();
  return row;
}

/** Whether the caller's `_fields` keeps the embedded attendee lists (computing them is the costly part). */
function wantsAttendees(ctx: Ctx, listKey?: string): boolean {
  const f = ctx.req.query._fields ?? ctx.req.params._fields;
  if (f === undefined) return true;
  const fields = (Array.isArray(f) ? f : [f]).flatMap((x) => String(x).split(',')).map((s) => s.trim());
  return fields.some((x) => x.includes('attendees') || (listKey !== undefined && x === listKey));
}

async function single(ctx: Ctx, row: TicketRow, status = 200): Promise<Result> {
  const answer = status === 202;
  const [body] = await presentTickets(ctx, [row], { editor: !answer, editorAnswer: answer, skipAttendees: !wantsAttendees(ctx) });
  return { status, body };
}

const read = implement(ticketsRoutes.readTicket, async (input, ctx) => single(ctx, await readableTicket(ctx, input.id)));

function utcParam(ctx: Ctx, value: string | undefined, param: string): string | undefined {
  if (value === undefined) return undefined;
  const d = parseDateInput(value, 'UTC', new Date(nowMs(ctx)));
  if (!d) throw invalidParam(param);
  return utcString(d);
}

/** The `status`/`post_status` filters: managers default to every live status; the public sees `publish` only. */
function statuses(ctx: Ctx, given: string[], param: string): string[] {
  const explicit = ctx.req.params[param] !== undefined;
  const manager = readsPrivate(ctx);
  if (!explicit) return manager ? LIVE_STATUSES : ['publish'];
  const out = new Set<string>();
  for (const s of given.map((x) => x.toLowerCase())) {
    if (s === 'any') LIVE_STATUSES.forEach((x) => out.add(x));
    else if ([...LIVE_STATUSES, 'trash'].includes(s)) out.add(s);
    else throw invalidParam(param);
  }
  // As the original: statuses the caller may not read are dropped, which can leave nothing to find.
  return manager ? [...out] : [...out].filter((s) => s === 'publish');
}

/** `include_post` narrowed to a bound key's event, as the attendee list narrows `post_id` (CONTRACT section 3). */
function scopedPosts(ctx: Ctx, given: number[] | undefined): number[] | undefined {
  const scope = keyEventScope(ctx);
  if (scope === null) return given;
  return given ? given.filter((e) => e === scope) : [scope];
}

/**
 * The original's ticket list order: by ID, oldest first, when no `orderby` is sent (an `order` alone changes
 * nothing); an explicit `orderby` sorts newest first unless `order` says otherwise (WordPress's default
 * direction), `title` by title and every other value (`id`, `slug`, `include` without `include`) by ID;
 * `orderby=include` with an `include` list keeps the list's order.
 */
function listOrder(
  ctx: Ctx,
  orderby: TicketQuery['orderby'],
  order: TicketQuery['order'],
  include: number[] | undefined,
): Pick<TicketQuery, 'orderby' | 'order'> {
  if (ctx.req.params.orderby === undefined) return { orderby: 'id', order: 'ASC' };
  if (orderby === 'include' && include?.length) return { orderby, order: 'ASC' };
  const dir = ctx.req.params.order === undefined ? 'DESC' : order;
  return { orderby: orderby === 'slug' ? 'id' : orderby, order: dir };
}

const list = implement(ticketsRoutes.listTickets, async (input, ctx) => {
  // As the original (`is_post_id_list`): every `include_post` ID must be a post.
  for (const id of input.include_post ?? []) if (!(await getPostType(ctx.db, id))) throw invalidParam('include_post');
  const manager = managesAttendees(ctx);
  const perPage = input.per_page;
  const skip = input.offset ?? 0;
  const q: TicketQuery = {
    statuses: statuses(ctx, input.status, 'status').filter((s) => s !== 'trash'),
    postStatuses: statuses(ctx, input.post_status, 'post_status'),
    search: input.search || undefined,
    include: input.include,
    exclude: input.exclude,
    includePost: scopedPosts(ctx, input.include_post),
    excludePost: input.exclude_post,
    providers: input.provider,
    after: utcParam(ctx, input.after, 'after'),
    before: utcParam(ctx, input.before, 'before'),
    availableFrom: utcParam(ctx, input.available_from, 'available_from'),
    availableUntil: utcParam(ctx, input.available_until, 'available_until'),
    currencies: input.currency,
    isAvailable: input.is_available,
    ...listOrder(ctx, input.orderby, input.order, input.include),
    limit: perPage,
    offset: skip + (input.page - 1) * perPage,
  };
  if (manager) {
    Object.assign(q, {
      attendeesMin: input.attendees_min,
      attendeesMax: input.attendees_max,
      checkedinMin: input.checkedin_min,
      checkedinMax: input.checkedin_max,
      capacityMin: input.capacity_min,
      capacityMax: input.capacity_max,
    });
  }
  // `attendee_information_available` needs ET+; without it the original ignores the filter, and so do we.
  const none = q.statuses.length === 0 || q.postStatuses?.length === 0 || q.includePost?.length === 0;
  const { ids, matches } = none ? { ids: [], matches: 0 } : await queryTickets(ctx.db, q);
  // The original's offset shrinks the total: 5 tickets with offset=1 report total 4.
  const total = Math.max(0, matches - skip);
  const totalPages = Math.ceil(total / perPage);
  if (input.page > 1 && input.page > totalPages) throw invalidPage();
  // `door`: a door device keeps ticket IDs and titles; it asks for whole ticket objects (`_fields=tickets`, as a
  // nested `tickets.id` keeps nothing of a list, as in the original) without the costly embedded attendee lists.
  const skipAttendees = input.door === true || !wantsAttendees(ctx, 'tickets');
  const tickets = await presentTickets(ctx, await getTicketRows(ctx.db, ids), { skipAttendees });
  const pairs = knownQuery(ctx.req.params, Object.keys(ticketListArgs));
  const base = ctx.urls.rest(`/${TICKETS_NS}/tickets/`);
  const restUrl = pairs.length ? `${base}?${new URLSearchParams(pairs).toString().replace(/%2C/gi, ',')}` : base;
  return ok({ rest_url: restUrl, total, total_pages: totalPages, tickets }, etTotalHeaders(total, totalPages));
});

const create = implement(ticketsRoutes.createTicket, async (input, ctx) => {
  const postId = input.post_id ?? 0;
  await requireEditorNonce(ctx, postId, input.add_ticket_nonce, 'add_ticket_nonce', postId);
  const provider = providerOf(input.provider);
  if (!provider) throw new HttpError(400, 'bad_request', 'Commerce Module invalid');
  const post = ticketPostFields(ctx, input);
  if (!post.title && !post.title_et) throw new HttpError(406, 'not_acceptable', 'Ticket was not able to be updated');
  const cols = await ticketColsFrom(ctx, input, postId, provider);
  const now = nowDates(ctx.app.config.timezone, new Date(nowMs(ctx)));
  const id = await createTicket(ctx.db, {
    eventId: postId,
    provider,
    name: post.title ?? '',
    description: post.content ?? '',
    author: ctx.caller.kind === 'user' ? ctx.caller.userId : 0,
    date: now.date,
    dateGmt: now.date_gmt,
  });
  await updateTicketCols(ctx.db, id, cols);
  if (post.title_et !== undefined || post.content_et !== undefined)
    await touchTicket(ctx, id, { title_et: post.title_et, content_et: post.content_et });
  return await single(ctx, (await getTicketRow(ctx.db, id))!, 202);
});

/**
 * Update and delete name the ticket's post; a nonce for another post or ticket does not verify. The nonce is
 * checked first, as in the original (an unknown ticket with a bad nonce is 403 `forbidden`): a valid one was
 * made for this caller, this action and this ticket, so only then is the ticket looked up.
 */
async function editable(ctx: Ctx, id: number, postId: number, nonce: string, action: string): Promise<TicketRow> {
  await requireEditorNonce(ctx, postId, nonce, action, id);
  const row = await readableTicket(ctx, id);
  if (row.event_id !== postId) throw invalidNonce();
  return row;
}

const update = implement(ticketsRoutes.updateTicket, async (input, ctx) => {
  const row = await editable(ctx, input.id, input.post_id, input.edit_ticket_nonce, 'edit_ticket_nonce');
  const post = ticketPostFields(ctx, input, row);
  if (post.title !== undefined && !post.title) throw new HttpError(406, 'not_acceptable', 'Ticket was not able to be updated');
  const cols = await ticketColsFrom(ctx, input, row.event_id, row.provider, row);
  if (cols.capacity !== undefined && cols.capacity >= 0) {
    // Capacity cannot drop below the places already sold or reserved: counted under the ticket's lock.
    await lockTickets(ctx.db, [row.id]);
    const s = (await ticketStats(ctx.db, [row.id])).get(row.id) ?? EMPTY_STATS;
    const used = s.sold + s.pending;
    if (cols.capacity < used) throw invalidParam('ticket', `ticket[capacity] cannot be lower than the ${used} places already taken.`);
  }
  await updateTicketCols(ctx.db, row.id, cols);
  await touchTicket(ctx, row.id, post);
  return await single(ctx, (await getTicketRow(ctx.db, row.id))!, 202);
});

const remove = implement(ticketsRoutes.deleteTicket, async (input, ctx) => {
  const row = await editable(ctx, input.id, input.post_id, input.remove_ticket_nonce, 'remove_ticket_nonce');
  // Trashed, not erased: its attendees and orders keep pointing at it.
  await touchTicket(ctx, row.id, { status: 'trash', trashed_from: row.status });
  await removeTicketFromCarts(ctx.db, row.id);
  return { status: 202, body: true };
});

export const ticketEndpoints: Endpoint[] = [read, update, remove, list, create];
