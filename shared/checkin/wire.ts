import { z } from 'zod';
import { ErrorEnvelope } from '../errors.ts';
import { CheckinDetails as ServerCheckinDetails } from '../models/tickets.ts';
import { kioskPaths } from './paths.ts';
import { SECURITY_CODE_HASH } from './security-code.ts';
import { DOOR_SNAPSHOT_ROW_FIELDS } from '../routes/tickets.ts';

/**
 * Wire shapes of the tickets namespace as the door kiosk reads them (CONTRACT §5–§7). The server sends many
 * more keys (original Event Tickets fields); these schemas accept and drop them, which also keeps parsing
 * a 100,000-attendee download cheap. Archive envelopes stay loose.
 */

/**
 * A standing check-in, as the server's model (shared/models) declares it, read leniently: the original sends
 * only `{date, date_details, source, author}`; `device_id` and `device_label` (the label of the door key that
 * made it, e.g. "Door 2") are our additive fields.
 */
export const CheckinDetails = ServerCheckinDetails.extend({
  date_details: z.unknown().optional(),
  source: ServerCheckinDetails.shape.source.nullish(),
  author: z.union([z.string(), z.number()]).nullish(),
  device_id: z.string().nullish(),
  device_label: z.string().nullish(),
});
export type CheckinDetails = z.infer<typeof CheckinDetails>;

/** An attendee in the door (manager) view. */
export const DoorAttendee = z.object({
  id: z.number().int(),
  post_id: z.number().int(),
  ticket_id: z.number().int(),
  /** `publish` normally; `trash` when deleted (delta sync sends trashed attendees so caches drop them). */
  status: z.string(),
  title: z.string().nullish(),
  email: z.string().nullish(),
  /** `ticket.id` is a string for RSVP tickets on the attendee routes, as in the original. */
  ticket: z.object({ id: z.coerce.number().int(), title: z.string().nullish() }).nullish(),
  provider: z.string().nullish(),
  order: z.union([z.string(), z.number()]).nullish(),
  checked_in: z.boolean().optional().default(false),
  checkin_details: z.union([z.literal(false), CheckinDetails]).nullish(),
  /** Door/manager view only; the kiosk hashes it immediately and never stores it. */
  security_code: z.string().nullish(),
  /** The door snapshot sends the hash the kiosk keeps (shared/checkin/security-code.ts) instead of the code. */
  security_code_hash: z.string().regex(SECURITY_CODE_HASH).nullish(),
  /** Our additive field: `completed`, `pending`, `refunded`, `cancelled`, ... */
  order_status: z.string().nullish(),
});
export type DoorAttendee = z.infer<typeof DoorAttendee>;

/** `GET /attendees` archive body (`X-ET-TOTAL`, `X-ET-TOTAL-PAGES`, `X-EVT-Cursor` come as headers). */
export const AttendeeArchive = z.looseObject({
  rest_url: z.string().optional(),
  total: z.coerce.number().int(),
  total_pages: z.coerce.number().int(),
  attendees: z.array(DoorAttendee),
});
export type AttendeeArchive = z.infer<typeof AttendeeArchive>;

/**
 * `GET /attendees/door-snapshot` body (`X-EVT-Cursor` comes as a header): one slice of the first download. Its
 * attendees are read one by one with {@link readDoorAttendee}.
 */
export const DoorSnapshotSlice = z.looseObject({
  total: z.coerce.number().int(),
  next_after_id: z.number().int().nullable(),
  /** The object form (a server that does not know `form=rows` answers with it). */
  attendees: z.array(z.unknown()).optional(),
  /** The compact form (`form=rows`): `fields` names each row's columns, `tickets` holds each ticket object by ID. */
  fields: z.array(z.string()).optional(),
  tickets: z.record(z.string(), z.unknown()).optional(),
  /** Each an array, checked by readSnapshotSlice (Zod's walk of 5,000 arrays cost more than reading them). */
  rows: z.array(z.unknown()).optional(),
});
export type DoorSnapshotSlice = z.infer<typeof DoorSnapshotSlice>;

/**
 * A slice's attendees, whichever form it came in: the object form read one by one with {@link readDoorAttendee};
 * the compact form's rows made into the same objects (each column under the name `fields` gives it, the row's
 * ticket object from `tickets`) and read the same way, so both forms are held to the same checks.
 */
export function readSnapshotSlice(body: DoorSnapshotSlice): DoorAttendee[] {
  if (!body.rows) {
    if (!body.attendees) throw new Error('a door snapshot slice without attendees');
    return body.attendees.map(readDoorAttendee);
  }
  const fields = body.fields ?? [];
  const tickets = body.tickets ?? {};
  const n = fields.length;
  const ticketAt = fields.indexOf('ticket_id');
  // The server's own column order (DOOR_SNAPSHOT_ROW_FIELDS): a plain row is read straight from its array.
  const ours = n === DOOR_SNAPSHOT_ROW_FIELDS.length && DOOR_SNAPSHOT_ROW_FIELDS.every((f, i) => fields[i] === f);
  const ticketOf = ours ? plainTickets(tickets) : null;
  return body.rows.map((row) => {
    if (!Array.isArray(row)) throw new Error('a door snapshot row that is not an array');
    const plain = ticketOf && plainSnapshotRow(row, ticketOf);
    if (plain) return plain;
    const a: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) if (row[i] !== undefined && fields[i] !== '__proto__') a[fields[i]] = row[i];
    const ticket = ticketAt >= 0 && Object.hasOwn(tickets, String(row[ticketAt])) ? tickets[String(row[ticketAt])] : undefined;
    if (ticket !== undefined) a.ticket = ticket;
    return readDoorAttendee(a);
  });
}

/**
 * Each ticket object of a slice's `tickets`, as {@link plainDoorAttendee} reads an attendee's `ticket`: once per
 * ticket rather than once per row. `null` for a ticket that is not plain (its rows go the generic way), undefined
 * for a ticket ID the slice does not hold.
 */
function plainTickets(tickets: Record<string, unknown>): (ticketId: number) => DoorAttendee['ticket'] | null | undefined {
  const read = new Map<number, DoorAttendee['ticket'] | null | undefined>();
  return (ticketId) => {
    if (read.has(ticketId)) return read.get(ticketId);
    const key = String(ticketId);
    let out: DoorAttendee['ticket'] | null | undefined;
    if (!Object.hasOwn(tickets, key)) out = undefined;
    else {
      const t = tickets[key];
      const a = t === undefined ? null : plainDoorAttendee({ id: 0, post_id: 0, ticket_id: 0, status: '', ticket: t });
      out = a ? a.ticket : null;
    }
    read.set(ticketId, out);
    return out;
  };
}

/**
 * A row of the server's column order read as {@link plainDoorAttendee} reads the object it stands for, without
 * building that object first (5,000 rows a slice): null for anything but the plain form, which then goes the
 * generic way (and to Zod). test/renderer/sync/door-attendee-read.test.ts holds the two ways to the same result.
 */
function plainSnapshotRow(row: unknown[], ticketOf: (ticketId: number) => DoorAttendee['ticket'] | null | undefined): DoorAttendee | null {
  if (row.length !== DOOR_SNAPSHOT_ROW_FIELDS.length) return null;
  const [id, post_id, ticket_id, status, title, email, checked_in, checkin_details, security_code_hash, order_status] = row;
  if (!Number.isSafeInteger(id) || !Number.isSafeInteger(post_id) || !Number.isSafeInteger(ticket_id) || typeof status !== 'string') return null;
  if (!nullishString(title) || !nullishString(email) || !nullishString(order_status)) return null;
  if (typeof checked_in !== 'boolean' || (checkin_details !== null && checkin_details !== false)) return null;
  if (security_code_hash !== null && !(typeof security_code_hash === 'string' && SECURITY_CODE_HASH.test(security_code_hash))) return null;
  const ticket = ticketOf(ticket_id as number);
  if (ticket === null) return null;
  const out: Record<string, unknown> = {
    id,
    post_id,
    ticket_id,
    status,
    checked_in,
    title,
    email,
    checkin_details,
    security_code_hash,
    order_status,
  };
  if (ticket !== undefined) out.ticket = ticket;
  return out as DoorAttendee;
}

const nullishString = (x: unknown) => x === undefined || x === null || typeof x === 'string';
const PLAIN_KEYS = ['title', 'email', 'provider', 'order', 'checkin_details', 'security_code', 'security_code_hash', 'order_status'] as const;

/**
 * An attendee as `DoorAttendee.parse` reads it, checked by hand when it has the plain form nearly every attendee of
 * a first download has (no standing check-in, a ticket ID as a number or digits): Zod's generic walk was a tenth
 * of the kiosk's script time at 100,000 attendees (issue 22). Anything else (a standing check-in, anything
 * unusual) goes to Zod, which reads it or throws as before; test/renderer/sync/door-attendee-read.test.ts holds
 * the two to the same result.
 */
export function readDoorAttendee(v: unknown): DoorAttendee {
  return plainDoorAttendee(v) ?? DoorAttendee.parse(v);
}

/** The plain form of {@link readDoorAttendee}, or null for Zod to read. */
export function plainDoorAttendee(v: unknown): DoorAttendee | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const a = v as Record<string, unknown>;
  const { id, post_id, ticket_id, status, ticket, order, checked_in, checkin_details, security_code_hash } = a;
  if (!Number.isSafeInteger(id) || !Number.isSafeInteger(post_id) || !Number.isSafeInteger(ticket_id) || typeof status !== 'string') return null;
  if (!nullishString(a.title) || !nullishString(a.email) || !nullishString(a.provider) || !nullishString(a.security_code)) return null;
  if (!nullishString(a.order_status)) return null;
  if (order !== undefined && order !== null && typeof order !== 'string' && typeof order !== 'number') return null;
  if (checked_in !== undefined && typeof checked_in !== 'boolean') return null;
  if (checkin_details !== undefined && checkin_details !== null && checkin_details !== false) return null;
  if (
    security_code_hash !== undefined &&
    security_code_hash !== null &&
    !(typeof security_code_hash === 'string' && SECURITY_CODE_HASH.test(security_code_hash))
  )
    return null;
  const out: Record<string, unknown> = { id, post_id, ticket_id, status, checked_in: checked_in ?? false };
  for (const k of PLAIN_KEYS) if (a[k] !== undefined) out[k] = a[k];
  if (ticket !== undefined) {
    if (ticket === null) out.ticket = null;
    else {
      if (typeof ticket !== 'object' || Array.isArray(ticket)) return null;
      const t = ticket as Record<string, unknown>;
      const tid = typeof t.id === 'number' ? t.id : typeof t.id === 'string' && /^\d{1,15}$/.test(t.id) ? Number(t.id) : Number.NaN;
      if (!Number.isSafeInteger(tid) || !nullishString(t.title)) return null;
      out.ticket = t.title === undefined ? { id: tid } : { id: tid, title: t.title };
    }
  }
  return out as DoorAttendee;
}

/** A ticket of the event (`GET /tickets?include_post=`), reduced to what the door needs. */
export const DoorTicket = z.object({
  id: z.number().int(),
  post_id: z.number().int().optional(),
  title: z.string().nullish(),
});
export type DoorTicket = z.infer<typeof DoorTicket>;

export const TicketArchive = z.looseObject({
  total: z.coerce.number().int().optional(),
  total_pages: z.coerce.number().int().optional(),
  tickets: z.array(DoorTicket),
});

/** The event as the door shows it. */
export const DoorEvent = z.object({
  id: z.number().int(),
  title: z.string().nullish(),
  start_date: z.string().nullish(),
  end_date: z.string().nullish(),
});
export type DoorEvent = z.infer<typeof DoorEvent>;

/** Body of a check-in (or check-out) through `PATCH /evt/tickets/v1/attendees/{id}`. */
export const CheckinBody = z.object({
  check_in: z.boolean(),
  /** Scan time on the device, ISO 8601 with offset. */
  check_in_date: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/),
  device_id: z.string().min(1),
  /** Unique per scan, at least 16 characters: makes retries idempotent. */
  nonce: z.string().min(16),
});
export type CheckinBody = z.infer<typeof CheckinBody>;

export const BATCH_MAX_REQUESTS = 25;

export const BatchRequestItem = z.object({
  method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
  path: z.string(),
  body: z.record(z.string(), z.unknown()).optional(),
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
});
export const BatchRequest = z.object({
  validation: z.enum(['normal', 'require-all-validate']).default('normal'),
  requests: z.array(BatchRequestItem).min(1).max(BATCH_MAX_REQUESTS),
});
export type BatchRequest = z.infer<typeof BatchRequest>;

export const BatchResponseItem = z.object({
  body: z.unknown(),
  status: z.number().int(),
  // An item without headers (an unknown route, a `require-all-validate` failure) has PHP's empty array, `[]`.
  headers: z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? {} : v), z.record(z.string(), z.unknown()).optional().default({})),
});
export type BatchResponseItem = z.infer<typeof BatchResponseItem>;

export const BatchResponse = z.looseObject({
  failed: z.string().optional(),
  responses: z.array(BatchResponseItem.nullable()),
});
export type BatchResponse = z.infer<typeof BatchResponse>;

/** Path of the attendee route inside a batch. */
export function attendeeBatchPath(attendeeId: number): string {
  return kioskPaths.attendeeInBatch(attendeeId);
}

/** Error codes of the check-in answers the kiosk acts on (CONTRACT section 7; reference 4.2). */
export const CHECKIN_ERRORS = {
  alreadyCheckedIn: 'tec-et-attendee-already-checked-in',
  orderNotComplete: 'tec-et-attendee-invalid-check-in',
  attendeeNotFound: 'attendee-not-found',
  forbidden: 'rest_forbidden',
} as const;

/** A check-in request item for `POST /batch/v1`. */
export function checkinBatchItem(attendeeId: number, body: CheckinBody): z.infer<typeof BatchRequestItem> {
  return { method: 'PATCH', path: attendeeBatchPath(attendeeId), body };
}

/**
 * Body of `POST /evt/tickets/v1/checkins`: a scan the door refused on its own (not valid, or already checked
 * in), recorded in the server's check-in log with its reason and device; no attendee changes.
 */
export interface RefusalBody {
  result: 'rejected' | 'conflict';
  reason: string;
  attendee_id?: number;
  check_in_date: string;
  device_id: string;
  nonce: string;
}

/** A refused scan's record for `POST /batch/v1`. */
export function refusalBatchItem(body: RefusalBody): z.infer<typeof BatchRequestItem> {
  return { method: 'POST', path: kioskPaths.refusalInBatch(), body: { ...body } };
}

/**
 * The fate of one scan's check-in at the server: the one outcome type of the kiosk, from the answer to a
 * batch item through the outbox, the settling of the cache, and the verdict shown at the door.
 *
 * - `accepted`: recorded (a check-in or check-out); `attendee` is the server's view.
 * - `conflict`: someone else's check-in stands (`standing`); ours is recorded as the losing scan.
 * - `rejected`: refused for a reason about the ticket (`code`), final.
 * - `device`: refused because of the device, not the ticket (key revoked, key for another event): the scan
 *   stays queued and its local verdict stands.
 * - `retry`: no final answer (network, 5xx, 429, unreadable body): stays queued.
 */
export type CheckinFate =
  | { kind: 'accepted'; attendee: DoorAttendee }
  | { kind: 'conflict'; standing: CheckinDetails | null; message: string }
  | { kind: 'rejected'; code: string; message: string; status: number }
  | { kind: 'device'; problem: 'revoked' | 'wrong_event'; code: string; message: string; status: number }
  | { kind: 'retry'; status: number; message: string };

/** Sorts a check-in answer (a batch item, or a single response) into its fate (CONTRACT section 7). */
export function classifyCheckinResponse(status: number, body: unknown): CheckinFate {
  if (status >= 200 && status < 300) {
    const attendee = DoorAttendee.safeParse(body);
    return attendee.success
      ? { kind: 'accepted', attendee: attendee.data }
      : { kind: 'retry', status, message: 'unreadable attendee in a success answer' };
  }
  const error = ErrorEnvelope.safeParse(body);
  const code = error.success ? error.data.code : '';
  const message = error.success ? error.data.message : `HTTP ${status}`;
  if (status === 401 || status === 403 || code === CHECKIN_ERRORS.forbidden) {
    return { kind: 'device', problem: 'revoked', code: code || CHECKIN_ERRORS.forbidden, message, status };
  }
  if (code === CHECKIN_ERRORS.alreadyCheckedIn) {
    const data = error.success ? error.data.data : null;
    const standing = CheckinDetails.safeParse(data?.checkin_details);
    return { kind: 'conflict', standing: standing.success ? standing.data : null, message };
  }
  if (status === 429 || status >= 500 || !error.success) return { kind: 'retry', status, message };
  return { kind: 'rejected', code, message, status };
}
