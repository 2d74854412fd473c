import { dateDetails } from '../../../shared/dates.ts';
import { currencyFormat, formatMoney, rawPrice } from '../../../shared/money.ts';
import { TICKETS_NS } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { createNonce } from '../../auth/nonces.ts';
import { getAttachments } from '../../db/repos/attachments.ts';
import type { PostRow } from '../../db/repos/posts.ts';
import { availableOf, EMPTY_STATS, parentPosts, ticketStats, type TicketRow, type TicketStats } from '../../db/repos/tickets.ts';
import { pick } from '../../content/text.ts';
import { globalId, imageObject } from '../events/present-post.ts';
import { attendeesOfTickets } from './ticket-attendees.ts';
import { managesAttendees } from './attendee-present.ts';
import { readsAttendeesOf } from './attendee-access.ts';
import { nowMs, nowUtcString } from './clock.ts';

/** `HH:MM:SS` from an editor time (`H:MM`, `HH:MM:SS`), '' when unset. */
export function normalTime(t: string): string {
  if (!t) return '';
  const [h = '0', m = '0', s = '0'] = t.split(':');
  return `${h.padStart(2, '0')}:${m.padStart(2, '0')}:${s.padStart(2, '0')}`;
}

/** `available_from` / `available_until`: "<date> <time>" from the ticket's sale fields, '' when unset. */
export function saleMoment(date: string, time: string, fallback: string): string {
  return date ? `${date} ${normalTime(time) || fallback}` : '';
}

// PHP's strtotime('') is false, which formats as the epoch.
const details = (local: string) => dateDetails(local || '1970-01-01 00:00:00');

function onSale(t: TicketRow, nowUtc: string): boolean {
  if (t.sale_price_minor === null) return false;
  return (!t.sale_start || t.sale_start <= nowUtc) && (!t.sale_end || nowUtc <= t.sale_end);
}

/** Whether a parent post hides its tickets' details from callers without manage access. */
export function parentHidden(parent: Pick<PostRow, 'status' | 'password'> | undefined): boolean {
  return parent?.status !== 'publish' || parent.password !== '';
}

/** ET's unauthorized-view mask: numbers (and numeric strings) 0, booleans null, other scalars "No Access". */
export function maskValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskValue);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskValue(x)]));
  if (typeof v === 'number') return 0;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return 0;
  if (typeof v === 'boolean') return null;
  return 'No Access';
}

export interface TicketPresentOpts {
  /** Adds the editor fields, `fees` and nonces (single reads of callers with edit_tickets). */
  editor?: boolean;
  /**
   * A 202 answer of the editor routes: as the original, the plain ticket without the editor fields or `fees`;
   * the nonces stay (EXT-nonces) so an editor can go on without a second read.
   */
  editorAnswer?: boolean;
  /** Skip the embedded attendee lists (the caller's `_fields` leaves them out). */
  skipAttendees?: boolean;
}

/**
 * Presents tickets with a fixed number of queries: stats, parents, images and (managers) attendees. A key bound
 * to an event has manage access to that event's tickets only; any other ticket it is shown gets the public view.
 */
export async function presentTickets(ctx: Ctx, rows: TicketRow[], opts: TicketPresentOpts = {}): Promise<Record<string, unknown>[]> {
  const ids = rows.map((r) => r.id);
  // Whether the caller manages each ticket's attendees, decided once per ticket before anything is presented.
  const managing = new Set<number>();
  if (managesAttendees(ctx)) for (const r of rows) if (await readsAttendeesOf(ctx, r.event_id)) managing.add(r.id);
  const managed = rows.filter((r) => managing.has(r.id)).map((r) => r.id);
  const stats = await ticketStats(ctx.db, ids);
  const parentRows = await parentPosts(ctx.db, [...new Set(rows.map((r) => r.event_id))]);
  const images = await getAttachments(ctx.db, [...parentRows.values()].map((p) => p.image_id).filter(Boolean));
  const attendees = managed.length && !opts.skipAttendees ? await attendeesOfTickets(ctx, managed) : new Map<number, Record<string, unknown>[]>();
  const nowUtc = nowUtcString(ctx);
  return rows.map((t) => {
    const manager = managing.has(t.id);
    const s = stats.get(t.id) ?? EMPTY_STATS;
    const parent = parentRows.get(t.event_id);
    const out = ticketObject(ctx, t, s, parent ? imageObject(images.get(parent.image_id)) : false, nowUtc, manager);
    if (manager) {
      out.attendees = attendees.get(t.id) ?? [];
      if (t.provider === 'rsvp') out.rsvp = { rsvp_going: s.rsvpGoing, rsvp_not_going: s.rsvpNotGoing };
      out.checkin = checkinReport(s);
    }
    out.rest_url = ctx.urls.rest(`/${TICKETS_NS}/tickets/${t.id}`);
    if (can(ctx, 'edit_tickets') && !opts.editorAnswer) {
      if (opts.editor) addEditorFields(out, t, s);
      // Tickets Commerce's fee block, empty: Doorstep has no fees (D8).
      out.fees = { available_fees: [], automatic_fees: [], selected_fees: [] };
    }
    if ((opts.editor || opts.editorAnswer) && can(ctx, 'edit_tickets')) addNonces(ctx, out, t);
    return !manager && parentHidden(parent) ? (maskValue(out) as Record<string, unknown>) : out;
  });
}

function checkinReport(s: TicketStats) {
  const pct = s.attendees ? Math.ceil((100 * s.checkedIn) / s.attendees) : 100;
  return { checked_in: s.checkedIn, unchecked_in: s.attendees - s.checkedIn, checked_in_percentage: pct, unchecked_in_percentage: 100 - pct };
}

function ticketObject(ctx: Ctx, t: TicketRow, s: TicketStats, image: unknown, nowUtc: string, manager: boolean): Record<string, unknown> {
  const available = availableOf(t.capacity, s);
  const percentage = t.capacity < 0 ? 100 : t.capacity === 0 ? 0 : Math.floor((available / t.capacity) * 100);
  const capacity: Record<string, unknown> = { available_percentage: percentage, available };
  if (manager) Object.assign(capacity, { max: t.capacity, sold: s.sold, pending: s.pending, global_stock_mode: t.capacity < 0 ? '' : 'own' });
  const from = saleMoment(t.start_date, t.start_time, '00:00:00');
  const until = saleMoment(t.end_date, t.end_time, '23:59:59');
  const f = currencyFormat(t.currency);
  const gid = globalId(ctx, t.id, t.provider);
  return {
    description: pick(ctx.lang, t.content, t.content_et),
    capacity: t.capacity,
    // RSVP tickets have no sale price: the original answers null and an empty list.
    on_sale: t.provider === 'rsvp' ? null : onSale(t, nowUtc),
    iac: t.iac,
    price_suffix: null,
    post_id: t.event_id,
    provider: t.provider,
    id: t.id,
    type: t.type,
    global_id: gid,
    global_id_lineage: [gid],
    author: String(t.author),
    status: t.status,
    date: t.date,
    date_utc: t.date_gmt,
    modified: t.modified,
    modified_utc: t.modified_gmt,
    title: pick(ctx.lang, t.title, t.title_et),
    image,
    available_from: from,
    available_from_details: details(from),
    available_until: until,
    available_until_details: details(until),
    capacity_details: capacity,
    is_available: percentage > 0,
    cost: formatMoney(t.price_minor, t.currency),
    cost_details: {
      currency_symbol: f.symbol,
      currency_position: f.placement,
      values: [rawPrice(t.price_minor, t.currency)],
      suffix: null,
      currency_decimal_separator: f.decimal_point,
      currency_decimal_numbers: f.number_of_decimals,
      currency_thousand_separator: f.thousands_sep,
    },
    sale_price_data:
      t.provider === 'rsvp'
        ? []
        : {
            enabled: t.sale_price_minor === null ? '' : '1',
            sale_price: t.sale_price_minor === null ? '' : rawPrice(t.sale_price_minor, t.currency),
            start_date: t.sale_start,
            end_date: t.sale_end,
          },
    supports_attendee_information: false,
    attendees: [],
  };
}

function addEditorFields(out: Record<string, unknown>, t: TicketRow, s: TicketStats): void {
  out.capacity_type = t.capacity < 0 ? 'unlimited' : 'own';
  // RSVP tickets have no SKU in the original (null).
  out.sku = t.provider === 'rsvp' ? null : t.sku;
  out.description = t.content;
  out.available_from_start_time = normalTime(t.start_time);
  out.available_from_end_time = normalTime(t.end_time);
  out.totals = { stock: availableOf(t.capacity, s), sold: s.sold, pending: s.pending };
}

function addNonces(ctx: Ctx, out: Record<string, unknown>, t: TicketRow): void {
  const now = nowMs(ctx);
  out.nonces = {
    edit_ticket_nonce: createNonce(ctx, 'edit_ticket_nonce', t.id, now),
    remove_ticket_nonce: createNonce(ctx, 'remove_ticket_nonce', t.id, now),
  };
}
