import { dateDetails, parseDateInput } from '../../../shared/dates.ts';
import { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { apiKeyLabel } from '../../db/repos/api-keys.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { appLimiter, nowMs } from './clock.ts';
import { lockLimitKey } from '../../db/repos/locks.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok } from '../../kernel/result.ts';
import { callerUserId } from '../../kernel/context.ts';
import { getAttendeeRow } from '../../db/repos/attendees.ts';
import { getPostType } from '../../db/repos/posts.ts';
import {
  CHECKIN_RESULTS,
  checkinLogCursor,
  findCheckinByNonceLocked,
  insertCheckin,
  queryCheckins,
  type CheckinRow,
} from '../../db/repos/checkins.ts';
import { archiveLinks, knownQuery } from '../events/archive.ts';
import { keyListScope } from '../../domain/checkin/lists.ts';
import { assertMayWriteAttendeesOf, keyEventScope, organizerScope, scanTime } from './attendee-access.ts';
import { utcToLocal } from './attendee-present.ts';
import { etTotalHeaders, invalidPage } from './paging.ts';

const SUPPORTED = Object.keys(ticketsRoutes.listCheckins.args).filter((k) => k !== 'translation_language');

/** Key labels by key ID, read once per page: a page of 100 scans comes from a handful of doors. */
type KeyLabels = Map<number, string | null>;

async function keyLabel(ctx: Ctx, keyId: number, labels: KeyLabels): Promise<string | null> {
  if (labels.has(keyId)) return labels.get(keyId)!;
  const label = (await apiKeyLabel(ctx.db, keyId)) ?? null;
  labels.set(keyId, label);
  return label;
}

/** One scan of the log. `date` is the scan time in site time, as in `checkin_details`. */
export async function presentCheckin(ctx: Ctx, c: CheckinRow, labels: KeyLabels = new Map()): Promise<Record<string, unknown>> {
  const date = utcToLocal(ctx, c.scanned_at);
  return {
    id: c.id,
    attendee_id: c.attendee_id,
    post_id: c.event_id,
    result: c.result,
    reason: c.reason,
    date,
    date_details: dateDetails(date),
    scanned_at: c.scanned_at,
    received_at: c.received_at,
    device_id: c.device_id,
    nonce: c.nonce,
    source: c.source,
    author: String(c.user_id),
    api_key_id: c.api_key_id,
    // Additive, last: the label of the door key that scanned (`Door 2`), so a kiosk can name the other door.
    device_label: c.api_key_id === null ? null : await keyLabel(ctx, c.api_key_id, labels),
  };
}

function isoBound(value: string, param: string): string {
  const d = parseDateInput(value, 'UTC', new Date());
  if (!d) throw invalidParam(param);
  return d.toISOString();
}

/** `GET /checkins`: the check-in log (CONTRACT section 7), paged like the attendee list. */
const list = implement(ticketsRoutes.listCheckins, async (input, ctx) => {
  const results = input.result?.map((r) => r.toLowerCase());
  if (results?.some((r) => !(CHECKIN_RESULTS as readonly string[]).includes(r))) throw invalidParam('result');
  const scope = keyEventScope(ctx);
  let eventIds = input.post_id !== undefined ? [input.post_id] : undefined;
  if (scope !== null) eventIds = eventIds ? eventIds.filter((e) => e === scope) : [scope];
  const perPage = input.per_page;
  // `after_id`: a reader of the log (a kiosk on a list) asks only for what arrived since its last read, oldest
  // first; the cursor is read before the page (checkinLogCursor).
  const cursor = input.after_id === undefined ? null : await checkinLogCursor(ctx.db, nowMs(ctx));
  const { rows, total } = await queryCheckins(ctx.db, {
    eventIds,
    // An organizer reads the check-ins of its own events only (CONTRACT section 3).
    eventAuthor: organizerScope(ctx) ?? undefined,
    attendeeId: input.attendee_id,
    // A key bound to a check-in list reads the scans through its list only (CONTRACT section 8).
    listId: keyListScope(ctx) ?? undefined,
    deviceId: input.device_id,
    results,
    after: input.after ? isoBound(input.after, 'after') : undefined,
    before: input.before ? isoBound(input.before, 'before') : undefined,
    afterId: input.after_id,
    order: input.after_id === undefined ? input.order : 'ASC',
    limit: perPage,
    offset: (input.page - 1) * perPage,
  });
  const totalPages = Math.ceil(total / perPage);
  if (input.page > 1 && input.page > totalPages) throw invalidPage();
  const { rest_url } = archiveLinks(ctx.urls.rest('/evt/tickets/v1/checkins/'), knownQuery(ctx.req.params, SUPPORTED), 1, 1);
  const labels: KeyLabels = new Map();
  const checkins = [];
  for (const c of rows) checkins.push(await presentCheckin(ctx, c, labels));
  const headers = cursor === null ? etTotalHeaders(total, totalPages) : { ...etTotalHeaders(total, totalPages), 'X-EVT-Cursor': String(cursor) };
  return ok({ rest_url, total, total_pages: totalPages, checkins }, headers);
});

/**
 * `POST /checkins`: a scan the door refused on its own (a code that is no ticket of this event, a ticket
 * already admitted, decided offline) goes into the log as any scan does (CONTRACT section 7), through the
 * kiosk's batch like its check-ins. No attendee changes. The nonce makes it safe to send again: a nonce seen
 * before answers with its first record. A key bound to an event records for that event.
 */
/**
 * Refused scans one caller (a door key, a signed-in user) may record in a sliding hour: far above what a door
 * refuses (the kiosk counts a code held in view once) and what an offline door brings back, far below a flood.
 */
export const MAX_REFUSALS_PER_HOUR = 2_000;

const record = implement(ticketsRoutes.recordScan, async (input, ctx) => {
  // Under the nonce's lock (db/repos/locks.ts): the same refusal sent twice at once is recorded once.
  const seen = await findCheckinByNonceLocked(ctx.db, input.nonce);
  if (seen) return created(await presentCheckin(ctx, seen));
  const scope = keyEventScope(ctx);
  if (scope !== null && input.post_id !== undefined && input.post_id !== scope) throw invalidParam('post_id');
  const eventId = scope ?? input.post_id;
  if (eventId === undefined) throw invalidParam('post_id', 'post_id is required.');
  if ((await getPostType(ctx.db, eventId)) !== 'event') throw invalidParam('post_id');
  await assertMayWriteAttendeesOf(ctx, eventId);
  // Past its share, a caller's refusals wait (429, Retry-After; a kiosk keeps them queued and sends them later):
  // a door key cannot grow the log without bound.
  const limiter = appLimiter(ctx.app, 'refusalLimiter', { max: MAX_REFUSALS_PER_HOUR, windowMs: 3_600_000 });
  const limitKeys = [ctx.caller.kind === 'api_key' ? `key:${ctx.caller.keyId}` : `user:${callerUserId(ctx)}`];
  // The count and its record share this transaction; the key's lock (db/repos/locks.ts) keeps two processes from
  // both taking the last place of the share.
  await lockLimitKey(ctx.db, 'refusals', limitKeys[0] as string);
  const wait = await limiter.retryAfter(limitKeys);
  if (wait > 0) {
    const e = new HttpError(429, 'rest_too_many_requests', `Too many refused scans recorded. Try again in ${wait} seconds.`);
    e.answerHeaders = { 'Retry-After': String(wait) };
    throw e;
  }
  // The attendee is kept only when the code names one of this event's: another event's ID stays out of the log.
  const attendee = input.attendee_id === undefined ? undefined : await getAttendeeRow(ctx.db, input.attendee_id);
  const now = new Date().toISOString();
  const row: Omit<CheckinRow, 'id'> = {
    attendee_id: attendee && attendee.event_id === eventId ? attendee.id : null,
    event_id: eventId,
    result: input.result,
    reason: input.reason,
    scanned_at: (scanTime(input.check_in_date) ?? new Date(now)).toISOString(),
    received_at: now,
    device_id: input.device_id ?? null,
    nonce: input.nonce,
    source: 'site',
    user_id: callerUserId(ctx),
    api_key_id: ctx.caller.kind === 'api_key' ? ctx.caller.keyId : null,
    list_id: keyListScope(ctx),
  };
  const id = await insertCheckin(ctx.db, row);
  await limiter.record(limitKeys);
  return created(await presentCheckin(ctx, { id, ...row }));
});

export const checkinLogEndpoints: Endpoint[] = [list, record];
