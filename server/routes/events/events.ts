import { beginningOfDay, endOfDay, formatInZone, parseDateInput } from '../../../shared/dates.ts';
import { eventsRoutes } from '../../../shared/routes/events.ts';
import type { Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok } from '../../kernel/result.ts';
import { queryEvents, type EventQuery } from '../../db/repos/event-query.ts';
import type { EventRow } from '../../db/repos/events.ts';
import { findPostIdBySlug, getPost } from '../../db/repos/posts.ts';
import { localToUtcString } from '../../content/site-time.ts';
import { readsPrivate, statusFilter, visibleStatus } from '../../domain/events/access.ts';
import { archiveLinks, knownQuery, totalHeaders } from './archive.ts';
import { createEvent, eventRow, trashEvent, updateEvent } from '../../domain/events/event-write.ts';
import { eventJson, eventRowsOf, prefetchEvent, presentEvents, pushEventJson, startKeptCheck, startsEarly } from './present-cache.ts';
import { blankProtected } from './present-event.ts';
import { TAXONOMY } from '../../domain/events/taxonomy.ts';
import { withJson } from '../../http/preset-json.ts';
import { resolveTermRefs } from '../../domain/events/refs.ts';
import { getLinkedRows } from '../../db/repos/linked.ts';
import { withDescendants } from '../../db/repos/terms.ts';
import { hooks } from '../../kernel/hooks.ts';

const MAX_PER_PAGE = 50;
/** Radius of the `geoloc_lat`/`geoloc_lng` filter: events whose venue is within 50 km, nearest first. */
const GEOLOC_RADIUS_KM = 50;

const SUPPORTED = [
  'page',
  'per_page',
  'start_date',
  'end_date',
  'search',
  'categories',
  'tags',
  'venue',
  'organizer',
  'featured',
  'status',
  'geoloc',
  'geoloc_lat',
  'geoloc_lng',
  'post_parent',
  'include',
  'starts_before',
  'starts_after',
  'ends_before',
  'ends_after',
  'strict_dates',
  'ticketed',
];

const EVENTS_OPEN = Buffer.from('{"events":[');
const COMMA = Buffer.from(',');

const notFound = (id: number) => new HttpError(404, 'rest-event-not-found', `Event with ID ${id} does not exist.`);

/** Resolves `/events/{id}` for any method: 404 when nothing has that ID, 400 when it is not an event. */
async function loadEvent(ctx: Ctx, id: number): Promise<EventRow> {
  // The common case, an event, is one query (none for a read of a row kept since the last write, present-cache.ts); the
  // post is read on its own only to tell 404 from 400.
  const row = id > 0 ? (await eventRowsOf(ctx, [id]))[0] : undefined;
  if (row?.type === 'event') return row;
  const post = id > 0 ? await getPost(ctx.db, id) : undefined;
  if (!post) throw notFound(id);
  if (post.type !== 'event') throw new HttpError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.');
  return (await eventRow(ctx, id))!;
}

async function slugToId(ctx: Ctx, slug: string): Promise<number> {
  const id = await findPostIdBySlug(ctx.db, 'event', slug);
  if (!id) throw invalidParam('slug');
  return id;
}

/**
 * The by-slug read: WordPress gives a draft or pending post no slug until it is published, so the original's
 * `is_event_slug` finds none for it (400 `rest_invalid_param` for everyone, administrators too); it is read by ID.
 */
async function readSlugToId(ctx: Ctx, slug: string): Promise<number> {
  const id = await slugToId(ctx, slug);
  const status = (await getPost(ctx.db, id))?.status;
  if (status === 'draft' || status === 'pending') throw invalidParam('slug');
  return id;
}

/**
 * A single read. Its statements go together on one connection (Db.together): on PostgreSQL what it can start
 * before its event's row has come back (the row itself and what presenting reads when nothing is kept
 * (prefetchEvent), the tickets' stock (eventPrefetch)) goes in the round trip of its first statement.
 */
async function readOne(ctx: Ctx, id: number, password: string | undefined, context?: string) {
  return await ctx.db.together(() => readOneTogether(ctx, id, password, context));
}

async function readOneTogether(ctx: Ctx, id: number, password: string | undefined, context?: string) {
  if (startsEarly(ctx, id)) {
    prefetchEvent(ctx, id, true);
    for (const f of hooks(ctx.app).eventPrefetch) f(ctx, id);
  }
  const row = await loadEvent(ctx, id);
  // The original answers a trashed event's read with 403 for everyone, administrators too.
  if (row.status === 'trash') throw new HttpError(403, 'event-no-longer-available', 'This event is no longer available');
  if (!visibleStatus(ctx, row.status)) throw new HttpError(403, 'event-not-accessible', 'The requested event is not accessible');
  const bypass = context === 'edit' && can(ctx, 'edit_events');
  if (row.password && !bypass && password !== row.password) {
    throw new HttpError(403, 'event-password-protected', 'The requested event is not accessible without a password');
  }
  const [event] = await presentEvents(ctx, [row], { single: true });
  return ok(withJson(event, eventJson(event)));
}

/** Trashes an event: 404/400 for what is not an event, then the domain's checks and write (trashEvent). */
async function trash(ctx: Ctx, id: number) {
  const row = await loadEvent(ctx, id);
  await trashEvent(ctx, row);
  return ok((await presentEvents(ctx, [(await eventRow(ctx, id))!]))[0]);
}

async function update(ctx: Ctx, id: number, input: Record<string, unknown>) {
  const row = await loadEvent(ctx, id);
  await updateEvent(ctx, row, input);
  return ok((await presentEvents(ctx, [(await eventRow(ctx, id))!]))[0]);
}

/**
 * A calendar date (`2026-11-27`) with no time, in the site's zone, as its start or end of day in UTC: the same for
 * every request (it reads no clock), worked out once (Intl zone arithmetic: ~10 us a bound); at most 512 kept.
 */
const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;
const plainDates = new Map<string, string>();

function utcOf(ctx: Ctx, value: string, param: string, widen?: 'start' | 'end'): string {
  if (!PLAIN_DATE.test(value)) return utcOfInput(ctx, value, param, widen);
  const key = `${ctx.app.config.timezone}\u0000${widen ?? ''}\u0000${value}`;
  let utc = plainDates.get(key);
  if (utc === undefined) {
    utc = utcOfInput(ctx, value, param, widen);
    if (plainDates.size >= 512) plainDates.clear();
    plainDates.set(key, utc);
  }
  return utc;
}

function utcOfInput(ctx: Ctx, value: string, param: string, widen?: 'start' | 'end'): string {
  const tz = ctx.app.config.timezone;
  const d = parseDateInput(value, tz, new Date());
  if (!d) throw invalidParam(param);
  let local = formatInZone(d, tz);
  if (widen === 'start') local = beginningOfDay(local);
  if (widen === 'end') local = endOfDay(local);
  return localToUtcString(local, tz);
}

async function linkedIds(ctx: Ctx, kind: 'venue' | 'organizer', ids: number[] | undefined, param: string): Promise<number[] | undefined> {
  if (!ids) return undefined;
  const rows = await getLinkedRows(ctx.db, kind, ids);
  if (rows.length !== new Set(ids).size) throw invalidParam(param);
  return ids;
}

/** The archive: its statements go together on one connection (Db.together), the count, page and kept check at once. */
const list = implement(eventsRoutes.list, (input, ctx) =>
  ctx.db.together(async () => {
    const given = (k: string) => ctx.req.params[k] !== undefined && ctx.req.params[k] !== null;
    const perPage = Math.min(input.per_page, MAX_PER_PAGE);
    // TEC's filter_post_status_list takes registered post statuses only: `any` is not one (400).
    if (input.status?.some((x) => x.toLowerCase() === 'any')) throw invalidParam('status');
    const q: EventQuery = {
      statuses: statusFilter(ctx, input.status),
      excludeHidden: !readsPrivate(ctx),
      extra: [],
      limit: perPage,
      offset: (input.page - 1) * perPage,
    };
    if (input.include) q.include = input.include;
    else {
      const ranged = ['starts_before', 'starts_after', 'ends_before', 'ends_after'].some(given);
      const strict = input.strict_dates;
      if (given('start_date')) q.startsOnOrAfter = utcOf(ctx, input.start_date!, 'start_date', strict ? undefined : 'start');
      else if (!ranged) q.startsOnOrAfter = utcOf(ctx, 'yesterday 23:59', 'start_date', strict ? undefined : 'start');
      if (given('end_date')) q.endsOnOrBefore = utcOf(ctx, input.end_date!, 'end_date', strict ? undefined : 'end');
      else if (!ranged) q.endsOnOrBefore = utcOf(ctx, '+24 months', 'end_date', strict ? undefined : 'end');
      // As TEC's inclusive dates: all four bounds move to the end of their day (time of day included) unless
      // strict_dates; the comparisons stay strict (before: <, after: >).
      const eod = strict ? undefined : 'end';
      if (input.starts_before) q.startsBefore = utcOf(ctx, input.starts_before, 'starts_before', eod);
      if (input.starts_after) q.startsAfter = utcOf(ctx, input.starts_after, 'starts_after', eod);
      if (input.ends_before) q.endsBefore = utcOf(ctx, input.ends_before, 'ends_before', eod);
      if (input.ends_after) q.endsAfter = utcOf(ctx, input.ends_after, 'ends_after', eod);
    }
    if (input.search) {
      q.search = input.search;
      q.searchSkipsProtected = ctx.caller.kind === 'anonymous';
    }
    q.termIds = [];
    // Categories are hierarchical: an event of a child category (Jazz under Music) is in Music's archive too.
    if (input.categories?.length)
      q.termIds.push(
        await withDescendants(ctx.db, TAXONOMY.categories, await resolveTermRefs(ctx, TAXONOMY.categories, input.categories, 'categories', false)),
      );
    if (input.tags?.length) q.termIds.push(await resolveTermRefs(ctx, TAXONOMY.tags, input.tags, 'tags', false));
    q.venueIds = await linkedIds(ctx, 'venue', input.venue, 'venue');
    q.organizerIds = await linkedIds(ctx, 'organizer', input.organizer, 'organizer');
    if (input.featured !== undefined) q.featured = input.featured;
    if (input.post_parent !== undefined) {
      if ((await getPost(ctx.db, input.post_parent))?.type !== 'event') throw invalidParam('post_parent');
      q.postParent = input.post_parent;
    }
    if (input.geoloc !== undefined) q.geoloc = input.geoloc;
    // One coordinate alone filters nothing (the original reads them only as a pair, with geoloc).
    if (input.geoloc_lat !== undefined && input.geoloc_lng !== undefined)
      q.near = { lat: input.geoloc_lat, lng: input.geoloc_lng, radiusKm: GEOLOC_RADIUS_KM };
    for (const f of hooks(ctx.app).eventFilters) {
      const c = await f(input, ctx);
      if (c) q.extra.push(c);
    }
    startKeptCheck(ctx);
    const { ids, total } = await queryEvents(ctx.db, q);
    if (input.page > 1 && ids.length === 0)
      throw new HttpError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');
    const rows = await eventRowsOf(ctx, ids);
    const events = await presentEvents(ctx, rows);
    // As in the original, administrators too see a protected event blanked unless the archive is sent its password.
    rows.forEach((r, i) => {
      if (r.password && input.password !== r.password) blankProtected(events[i]);
    });
    const totalPages = Math.ceil(total / perPage);
    const links = archiveLinks(ctx.urls.rest('/evt/events/v1/events/'), knownQuery(ctx.req.params, SUPPORTED), input.page, totalPages);
    const body = { events, ...links, total, total_pages: totalPages };
    // The UTF-8 JSON assembled from the events' kept JSON (present-cache.ts), the rest serialised as JSON.stringify(body)
    // would: no event is serialised again, and the page is not re-encoded.
    const parts: Buffer[] = [EVENTS_OPEN];
    events.forEach((e, i) => {
      if (i) parts.push(COMMA);
      pushEventJson(e, parts);
    });
    parts.push(Buffer.from(`],${JSON.stringify({ ...links, total, total_pages: totalPages }).slice(1)}`));
    return ok(withJson(body, Buffer.concat(parts)), totalHeaders(total, totalPages));
  }),
);

/** The slug in the URL of a by-slug route (a body `slug` is the new slug, not the address). */
export function pathSlug(ctx: Ctx): string {
  const seg = ctx.req.route.split('/by-slug/')[1] ?? '';
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

export const eventEndpoints: Endpoint[] = [
  list,
  implement(eventsRoutes.read, (input, ctx) => readOne(ctx, input.id, input.password, input.context)),
  implement(eventsRoutes.delete, (input, ctx) => trash(ctx, input.id)),
  implement(eventsRoutes.update, (input, ctx) => update(ctx, input.id, input)),
  implement(eventsRoutes.create, async (input, ctx) => {
    const id = await createEvent(ctx, input);
    return created((await presentEvents(ctx, [(await eventRow(ctx, id))!]))[0]);
  }),
  implement(eventsRoutes.readBySlug, async (input, ctx) => readOne(ctx, await readSlugToId(ctx, pathSlug(ctx)), input.password)),
  implement(eventsRoutes.deleteBySlug, async (_input, ctx) => trash(ctx, await slugToId(ctx, pathSlug(ctx)))),
  implement(eventsRoutes.updateBySlug, async (input, ctx) => {
    const current = pathSlug(ctx);
    const id = await slugToId(ctx, current);
    return await update(ctx, id, input.slug === current ? { ...input, slug: undefined } : input);
  }),
];
