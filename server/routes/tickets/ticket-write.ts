import { isLocalDateTime } from '../../../shared/dates.ts';
import { DEFAULT_CURRENCY, isCurrencyCode, parsePrice } from '../../../shared/money.ts';
import type { Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { verifyNonce } from '../../auth/nonces.ts';
import { assertMayChangeEvent } from '../../security/ownership.ts';
import { localToUtcString, nowDates } from '../../content/site-time.ts';
import { getPost, updatePost, type PostWrite } from '../../db/repos/posts.ts';
import { eventTimezoneOf, type Provider, type TicketCols, type TicketRow } from '../../db/repos/tickets.ts';
import { normalTime } from './ticket-present.ts';
import { nowMs } from './clock.ts';

/** Editor ticket fields as the routes parse them (`shared/routes/tickets.ts` ticketFields). */
export interface TicketInput {
  name?: string;
  description?: string;
  price?: string;
  show_description?: string;
  start_date?: string;
  start_time?: string;
  end_date?: string;
  end_time?: string;
  sku?: string;
  iac?: string;
  ticket?: Record<string, unknown>;
  currency?: string;
  translation_language?: string;
}

export const invalidNonce = () => new HttpError(403, 'forbidden', 'Invalid nonce');

/**
 * The editor routes' permission (Event Tickets checks it in the handler, after validation): the post exists,
 * the caller may edit tickets, and the nonce verifies for this caller, action and object. An organizer changes
 * only the tickets of events it authored (CONTRACT section 3): on another's event the answer is
 * `403 rest_forbidden` whatever the nonce, so the refusal is the same with or without one.
 */
export async function requireEditorNonce(ctx: Ctx, postId: number, nonce: unknown, action: string, object: number): Promise<void> {
  const post = await getPost(ctx.db, postId);
  if (post?.type !== 'event' || post.status === 'trash') throw invalidNonce();
  if (!can(ctx, 'edit_tickets')) throw invalidNonce();
  await assertMayChangeEvent(ctx, postId);
  if (!verifyNonce(ctx, nonce, action, object, nowMs(ctx))) throw invalidNonce();
}

/** `rsvp`, `tc`, or the original's provider class names. */
export function providerOf(value: string | undefined): Provider | null {
  const v = (value ?? '').trim();
  if (v === 'rsvp' || v === 'Tribe__Tickets__RSVP') return 'rsvp';
  if (v === 'tc' || v === 'TEC\\Tickets\\Commerce\\Module' || v === 'TEC\\Tickets\\Commerce') return 'tc';
  return null;
}

/** Which fields the request really sent (the route fills defaults for the rest). */
export const sent = (ctx: Ctx, key: string) => ctx.req.params[key] !== undefined;

function capacityOf(ticket: Record<string, unknown> | undefined): number | undefined {
  if (!ticket || !('capacity' in ticket)) return undefined;
  const raw = ticket.capacity;
  if (raw === '' || raw === null || raw === -1 || raw === '-1') return -1;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw invalidParam('ticket', 'ticket[capacity] must be a whole number, or -1 or empty for unlimited.');
  return n;
}

function saleBound(eventTz: string, date: string, time: string, which: 'start' | 'end'): { date: string; time: string; utc: string } {
  if (!date) return { date: '', time: '', utc: '' };
  const t = time ? normalTime(time) : '';
  const param = which === 'start' ? 'start_date' : 'end_date';
  if (time && !/^\d{1,2}:\d{2}(:\d{2})?$/.test(time)) throw invalidParam(which === 'start' ? 'start_time' : 'end_time');
  const local = `${date} ${t || (which === 'start' ? '00:00:00' : '23:59:59')}`;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !isLocalDateTime(local)) throw invalidParam(param);
  return { date, time: t, utc: localToUtcString(local, eventTz) };
}

async function eventTimezone(ctx: Ctx, eventId: number): Promise<string> {
  return (await eventTimezoneOf(ctx.db, eventId)) || ctx.app.config.timezone;
}

/**
 * Ticket columns from editor input. On update only the fields the request sent change; on create every
 * field applies with its default. Price errors are Event Tickets' `tec-tickets-rest-invalid_price`.
 */
export async function ticketColsFrom(
  ctx: Ctx,
  f: TicketInput,
  eventId: number,
  provider: Provider,
  existing?: TicketRow,
): Promise<Partial<TicketCols>> {
  const has = (k: keyof TicketInput) => !existing || sent(ctx, k);
  // A field the update did not send keeps its stored value (the route fills unsent ones with '').
  const value = (k: 'start_date' | 'start_time' | 'end_date' | 'end_time') => (has(k) ? (f[k] ?? '') : existing![k]);
  const cols: Partial<TicketCols> = {};
  let currency = existing?.currency ?? DEFAULT_CURRENCY;
  if (f.currency !== undefined && has('currency')) {
    if (!isCurrencyCode(f.currency)) throw invalidParam('currency', 'currency must be a 3-letter code.');
    currency = f.currency.toUpperCase();
    cols.currency = currency;
  } else if (!existing) cols.currency = currency;
  if (provider === 'rsvp') cols.price_minor = 0;
  else if (has('price') || has('currency')) {
    const price = has('price') ? (f.price ?? '') : null;
    const minor = price === null ? existing!.price_minor : parsePrice(price, currency);
    if (minor === null) throw new HttpError(400, 'tec-tickets-rest-invalid_price', 'Invalid price');
    cols.price_minor = minor;
  }
  const capacity = capacityOf(f.ticket);
  if (capacity !== undefined) cols.capacity = capacity;
  else if (!existing) cols.capacity = -1;
  if (has('show_description')) cols.show_description = f.show_description === 'no' ? 0 : 1;
  if (has('sku')) cols.sku = (f.sku ?? '').trim();
  if (has('iac')) cols.iac = ['none', 'allowed', 'required'].includes(f.iac ?? '') ? f.iac! : 'none';
  const tz = await eventTimezone(ctx, eventId);
  if (has('start_date') || has('start_time')) {
    const s = saleBound(tz, value('start_date'), value('start_time'), 'start');
    Object.assign(cols, { start_date: s.date, start_time: s.time, available_from_utc: s.utc });
  }
  if (has('end_date') || has('end_time')) {
    const e = saleBound(tz, value('end_date'), value('end_time'), 'end');
    Object.assign(cols, { end_date: e.date, end_time: e.time, available_until_utc: e.utc });
  }
  const from = cols.available_from_utc ?? existing?.available_from_utc ?? '';
  const until = cols.available_until_utc ?? existing?.available_until_utc ?? '';
  if (from && until && until < from) throw invalidParam('end_date', 'The sale cannot end before it starts.');
  return cols;
}

/** Title and description of a ticket post: with `translation_language=et` the Estonian texts. */
export function ticketPostFields(ctx: Ctx, f: TicketInput, existing?: TicketRow): PostWrite {
  const et = f.translation_language === 'et';
  const out: PostWrite = {};
  const has = (k: keyof TicketInput) => !existing || sent(ctx, k);
  if (has('name')) {
    const name = (f.name ?? '').trim();
    if (et) out.title_et = name;
    if (!et || !existing) out.title = name;
  }
  if (has('description')) {
    const d = f.description ?? '';
    if (et) out.content_et = d;
    if (!et || !existing) out.content = d;
  }
  return out;
}

/** Touches the ticket's modified dates. */
export async function touchTicket(ctx: Ctx, id: number, fields: PostWrite): Promise<void> {
  const now = nowDates(ctx.app.config.timezone, new Date(nowMs(ctx)));
  await updatePost(ctx.db, id, { ...fields, modified: now.date, modified_gmt: now.date_gmt });
}
