import { z } from 'zod';

/** A check-in list as answered (CONTRACT section 8). */
export const CheckinList = z.object({
  id: z.number().int(),
  event_id: z.number().int(),
  name: z.string(),
  ticket_ids: z.array(z.number().int()),
  allow_reentry: z.boolean(),
  allow_multiple_entries: z.boolean(),
  window_start: z.string().nullable(),
  window_end: z.string().nullable(),
  entries_per_day: z.number().int().nullable(),
  /** `exit`: every scan through the list is an exit (a door at the way out); a server from before says nothing. */
  direction: z.enum(['entry', 'exit']).default('entry'),
  /** The event's current signing key (base64url, 32 bytes) and its ID (CONTRACT section 8), once it has one. */
  signing_key: z.string().optional(),
  signing_key_id: z.string().optional(),
});
export type CheckinList = z.infer<typeof CheckinList>;

export const CheckinListArchive = z.object({
  rest_url: z.string(),
  total: z.number().int(),
  total_pages: z.number().int(),
  checkin_lists: z.array(CheckinList),
});

const Presence = z.object({ checked_in: z.number().int(), inside: z.number().int(), expected: z.number().int() });

/** `GET /checkin-lists/{id}/status`: the list's counts, and the event's under `event`. */
export const CheckinListStatus = Presence.extend({ event: Presence });

/** `DELETE /checkin-lists/{id}`: deleted for good, as WordPress answers a permanent delete. */
export const CheckinListDeleted = z.object({ deleted: z.literal(true), previous: CheckinList });

export const checkinListDocSchemas = { CheckinList, CheckinListArchive, CheckinListStatus, CheckinListDeleted };
