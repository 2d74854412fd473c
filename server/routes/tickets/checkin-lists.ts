import { checkinListRoutes } from '../../../shared/routes/checkin-lists.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok } from '../../kernel/result.ts';
import { getPostType } from '../../db/repos/posts.ts';
import { assertMayChangeEvent } from '../../security/ownership.ts';
import {
  checkinCandidates,
  deleteCheckinList,
  eventPresence,
  eventTicketIds,
  getCheckinList,
  insertCheckinList,
  listPresence,
  queryCheckinLists,
  revokeKeysOfList,
  updateCheckinList,
  type CheckinListFields,
  type CheckinListRow,
} from '../../db/repos/checkin-lists.ts';
import { removePairingQr } from '../../pairing.ts';
import { currentSigningKey, type SigningKeyRow } from '../../db/repos/signing-keys.ts';
import { ensureSigningKey } from '../../security/ticket-signing.ts';
import { nowMs } from './clock.ts';
import type { CheckinList } from '../../../shared/models/checkin-lists.ts';
import { keyListScope, listTicketIds, presentList } from '../../domain/checkin/lists.ts';
import { archiveLinks, knownQuery } from '../events/archive.ts';
import { keyEventScope, organizerScope, readsAttendeesOf } from './attendee-access.ts';
import { etTotalHeaders, invalidPage } from './paging.ts';

/**
 * Check-in lists (CONTRACT section 8): managers of the event read them (door keys of the event, organizers of
 * their own events, administrators); organizers and administrators write them. A key bound to a list reads that
 * list only. A list outside the caller's reach answers as a missing one (404), so IDs cannot be probed.
 */

const listNotFound = () => new HttpError(404, 'checkin-list-not-found', 'The requested check-in list does not exist.');

/** A list the caller may read: in its key's list or event, and of an event an organizer authored. */
async function loadReadableList(ctx: Ctx, id: number): Promise<CheckinListRow> {
  const list = await getCheckinList(ctx.db, id);
  if (!list) throw listNotFound();
  const boundList = keyListScope(ctx);
  if (boundList !== null && boundList !== list.id) throw listNotFound();
  if (!(await readsAttendeesOf(ctx, list.event_id))) throw listNotFound();
  return list;
}

/** A list the caller may change: readable, and of an event it may change (403 for an organizer of another's event). */
async function loadWritableList(ctx: Ctx, id: number): Promise<CheckinListRow> {
  const list = await loadReadableList(ctx, id);
  await assertMayChangeEvent(ctx, list.event_id);
  return list;
}

interface FieldInput {
  name?: string;
  ticket_ids?: number[];
  allow_reentry?: boolean;
  allow_multiple_entries?: boolean;
  window_start?: string | null;
  window_end?: string | null;
  entries_per_day?: number | null;
}

/**
 * The fields to write: `base` (defaults, or the list as it stands) with what was sent over it. A JSON `null`
 * clears a window end or the entries limit (the parameter parser treats null as not sent, so it is read here).
 * Every parameter is checked before anything is written; all invalid ones are reported together.
 */
async function mergeFields(ctx: Ctx, eventId: number, base: CheckinListFields, input: FieldInput): Promise<CheckinListFields> {
  const sentNull = (k: string) => Object.hasOwn(ctx.req.params, k) && ctx.req.params[k] === null;
  const pick = <K extends 'window_start' | 'window_end' | 'entries_per_day'>(k: K): CheckinListFields[K] =>
    sentNull(k) ? null : input[k] !== undefined ? (input[k] as CheckinListFields[K]) : base[k];
  const out: CheckinListFields = {
    event_id: eventId,
    name: input.name !== undefined ? input.name.trim() : base.name,
    ticket_ids: input.ticket_ids !== undefined ? JSON.stringify([...new Set(input.ticket_ids)].sort((a, b) => a - b)) : base.ticket_ids,
    allow_reentry: input.allow_reentry !== undefined ? Number(input.allow_reentry) : base.allow_reentry,
    allow_multiple_entries: input.allow_multiple_entries !== undefined ? Number(input.allow_multiple_entries) : base.allow_multiple_entries,
    window_start: pick('window_start'),
    window_end: pick('window_end'),
    entries_per_day: pick('entries_per_day'),
  };
  const invalid: Record<string, string> = {};
  if (out.name === '') invalid.name = 'name must not be empty.';
  if (input.ticket_ids !== undefined) {
    const ofEvent = new Set(await eventTicketIds(ctx.db, eventId));
    const foreign = input.ticket_ids.filter((t) => !ofEvent.has(t));
    if (foreign.length) invalid.ticket_ids = `Not tickets of event ${eventId}: ${foreign.join(', ')}.`;
  }
  if (out.window_start !== null && out.window_end !== null && out.window_start > out.window_end) {
    invalid[input.window_end !== undefined ? 'window_end' : 'window_start'] = 'window_end must not be before window_start.';
  }
  const names = Object.keys(invalid);
  if (names.length) {
    throw new HttpError(400, 'rest_invalid_param', `Invalid parameter(s): ${names.join(', ')}`, { params: invalid, details: [] });
  }
  return out;
}

const DEFAULTS: Omit<CheckinListFields, 'event_id'> = {
  name: '',
  ticket_ids: '[]',
  allow_reentry: 1,
  allow_multiple_entries: 0,
  window_start: null,
  window_end: null,
  entries_per_day: null,
};

const SUPPORTED = ['event_id', 'per_page'];

/**
 * A list as answered to its callers (managers and door keys of its event): with the event's current signing key
 * (CONTRACT section 8), so a kiosk paired with a list can verify signed tickets. A single list's answer makes the
 * key when the event has none yet; a page shows the keys made already.
 */
async function answerList(
  ctx: Ctx,
  row: CheckinListRow,
  single: boolean,
  keys?: Map<number, Promise<SigningKeyRow | undefined>>,
): Promise<CheckinList> {
  const out = presentList(row);
  let key: Promise<SigningKeyRow | undefined> | undefined = keys?.get(row.event_id);
  if (!key) {
    key = single ? ensureSigningKey(ctx.db, ctx.app.secret, row.event_id, nowMs(ctx)) : currentSigningKey(ctx.db, row.event_id);
    keys?.set(row.event_id, key);
  }
  const k = await key;
  return k ? { ...out, signing_key: k.public_key, signing_key_id: k.kid } : out;
}

/** A page of lists, the signing key of each event read once (a page's lists are mostly one event's). */
async function answerLists(ctx: Ctx, rows: readonly CheckinListRow[]): Promise<CheckinList[]> {
  const keys = new Map<number, Promise<SigningKeyRow | undefined>>();
  const out: CheckinList[] = [];
  for (const r of rows) out.push(await answerList(ctx, r, false, keys));
  return out;
}

const list = implement(checkinListRoutes.listCheckinLists, async (input, ctx) => {
  if (input.event_id !== undefined && (await getPostType(ctx.db, input.event_id)) !== 'event') throw invalidParam('event_id');
  const boundEvent = keyEventScope(ctx);
  const boundList = keyListScope(ctx);
  const outside = boundEvent !== null && input.event_id !== undefined && input.event_id !== boundEvent;
  const perPage = input.per_page;
  const { rows, total } = outside
    ? { rows: [], total: 0 }
    : await queryCheckinLists(ctx.db, {
        eventId: input.event_id ?? boundEvent ?? undefined,
        listId: boundList ?? undefined,
        // An organizer reads the lists of its own events only (CONTRACT section 3).
        eventAuthor: organizerScope(ctx) ?? undefined,
        limit: perPage,
        offset: (input.page - 1) * perPage,
      });
  const totalPages = Math.ceil(total / perPage);
  if (input.page > 1 && input.page > totalPages) throw invalidPage();
  const { rest_url } = archiveLinks(ctx.urls.rest('/evt/tickets/v1/checkin-lists/'), knownQuery(ctx.req.params, SUPPORTED), 1, 1);
  // A door key bound to a list is told so: a kiosk scans through that list (an event's key may read one list too).
  // A key bound to an event is told which (a venue hub started with only the site's key learns its event here).
  const bound: Record<string, string> = {
    ...(boundList === null ? {} : { 'X-EVT-Key-List': String(boundList) }),
    ...(boundEvent === null ? {} : { 'X-EVT-Key-Event': String(boundEvent) }),
  };
  return ok(
    { rest_url, total, total_pages: totalPages, checkin_lists: await answerLists(ctx, rows) },
    { ...etTotalHeaders(total, totalPages), ...bound },
  );
});

const create = implement(checkinListRoutes.createCheckinList, async (input, ctx) => {
  if ((await getPostType(ctx.db, input.event_id)) !== 'event') throw invalidParam('event_id');
  const fields = await mergeFields(ctx, input.event_id, { ...DEFAULTS, event_id: input.event_id }, input);
  await assertMayChangeEvent(ctx, input.event_id);
  const id = await insertCheckinList(ctx.db, fields);
  return created(await answerList(ctx, (await getCheckinList(ctx.db, id))!, true));
});

const read = implement(checkinListRoutes.readCheckinList, async (input, ctx) =>
  ok(await answerList(ctx, await loadReadableList(ctx, input.id), true)),
);

const update = implement(checkinListRoutes.updateCheckinList, async (input, ctx) => {
  const before = await loadReadableList(ctx, input.id);
  const fields = await mergeFields(ctx, before.event_id, before, input);
  await loadWritableList(ctx, input.id);
  await updateCheckinList(ctx.db, before.id, fields);
  return ok(await answerList(ctx, (await getCheckinList(ctx.db, before.id))!, true));
});

/** Deleted for good: its scans stay in the log (with its ID), and the keys bound to it are revoked with it. */
const remove = implement(checkinListRoutes.deleteCheckinList, async (input, ctx) => {
  const before = await loadWritableList(ctx, input.id);
  const keys = await revokeKeysOfList(ctx.db, before.id);
  await deleteCheckinList(ctx.db, before.id);
  // The pairing images hold the keys (CONTRACT section 3: revoking a key deletes them).
  for (const k of keys) removePairingQr(ctx.app.config, k);
  return ok({ deleted: true, previous: await answerList(ctx, before, false) });
});

const status = implement(checkinListRoutes.checkinListStatus, async (input, ctx) => {
  const l = await loadReadableList(ctx, input.id);
  const candidates = await checkinCandidates(ctx.db, l.event_id);
  const tickets = listTicketIds(l);
  const admitted = tickets.length ? candidates.filter((c) => tickets.includes(Number(c.ticket_id))) : candidates;
  const mine = await listPresence(
    ctx.db,
    l.id,
    admitted.map((c) => Number(c.id)),
  );
  const event = await eventPresence(
    ctx.db,
    candidates.map((c) => Number(c.id)),
  );
  return ok({ ...mine, event });
});

export const checkinListEndpoints: Endpoint[] = [list, create, read, update, remove, status];
