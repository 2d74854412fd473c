import { z } from 'zod';
import { isLocalDateTime } from '../dates.ts';
import { boolean, custom, enumString, idList, integer, string, wpIssue } from '../http/params.ts';
import { defineRoute, translationLanguage } from '../http/route.ts';

/**
 * Check-in lists, the gates of an event (CONTRACT section 8), in the `evt/tickets/v1` namespace: handlers in
 * server/routes/tickets/checkin-lists.ts. A field sent as `null` (JSON) or `''` (form) clears a window end or the
 * entries limit on an update.
 */

const ns = 'evt/tickets/v1';
const tl = { translation_language: translationLanguage };
const id = integer({ description: 'The check-in list ID', required: true, in: 'path', minimum: 1 });

/** Site-local `YYYY-MM-DD HH:MM:SS`; `''` stands for null (form bodies cannot send one). */
const localTime = (description: string) =>
  custom(
    z.unknown().transform((v, ctx): string | null => {
      if (v === '') return null;
      if (typeof v !== 'string' || !isLocalDateTime(v))
        return wpIssue(ctx, 'rest_invalid_param', '%s is not a site-local date-time (YYYY-MM-DD HH:MM:SS).');
      return v;
    }),
    z.string().nullable(),
    { description, extra: { format: 'YYYY-MM-DD HH:MM:SS' } },
  );

const entriesPerDay = custom(
  z.unknown().transform((v, ctx): number | null => {
    if (v === '') return null;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > 1000) return wpIssue(ctx, 'rest_invalid_param', '%s must be an integer from 1 to 1000, or null.');
    return n;
  }),
  z.number().int().min(1).max(1000).nullable(),
  { description: 'Entries allowed per site-local day (null: no limit)' },
);

/** A list's fields as written; every one optional on an update (fields not sent are kept). */
const fields = (create: boolean) => ({
  name: string({ description: 'The list name (the gate, e.g. "Main door")', required: create, minLength: 1, maxLength: 200 }),
  ticket_ids: idList({ description: 'Tickets the list admits; empty admits every ticket of the event' }),
  allow_reentry: boolean({ description: 'After an exit scan, may the attendee enter again (default true)' }),
  allow_multiple_entries: boolean({ description: 'May the attendee enter again without an exit scan (default false)' }),
  window_start: localTime('Entries from this site-local time (null: no start)'),
  window_end: localTime('Entries until this site-local time (null: no end)'),
  entries_per_day: entriesPerDay,
  direction: enumString(['entry', 'exit'], {
    description: 'entry (default), or exit: every scan through an exit list is an exit, whatever check_in says',
  }),
});

const listDoc = (description: string, status = '200', schema = 'CheckinList') => ({
  responses: {
    [status]: { description, schema },
    '400': { description: 'Invalid parameter.' },
    '401': { description: 'The caller may not manage check-in lists of this event.' },
    '404': { description: 'No such list (or not one the caller may see).' },
  },
});

export const checkinListRoutes = {
  listCheckinLists: defineRoute({
    id: 'checkin-lists.list',
    namespace: ns,
    route: '/checkin-lists',
    methods: ['GET'],
    permission: 'manage_attendees',
    args: {
      event_id: integer({ description: 'Lists of this event', minimum: 1 }),
      page: integer({ description: 'The page of results to return; defaults to 1', default: 1, minimum: 1 }),
      per_page: integer({
        description: 'The number of results to return on each page; defaults to 10 (at most 100)',
        default: 10,
        minimum: 1,
        maximum: 100,
      }),
      ...tl,
    },
    summary: "An event's check-in lists (gates); a key bound to a list sees that list only",
    doc: { responses: { '200': { description: 'Returns the lists', schema: 'CheckinListArchive' } } },
  }),
  createCheckinList: defineRoute({
    id: 'checkin-lists.create',
    namespace: ns,
    route: '/checkin-lists',
    methods: ['POST'],
    permission: 'edit_tickets',
    batch: true,
    args: { event_id: integer({ description: 'The event the list admits to', required: true, minimum: 1 }), ...fields(true), ...tl },
    summary: 'Creates a check-in list (answers 201)',
    doc: listDoc('Returns the created list', '201'),
  }),
  readCheckinList: defineRoute({
    id: 'checkin-lists.read',
    namespace: ns,
    route: '/checkin-lists/(?P<id>\\d+)',
    methods: ['GET'],
    permission: 'manage_attendees',
    args: { id, ...tl },
    summary: 'A check-in list',
    doc: listDoc('Returns the list'),
  }),
  updateCheckinList: defineRoute({
    id: 'checkin-lists.update',
    namespace: ns,
    route: '/checkin-lists/(?P<id>\\d+)',
    methods: ['PATCH', 'POST', 'PUT'],
    permission: 'edit_tickets',
    batch: true,
    args: { id, ...fields(false), ...tl },
    summary: 'Updates a check-in list; fields not sent are kept',
    doc: listDoc('Returns the updated list'),
  }),
  deleteCheckinList: defineRoute({
    id: 'checkin-lists.delete',
    namespace: ns,
    route: '/checkin-lists/(?P<id>\\d+)',
    methods: ['DELETE'],
    permission: 'edit_tickets',
    batch: true,
    args: { id, ...tl },
    summary: 'Deletes a check-in list for good and revokes the door keys bound to it (its scans stay in the log)',
    doc: listDoc('Returns `{deleted: true, previous}` with the deleted list', '200', 'CheckinListDeleted'),
  }),
  checkinListStatus: defineRoute({
    id: 'checkin-lists.status',
    namespace: ns,
    route: '/checkin-lists/(?P<id>\\d+)/status',
    methods: ['GET'],
    permission: 'manage_attendees',
    args: { id, ...tl },
    summary: 'Who came through the list: {checked_in, inside, expected}, and the same for the event under `event`',
    doc: {
      responses: {
        '200': { description: 'The counts', schema: 'CheckinListStatus' },
        '401': { description: 'The caller may not read this list.' },
        '404': { description: 'No such list (or not one the caller may see).' },
      },
    },
  }),
};
