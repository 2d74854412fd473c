import { dateDetails, tzAbbreviation, zonedToInstant } from '../../../shared/dates.ts';
import { getAttachments } from '../../db/repos/attachments.ts';
import type { EventRow } from '../../db/repos/events.ts';
import { type LinkRow, organizerLinks, venueLinks } from '../../db/repos/events.ts';
import { getLinkedRows } from '../../db/repos/linked.ts';
import { type TermRow, termsOfPosts } from '../../db/repos/terms.ts';
import { publishedTicketPrices, type TicketPrice } from '../../db/repos/tickets.ts';
import { autop, dropEmpty } from '../../content/text.ts';
import type { Ctx } from '../../kernel/context.ts';
import { hooks, type EventDecorator, type PresentOpts } from '../../kernel/hooks.ts';
import { restCost } from './cost.ts';
import { presentOrganizer, presentVenue } from './present-linked.ts';
import { contentOf, excerptText, globalId, imageObject, ldDescription, NS, permalink, titleOf } from './present-post.ts';
import { TAXONOMY } from '../../domain/events/taxonomy.ts';
import { embeddedTerm } from './present-term.ts';

/** A linked post's own JSON-LD (presented for single reads), to embed in an event's. */
function embeddedLd(presented: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return presented?.json_ld as Record<string, unknown> | undefined;
}

export function eventDecorators(ctx: Ctx): EventDecorator[] {
  return hooks(ctx.app).eventDecorators;
}

/**
 * Fields a password-protected event shows in an archive to a caller without the password (administrators too,
 * as in the original; `attendance` counts become the string "null" there).
 */
export function blankProtected(e: Record<string, unknown>): void {
  Object.assign(e, {
    description: '',
    excerpt: '',
    image: false,
    all_day: null,
    cost: '',
    cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
    website: '',
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    custom_fields: [],
  });
  // (A copy of a kept event holds these keys unset, see DECORATED in present-cache.ts.)
  if (e.ticketed !== undefined) e.ticketed = null;
  if (e.attendance !== undefined) e.attendance = { total_attendees: 'null', checked_in: 'null', not_checked_in: 'null' };
}
/** The published tickets of each event, by ID, for the cost (ET adds their prices to it) and JSON-LD offers. */
async function ticketPrices(ctx: Ctx, ids: readonly number[]): Promise<Map<number, TicketPrice[]>> {
  const out = new Map<number, TicketPrice[]>();
  if (!ids.length) return out;
  for (const t of await publishedTicketPrices(ctx.db, ids)) {
    const list = out.get(t.event_id);
    if (list) list.push(t);
    else out.set(t.event_id, [t]);
  }
  return out;
}

/** A stored UTC date-time (`YYYY-MM-DD HH:MM:SS`) as JSON-LD writes it: `YYYY-MM-DDTHH:MM:SS+00:00`. */
function ldTime(utc: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(utc) ? `${utc.replace(' ', 'T')}+00:00` : undefined;
}
/** What presenting events reads by their IDs alone, before their rows are known: ticket prices, links, terms. */
export interface ByIds {
  tickets: Map<number, TicketPrice[]>;
  vLinks: LinkRow[];
  oLinks: LinkRow[];
  terms: (TermRow & { post_id: number })[];
}

/**
 * The reads of `ids` that need no row, started together: inside Db.together (PostgreSQL) they go in one round
 * trip, and a single read starts them before its event's row has come back (present-cache.ts prefetchEvent).
 */
export async function readByIds(ctx: Ctx, ids: readonly number[]): Promise<ByIds> {
  const [tickets, vLinks, oLinks, terms] = await Promise.all([
    ticketPrices(ctx, ids),
    venueLinks(ctx.db, ids),
    organizerLinks(ctx.db, ids),
    termsOfPosts(ctx.db, ids),
  ]);
  return { tickets, vLinks, oLinks, terms };
}

/**
 * Presents events afresh (nothing kept): their venues, organizers, terms, images and ticket prices read with a
 * fixed number of queries, whatever the number of events, started together where one does not need another's
 * answer (three round trips on PostgreSQL inside Db.together at most: what needs only the IDs, or `early`, the
 * same read started before the rows came; the venues and organizers; the images). The decorators are the
 * caller's to run.
 */
export async function presentFresh(ctx: Ctx, rows: EventRow[], opts: PresentOpts, early?: Promise<ByIds>): Promise<Record<string, unknown>[]> {
  const ids = rows.map((r) => r.id);
  const { tickets, vLinks, oLinks, terms: termRows } = await (early ?? readByIds(ctx, ids));
  const venueIds = [...new Set(vLinks.map((l) => l.linked_id))];
  const organizerIds = [...new Set(oLinks.map((l) => l.linked_id))];
  // The events' own images are read with the venues and organizers; theirs, if any, after them.
  const own = new Set(rows.map((r) => r.image_id).filter(Boolean));
  const [venueRows, organizerRows, ownImages] = await Promise.all([
    getLinkedRows(ctx.db, 'venue', venueIds),
    getLinkedRows(ctx.db, 'organizer', organizerIds),
    getAttachments(ctx.db, [...own]),
  ]);
  const linkedImages = [...new Set([...venueRows, ...organizerRows].map((r) => r.image_id).filter((id) => id && !own.has(id)))];
  const images = linkedImages.length ? new Map([...ownImages, ...(await getAttachments(ctx.db, linkedImages))]) : ownImages;
  const venues = new Map(venueRows.map((v) => [v.id, presentVenue(ctx, v, images, opts)]));
  const organizers = new Map(organizerRows.map((o) => [o.id, presentOrganizer(ctx, o, images, opts)]));
  // A term shared by many events of the page is presented once.
  const embedded = new Map<number, Record<string, unknown>>();
  const terms = new Map<number, { categories: Record<string, unknown>[]; tags: Record<string, unknown>[] }>();
  for (const t of termRows) {
    let e = embedded.get(t.id);
    if (!e) embedded.set(t.id, (e = embeddedTerm(ctx, t)));
    let lists = terms.get(t.post_id);
    if (!lists) terms.set(t.post_id, (lists = { categories: [], tags: [] }));
    if (t.taxonomy === TAXONOMY.categories) lists.categories.push(e);
    else if (t.taxonomy === TAXONOMY.tags) lists.tags.push(e);
  }
  const group = (links: { event_id: number; linked_id: number }[]) => {
    const m = new Map<number, number[]>();
    for (const l of links) {
      const list = m.get(l.event_id);
      if (list) list.push(l.linked_id);
      else m.set(l.event_id, [l.linked_id]);
    }
    return m;
  };
  const vBy = group(vLinks);
  const oBy = group(oLinks);
  const out = rows.map((r) => {
    const eventVenues = (vBy.get(r.id) ?? []).map((id) => venues.get(id)).filter((v): v is Record<string, unknown> => !!v);
    const eventOrganizers = (oBy.get(r.id) ?? []).map((id) => organizers.get(id)).filter((o): o is Record<string, unknown> => !!o);
    const postTerms = terms.get(r.id);
    const tz = r.timezone || ctx.app.config.timezone;
    const start = zonedToInstant(r.start_local, tz);
    const eventTickets = tickets.get(r.id) ?? [];
    const cost = restCost(
      r.cost,
      r.currency_symbol,
      r.currency_position,
      r.currency_code,
      eventTickets.map((t) => t.price_minor / 100),
    );
    const url = permalink(ctx, 'event', r);
    const gid = globalId(ctx, r.id);
    const e: Record<string, unknown> = {
      id: r.id,
      global_id: gid,
      global_id_lineage: [gid],
      author: String(r.author),
      status: r.status,
      date: r.date,
      date_utc: r.date_gmt,
      modified: r.modified,
      modified_utc: r.modified_gmt,
      url,
      rest_url: ctx.urls.rest(`${NS}/events/${r.id}`),
      title: titleOf(ctx, r),
      description: autop(contentOf(ctx, r)),
      excerpt: excerptText(ctx, r),
      slug: r.slug,
      image: imageObject(images.get(r.image_id)),
      all_day: r.all_day === 1,
      start_date: r.start_local,
      start_date_details: dateDetails(r.start_local),
      end_date: r.end_local,
      end_date_details: dateDetails(r.end_local),
      utc_start_date: r.start_utc,
      utc_start_date_details: dateDetails(r.start_utc),
      utc_end_date: r.end_utc,
      utc_end_date_details: dateDetails(r.end_utc),
      timezone: r.timezone,
      timezone_abbr: tzAbbreviation(tz, start),
      cost: cost.text,
      cost_details: cost.details,
      website: r.website || url,
      // TEC stores no map flags for an event created without them: false (venues default to true).
      show_map: r.show_map === 1,
      show_map_link: r.show_map_link === 1,
      hide_from_listings: r.hide_from_listings === 1,
      sticky: r.menu_order === -1,
      featured: r.featured === 1,
      categories: postTerms?.categories ?? [],
      tags: postTerms?.tags ?? [],
      venue: eventVenues.length === 1 ? eventVenues[0] : eventVenues,
      organizer: eventOrganizers,
      custom_fields: [],
    };
    if (opts.single && !r.password) {
      const vIds = vBy.get(r.id) ?? [];
      const oIds = oBy.get(r.id) ?? [];
      const startLd = start.toISOString().replace('.000Z', '+00:00');
      // ET lists one offer per ticket; TEC alone, one offer for the cost.
      const offers = eventTickets.length
        ? eventTickets.map((t) =>
            dropEmpty(
              {
                '@type': 'Offer',
                url: e.url,
                price: String(t.price_minor / 100),
                category: 'primary',
                availability: 'InStock',
                priceCurrency: t.currency || r.currency_code || 'USD',
                validFrom: ldTime(t.available_from_utc) ?? ldTime(r.date_gmt),
                validThrough: ldTime(t.available_until_utc) ?? startLd,
              },
              ['price'],
            ),
          )
        : cost.details.values.length
          ? {
              '@type': 'Offer',
              price: cost.details.values[0],
              priceCurrency: r.currency_code || 'USD',
              url: e.url,
              category: 'primary',
              availability: 'inStock',
              validFrom: ldTime(r.date_gmt),
            }
          : undefined;
      const ld: Record<string, unknown> = {
        '@context': 'http://schema.org',
        '@type': 'Event',
        name: e.title,
        description: ldDescription(ctx, r),
      };
      const image = images.get(r.image_id)?.url;
      if (image) ld.image = image;
      ld.url = e.url;
      if (offers) ld.offers = offers;
      ld.eventAttendanceMode = 'https://schema.org/OfflineEventAttendanceMode';
      ld.eventStatus = 'https://schema.org/EventScheduled';
      ld.startDate = startLd;
      ld.endDate = zonedToInstant(r.end_local, tz).toISOString().replace('.000Z', '+00:00');
      const location = vIds.length ? embeddedLd(venues.get(vIds[0])) : undefined;
      if (location) ld.location = location;
      const organizer = oIds.length ? embeddedLd(organizers.get(oIds[0])) : undefined;
      if (organizer) ld.organizer = organizer;
      ld.performer = 'Organization';
      e.json_ld = ld;
    }
    return e;
  });
  return out;
}
