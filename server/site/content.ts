import type { Db } from '../db/connection.ts';
import type { Lang } from '../kernel/context.ts';
import { getEventRows, organizerLinks, venueLinks, type EventRow } from '../db/repos/events.ts';
import { getLinkedRows, type OrganizerRow, type VenueRow } from '../db/repos/linked.ts';
import { queryEvents, unprotectedCondition } from '../db/repos/event-query.ts';
import { nowUtc } from '../db/clock.ts';
import { formatCost } from '../routes/events/cost.ts';
import { esc } from './html.ts';
import { isPublicPost } from './posts.ts';

/** An event with the public venues and organizers linked to it. */
export interface EventView {
  row: EventRow;
  venues: VenueRow[];
  organizers: OrganizerRow[];
}

/** Loads events with their public venues and organizers in four queries, whatever the number of events. */
export async function loadEvents(db: Db, ids: number[]): Promise<EventView[]> {
  const rows = await getEventRows(db, ids);
  const vl = await venueLinks(db, ids);
  const ol = await organizerLinks(db, ids);
  const venues = new Map((await getLinkedRows(db, 'venue', [...new Set(vl.map((l) => l.linked_id))])).filter(isPublicPost).map((v) => [v.id, v]));
  const organizers = new Map(
    (await getLinkedRows(db, 'organizer', [...new Set(ol.map((l) => l.linked_id))])).filter(isPublicPost).map((o) => [o.id, o]),
  );
  return rows.map((row) => ({
    row,
    venues: vl
      .filter((l) => l.event_id === row.id)
      .map((l) => venues.get(l.linked_id))
      .filter((v): v is VenueRow => !!v),
    organizers: ol
      .filter((l) => l.event_id === row.id)
      .map((l) => organizers.get(l.linked_id))
      .filter((o): o is OrganizerRow => !!o),
  }));
}

export interface ListQuery {
  /** Only events ending at or after this UTC instant ('YYYY-MM-DD HH:MM:SS'). */
  endsAfter?: string;
  /** Only events starting before this UTC instant. */
  startsBefore?: string;
  venueId?: number;
  organizerId?: number;
  search?: string;
  limit: number;
  offset: number;
}

/** Public events in start order: published, unprotected, not hidden from listings. */
export async function publicEvents(db: Db, q: ListQuery): Promise<{ ids: number[]; total: number }> {
  return await queryEvents(db, {
    statuses: ['publish'],
    endsAfter: q.endsAfter,
    startsBefore: q.startsBefore,
    venueIds: q.venueId ? [q.venueId] : undefined,
    organizerIds: q.organizerId ? [q.organizerId] : undefined,
    search: q.search || undefined,
    excludeHidden: true,
    extra: [unprotectedCondition()],
    limit: q.limit,
    offset: q.offset,
  });
}

/** Upcoming: not yet over. */
export function upcomingFilter(now = new Date()): string {
  // endsAfter is strict; one second earlier keeps an event that ends exactly now.
  return nowUtc(new Date(now.getTime() - 1000));
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function fmt(lang: Lang, withTime: boolean): Intl.DateTimeFormat {
  const key = `${lang}|${withTime}`;
  let f = formatters.get(key);
  if (!f)
    formatters.set(
      key,
      (f = new Intl.DateTimeFormat(
        lang,
        withTime ? { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' } : { dateStyle: 'long', timeZone: 'UTC' },
      )),
    );
  return f;
}

function localDate(local: string): Date {
  const [d, t = '00:00:00'] = local.split(' ');
  return new Date(`${d}T${t}Z`);
}

/** "December 1, 2026 at 7:00 PM – 10:00 PM" in the event's wall-clock time, as <time> elements. */
export function eventDatesHtml(lang: Lang, e: EventRow): string {
  const allDay = e.all_day === 1;
  const start = localDate(e.start_local);
  const end = localDate(e.end_local);
  const sameDay = e.start_local.slice(0, 10) === e.end_local.slice(0, 10);
  const startText = fmt(lang, !allDay).format(start);
  let endText: string;
  if (allDay) endText = sameDay ? '' : fmt(lang, false).format(end);
  else endText = sameDay ? new Intl.DateTimeFormat(lang, { timeStyle: 'short', timeZone: 'UTC' }).format(end) : fmt(lang, true).format(end);
  const tz = e.timezone ? ` <span class="tz">(${esc(e.timezone)})</span>` : '';
  const startEl = `<time datetime="${esc(e.start_local.replace(' ', 'T'))}">${esc(startText)}</time>`;
  if (!endText) return startEl + tz;
  return `${startEl} &#8211; <time datetime="${esc(e.end_local.replace(' ', 'T'))}">${esc(endText)}</time>${allDay ? '' : tz}`;
}

export function costText(e: EventRow): string {
  return formatCost(e.cost, e.currency_symbol, e.currency_position, e.currency_code).text;
}
