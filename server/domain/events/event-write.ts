import { beginningOfDay, endOfDay, formatInZone, isValidTimezone, parseDateInput, zonedToInstant } from '../../../shared/dates.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import {
  EVENT_COL_DEFAULTS,
  getEventRows,
  insertEventCols,
  setEventOrganizers,
  setEventVenues,
  updateEventCols,
  type EventCols,
  type EventRow,
} from '../../db/repos/events.ts';
import { insertPost, updatePost, type PostWrite } from '../../db/repos/posts.ts';
import { setPostTerms } from '../../db/repos/terms.ts';
import { nowDates, utcString } from '../../content/site-time.ts';
import { isHttpUrl } from '../../content/text.ts';
import { postWriteFields, resolveLinkedInput } from './linked-write.ts';
import { TAXONOMY } from './taxonomy.ts';
import { assertMayAssignAuthor } from './access.ts';
import { assertMayChangeEvent } from '../../security/ownership.ts';
import { resolveTermRefs } from './refs.ts';

export type EventFields = Record<string, unknown>;

function flag(v: unknown): number | undefined {
  return v === undefined ? undefined : v ? 1 : 0;
}

/** Start and end from the write (or the stored event), in the event's time zone; TEC moves an end before the start to the start. */
function schedule(ctx: Ctx, f: EventFields, existing: EventRow | undefined): Partial<EventCols> {
  const tzGiven = f.timezone !== undefined ? String(f.timezone).trim() : undefined;
  if (tzGiven && !isValidTimezone(tzGiven)) throw invalidParam('timezone');
  const tz = tzGiven || (tzGiven === '' ? ctx.app.config.timezone : existing?.timezone || ctx.app.config.timezone);
  const now = new Date();
  let start = existing ? zonedToInstant(existing.start_local, existing.timezone || ctx.app.config.timezone) : undefined;
  let end = existing ? zonedToInstant(existing.end_local, existing.timezone || ctx.app.config.timezone) : undefined;
  if (f.start_date !== undefined) {
    start = parseDateInput(f.start_date as string, tz, now) ?? undefined;
    if (!start) throw invalidParam('start_date');
  }
  if (f.end_date !== undefined) {
    end = parseDateInput(f.end_date as string, tz, now) ?? undefined;
    if (!end) throw invalidParam('end_date');
  }
  if (!start || !end) throw invalidParam(start ? 'end_date' : 'start_date');
  const allDay = f.all_day !== undefined ? Boolean(f.all_day) : existing?.all_day === 1;
  let startLocal = formatInZone(start, tz);
  let endLocal = formatInZone(end, tz);
  if (allDay) {
    startLocal = beginningOfDay(startLocal);
    endLocal = endOfDay(endLocal);
  }
  if (endLocal < startLocal) endLocal = startLocal;
  return {
    timezone: tz,
    all_day: allDay ? 1 : 0,
    start_local: startLocal,
    end_local: endLocal,
    start_utc: utcString(zonedToInstant(startLocal, tz)),
    end_utc: utcString(zonedToInstant(endLocal, tz)),
  };
}

function detailCols(ctx: Ctx, f: EventFields, existing: EventRow | undefined): Partial<EventCols> {
  const cols: Partial<EventCols> = {};
  const touchesSchedule = !existing || ['start_date', 'end_date', 'timezone', 'all_day'].some((k) => f[k] !== undefined);
  if (touchesSchedule) Object.assign(cols, schedule(ctx, f, existing));
  if (f.cost !== undefined) cols.cost = f.cost === null ? '' : Array.isArray(f.cost) ? f.cost.join(', ') : String(f.cost).trim();
  if (f.currency_symbol !== undefined) cols.currency_symbol = String(f.currency_symbol);
  if (f.currency_code !== undefined) cols.currency_code = String(f.currency_code).toUpperCase();
  if (f.currency_position !== undefined)
    cols.currency_position = f.currency_position === 'postfix' || f.currency_position === 'suffix' ? 'postfix' : 'prefix';
  if (f.website !== undefined) {
    const w = String(f.website).trim();
    if (w && !isHttpUrl(w)) throw invalidParam('website');
    cols.website = w;
  }
  cols.show_map = flag(f.show_map);
  cols.show_map_link = flag(f.show_map_link);
  cols.hide_from_listings = flag(f.hide_from_listings);
  cols.featured = flag(f.featured);
  return cols;
}

/** The venues, organizers and terms an event write names, resolved (new ones created) before anything is linked. */
interface Links {
  venues?: number[];
  organizers?: number[];
  categories?: number[];
  tags?: number[];
}

/**
 * Resolves the write's `venue`, `organizer`, `categories` and `tags`. Naming a venue, organizer or term someone
 * else authored only links it (use); an inline object with the name of an existing one reuses it unchanged, so an
 * event write never changes another author's venue or organizer. New ones are the caller's.
 */
async function resolveLinks(ctx: Ctx, f: EventFields): Promise<Links> {
  return {
    venues: f.venue !== undefined ? await resolveLinkedInput(ctx, 'venue', f.venue) : undefined,
    organizers: f.organizer !== undefined ? await resolveLinkedInput(ctx, 'organizer', f.organizer) : undefined,
    categories: f.categories !== undefined ? await resolveTermRefs(ctx, TAXONOMY.categories, f.categories, 'categories', true) : undefined,
    tags: f.tags !== undefined ? await resolveTermRefs(ctx, TAXONOMY.tags, f.tags, 'tags', true) : undefined,
  };
}

async function setLinks(ctx: Ctx, id: number, l: Links): Promise<void> {
  if (l.venues) await setEventVenues(ctx.db, id, l.venues);
  if (l.organizers) await setEventOrganizers(ctx.db, id, l.organizers);
  if (l.categories) await setPostTerms(ctx.db, id, TAXONOMY.categories, l.categories);
  if (l.tags) await setPostTerms(ctx.db, id, TAXONOMY.tags, l.tags);
}

async function postFields(ctx: Ctx, f: EventFields, existing?: EventRow): Promise<PostWrite> {
  const w = await postWriteFields(ctx, 'event', f, 'title', existing);
  if (f.sticky !== undefined) w.menu_order = f.sticky ? -1 : 0;
  if (f.password !== undefined) w.password = String(f.password);
  return w;
}

/**
 * Creates an event with its links and terms (the caller's transaction makes it all or nothing). Parameters are
 * checked first, then the permission (only an administrator creates an event for someone else), then it is written.
 */
export async function createEvent(ctx: Ctx, f: EventFields): Promise<number> {
  const cols = {
    ...EVENT_COL_DEFAULTS,
    ...Object.fromEntries(Object.entries(detailCols(ctx, f, undefined)).filter(([, v]) => v !== undefined)),
  } as EventCols;
  const post = (await postFields(ctx, f)) as PostWrite & { date: string; date_gmt: string };
  const links = await resolveLinks(ctx, f);
  assertMayAssignAuthor(ctx, f.author !== undefined ? post.author : undefined);
  const id = await insertPost(ctx.db, 'event', post);
  await insertEventCols(ctx.db, id, cols);
  await setLinks(ctx, id, links);
  return id;
}

/**
 * Updates an event: parameters first, then the permission (only its author or an administrator changes it, only
 * an administrator gives it to someone else), then the write. A refusal throws, so the transaction keeps nothing.
 */
export async function updateEvent(ctx: Ctx, existing: EventRow, f: EventFields): Promise<void> {
  const post = await postFields(ctx, f, existing);
  const cols = detailCols(ctx, f, existing);
  const links = await resolveLinks(ctx, f);
  await assertMayChangeEvent(ctx, existing.id);
  assertMayAssignAuthor(ctx, post.author);
  await updatePost(ctx.db, existing.id, post);
  await updateEventCols(ctx.db, existing.id, cols);
  await setLinks(ctx, existing.id, links);
}

/**
 * Trashes an event: the permission first (its author or an administrator), then 410 for one already in the
 * trash; the status it leaves is kept as `trashed_from`.
 */
export async function trashEvent(ctx: Ctx, row: EventRow): Promise<void> {
  await assertMayChangeEvent(ctx, row.id);
  if (row.status === 'trash') throw new HttpError(410, 'event-is-in-trash', 'The event is already trashed');
  const now = nowDates(ctx.app.config.timezone);
  await updatePost(ctx.db, row.id, { status: 'trash', trashed_from: row.status, modified: now.date, modified_gmt: now.date_gmt });
}

export async function eventRow(ctx: Ctx, id: number): Promise<EventRow | undefined> {
  return (await getEventRows(ctx.db, [id]))[0];
}
