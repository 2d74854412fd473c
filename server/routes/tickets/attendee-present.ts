import crypto from 'node:crypto';
import { securityCodeHashInput } from '../../../shared/checkin/security-code.ts';
import { DOOR_SNAPSHOT_ROW_FIELDS } from '../../../shared/routes/tickets.ts';
import { dateDetails } from '../../../shared/dates.ts';
import { currencyFormat, formatMoney, rawPrice } from '../../../shared/money.ts';
import type { Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import type { AttendeeRow } from '../../db/repos/attendees.ts';
import { effectiveOrderStatus } from '../../db/repos/attendees.ts';
import { BOX_OFFICE_REF } from '../../db/repos/orders.ts';
import { pick } from '../../content/text.ts';
import { globalId } from '../events/present-post.ts';
import { checkinDetails, utcToLocal } from '../../domain/checkin/standing.ts';

export { checkinDetails, utcToLocal };

/** Event Tickets "manage access": door devices (API keys), door staff, organizers and administrators. */
export const managesAttendees = (ctx: Ctx) => can(ctx, 'manage_attendees');

function saleDate(date: string, time: string): string {
  if (!date) return '';
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(time.trim());
  return `${date} ${m ? `${m[1].padStart(2, '0')}:${m[2]}:${m[3] ?? '00'}` : '00:00:00'}`;
}

function ticketOf(ctx: Ctx, row: AttendeeRow, embedded: boolean): Record<string, unknown> {
  const f = currencyFormat(row.ticket_currency);
  return {
    // The original reads an RSVP ticket's ID from post meta: a string on the attendee routes (a number inside
    // a ticket's embedded attendee list).
    id: row.provider === 'rsvp' && !embedded ? String(row.ticket_id) : row.ticket_id,
    title: pick(ctx.lang, row.ticket_title, row.ticket_title_et),
    description: pick(ctx.lang, row.ticket_content, row.ticket_content_et),
    raw_price: rawPrice(row.ticket_price_minor, row.ticket_currency),
    formatted_price: formatMoney(row.ticket_price_minor, row.ticket_currency),
    currency_config: {
      symbol: f.symbol,
      placement: f.placement,
      decimal_point: f.decimal_point,
      thousands_sep: f.thousands_sep,
      number_of_decimals: f.number_of_decimals,
    },
    start_sale: saleDate(row.ticket_start_date, row.ticket_start_time),
    end_sale: saleDate(row.ticket_end_date, row.ticket_end_time),
  };
}

/**
 * `build_attendee_data` (reference 4.4) in its key order. `manager` adds the private fields, then our door
 * extensions `security_code` and `order_status` (CONTRACT section 7).
 */
export function presentAttendee(ctx: Ctx, row: AttendeeRow, manager: boolean, memo = new PageMemo(ctx)): Record<string, unknown> {
  const gid = `${memo.origin}?type=attendee&id=${row.id}`;
  const out: Record<string, unknown> = {
    id: row.id,
    post_id: row.event_id,
    ticket_id: row.ticket_id,
    global_id: gid,
    global_id_lineage: [gid],
    author: String(row.author),
    status: row.status,
    date: row.date,
    date_utc: row.date_gmt,
    modified: row.modified,
    modified_utc: row.modified_gmt,
    rest_url: ctx.urls.rest(`/evt/tickets/v1/attendees/${row.id}`),
    ticket: memo.ticket(row),
  };
  const optout = row.optout === 1;
  if (!optout || manager) out.title = row.full_name || row.title;
  out.optout = optout;
  if (!manager) return out;
  out.provider = row.provider;
  // RSVP: the attendee's own ID; a sale made through POST /attendees has no order in the original: "".
  out.order = row.provider === 'rsvp' ? row.id : row.order_id === null || row.order_gateway_ref === BOX_OFFICE_REF ? '' : row.order_id;
  out.sku = row.ticket_sku;
  out.email = row.email;
  out.checked_in = row.checked_in === 1;
  out.checkin_details = checkinDetails(ctx, row);
  out.is_subscribed = false;
  out.is_purchaser = true;
  if (row.provider === 'rsvp') out.rsvp_going = row.rsvp_status !== 'no';
  else if (row.order_id !== null && row.order_created_utc) {
    const date = utcToLocal(ctx, row.order_completed_utc ?? row.order_created_utc);
    const currency = row.order_currency ?? row.ticket_currency;
    out.payment = { provider: row.provider, price: rawPrice(row.price_minor, currency), currency, date, date_details: dateDetails(date) };
  }
  out.security_code = row.security_code;
  out.order_status = effectiveOrderStatus(row);
  return out;
}

const origins = new Map<string, string>();

/** `globalId`'s `<host><path>` part, parsed once per public URL. */
function globalOrigin(ctx: Ctx): string {
  let o = origins.get(ctx.app.config.publicUrl);
  if (o === undefined) origins.set(ctx.app.config.publicUrl, (o = globalId(ctx, 0).replace(/\?id=0$/, '')));
  return o;
}

/** What every attendee of a page shares: the global-ID origin and each ticket's embedded object. */
class PageMemo {
  readonly origin: string;
  private readonly tickets = new Map<number, Record<string, unknown>>();

  constructor(
    private readonly ctx: Ctx,
    private readonly embedded = false,
  ) {
    this.origin = globalOrigin(ctx);
  }

  ticket(row: AttendeeRow): Record<string, unknown> {
    let t = this.tickets.get(row.ticket_id);
    if (!t) this.tickets.set(row.ticket_id, (t = ticketOf(this.ctx, row, this.embedded)));
    return t;
  }
}

/**
 * The attendee as a door device keeps it (`door=1` on the list, managers only): the fields the kiosk's cache
 * reads, with the same values as `presentAttendee` gives them, in its key order. A quarter of the full object's
 * bytes: at 100,000 attendees that is what the first download spends its time on, on both ends (issue 22).
 */
function presentDoorAttendee(ctx: Ctx, row: AttendeeRow, memo: PageMemo): Record<string, unknown> {
  const ticket = memo.ticket(row);
  return {
    id: row.id,
    post_id: row.event_id,
    ticket_id: row.ticket_id,
    status: row.status,
    ticket: { id: ticket.id, title: ticket.title },
    title: row.full_name || row.title,
    email: row.email,
    checked_in: row.checked_in === 1,
    checkin_details: checkinDetails(ctx, row, true),
    security_code: row.security_code,
    order_status: effectiveOrderStatus(row),
  };
}

/** A page of attendees as door devices keep them (see presentDoorAttendee). */
export function presentDoorAttendees(ctx: Ctx, rows: readonly AttendeeRow[]): Record<string, unknown>[] {
  const memo = new PageMemo(ctx);
  return rows.map((r) => presentDoorAttendee(ctx, r, memo));
}

/** The hash the kiosk keeps of an attendee's security code (shared/checkin/security-code.ts), or null without one. */
function snapshotCodeHash(id: number, code: unknown): string | null {
  // crypto.hash: one call, no Hash object per attendee (a quarter of createHash's time for 100,000, issue 22).
  return typeof code === 'string' && code ? crypto.hash('sha256', securityCodeHashInput(id, code), 'hex') : null;
}

/**
 * The door snapshot's attendees: as presentDoorAttendee, with `security_code_hash` (the hash the kiosk keeps,
 * shared/checkin/security-code.ts) instead of `security_code`. The code then never leaves the server in a first
 * download, and 100,000 hashes cost node:crypto a tenth of what they cost the kiosk's script SHA-256 (issue 22).
 */
export function presentSnapshotAttendees(ctx: Ctx, rows: readonly AttendeeRow[]): Record<string, unknown>[] {
  const memo = new PageMemo(ctx);
  return rows.map((r) => {
    const { security_code: code, ...rest } = presentDoorAttendee(ctx, r, memo);
    const hash = snapshotCodeHash(r.id, code);
    return { ...rest, security_code_hash: hash };
  });
}

/**
 * The door snapshot's compact form (`form=rows`): each attendee as presentSnapshotAttendees gives it, as an array
 * of DOOR_SNAPSHOT_ROW_FIELDS in that order, and each ticket's `ticket` object once in `tickets` by ticket ID.
 * No object per attendee to build and serialise, and a third of the bytes to compress and send (issue 22).
 */
export function presentSnapshotRows(
  ctx: Ctx,
  rows: readonly AttendeeRow[],
): { fields: typeof DOOR_SNAPSHOT_ROW_FIELDS; tickets: Record<string, { id: unknown; title: unknown }>; rows: unknown[][] } {
  const memo = new PageMemo(ctx);
  const tickets: Record<string, { id: unknown; title: unknown }> = {};
  const out = rows.map((r) => {
    if (!Object.hasOwn(tickets, r.ticket_id)) {
      const t = memo.ticket(r);
      tickets[r.ticket_id] = { id: t.id, title: t.title };
    }
    const code = r.security_code;
    return [
      r.id,
      r.event_id,
      r.ticket_id,
      r.status,
      r.full_name || r.title,
      r.email,
      r.checked_in === 1,
      checkinDetails(ctx, r, true),
      snapshotCodeHash(r.id, code),
      effectiveOrderStatus(r),
    ];
  });
  return { fields: DOOR_SNAPSHOT_ROW_FIELDS, tickets, rows: out };
}

/** `embedded`: the attendee list inside a ticket object. */
export function presentAttendees(
  ctx: Ctx,
  rows: readonly AttendeeRow[],
  manager = managesAttendees(ctx),
  embedded = false,
): Record<string, unknown>[] {
  const memo = new PageMemo(ctx, embedded);
  return rows.map((r) => presentAttendee(ctx, r, manager, memo));
}
