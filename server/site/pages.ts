import type { Db } from '../db/connection.ts';
import type { Lang } from '../kernel/context.ts';
import type { PostRow } from '../db/repos/posts.ts';
import type { OrganizerRow, VenueRow } from '../db/repos/linked.ts';
import { excerptOf, pick, stripTags } from '../content/text.ts';
import { costText, eventDatesHtml, loadEvents, publicEvents, upcomingFilter, type EventView } from './content.ts';
import { esc, safeUrl, textParagraphs } from './html.ts';
import { page } from './layout.ts';
import { postPermalink, siteUrl } from './posts.ts';

/** Everything a page renderer needs about the request. */
export interface PageEnv {
  db: Db;
  base: string;
  /** The URL's language segment (links keep it). */
  segment: Lang | null;
  lang: Lang;
  siteName: string;
}

const L = {
  en: {
    venue: 'Venue',
    organizers: 'Organizers',
    cost: 'Cost',
    upcoming: 'Upcoming events',
    none: 'There are no upcoming events.',
    phone: 'Phone',
    email: 'Email',
    website: 'Website',
    prev: 'Previous events',
    next: 'More events',
    pages: 'Pages',
    notFound: 'Not found',
    notFoundText: 'Nothing public lives at this address.',
    events: 'Events',
  },
  et: {
    venue: 'Toimumiskoht',
    organizers: 'Korraldajad',
    cost: 'Hind',
    upcoming: 'Tulevased üritused',
    none: 'Tulevasi üritusi ei ole.',
    phone: 'Telefon',
    email: 'E-post',
    website: 'Veebileht',
    prev: 'Eelmised',
    next: 'Järgmised',
    pages: 'Lehed',
    notFound: 'Ei leitud',
    notFoundText: 'Sellel aadressil pole midagi avalikku.',
    events: 'Üritused',
  },
} as const;

const title = (env: PageEnv, p: PostRow) => pick(env.lang, p.title, p.title_et);
const content = (env: PageEnv, p: PostRow) => pick(env.lang, p.content, p.content_et);
const link = (env: PageEnv, p: PostRow) => postPermalink(env.base, env.segment, p);

function venueAddress(v: VenueRow): string {
  return [v.address, v.city, v.stateprovince || v.state || v.province, v.zip, v.country].filter(Boolean).map(esc).join(', ');
}

/** One event in a list: linked title, dates, venue. */
export function eventItem(env: PageEnv, ev: EventView, headingLevel = 2): string {
  const h = `h${headingLevel}`;
  const venue = ev.venues[0] ? `<p class="venue">${esc(title(env, ev.venues[0]))}</p>` : '';
  return `<li class="event"><article><${h}><a href="${esc(link(env, ev.row))}">${esc(title(env, ev.row))}</a></${h}><p class="dates">${eventDatesHtml(env.lang, ev.row)}</p>${venue}</article></li>`;
}

async function eventList(env: PageEnv, ids: number[], headingLevel = 2): Promise<string> {
  const l = L[env.lang];
  if (!ids.length) return `<p>${l.none}</p>`;
  return `<ul class="events">${(await loadEvents(env.db, ids)).map((e) => eventItem(env, e, headingLevel)).join('')}</ul>`;
}

function contactList(env: PageEnv, fields: { phone?: string; email?: string; website?: string }): string {
  const l = L[env.lang];
  const items: string[] = [];
  if (fields.phone) items.push(`<dt>${l.phone}</dt><dd>${esc(fields.phone)}</dd>`);
  if (fields.email) items.push(`<dt>${l.email}</dt><dd>${esc(fields.email)}</dd>`);
  if (fields.website && safeUrl(fields.website) !== '#')
    items.push(`<dt>${l.website}</dt><dd><a href="${esc(safeUrl(fields.website))}" rel="nofollow noopener">${esc(fields.website)}</a></dd>`);
  return items.length ? `<dl class="contact">${items.join('')}</dl>` : '';
}

export function eventPage(env: PageEnv, ev: EventView): string {
  const l = L[env.lang];
  const r = ev.row;
  const parts = [`<article class="event"><h1>${esc(title(env, r))}</h1>`, `<p class="dates">${eventDatesHtml(env.lang, r)}</p>`];
  const cost = costText(r);
  if (cost) parts.push(`<p class="cost"><span class="label">${l.cost}:</span> ${esc(cost)}</p>`);
  if (ev.venues.length) {
    const vs = ev.venues
      .map((v) => `<p><a href="${esc(link(env, v))}">${esc(title(env, v))}</a>${venueAddress(v) ? `<br>${venueAddress(v)}` : ''}</p>`)
      .join('');
    parts.push(`<section aria-labelledby="venue-h"><h2 id="venue-h">${l.venue}</h2>${vs}</section>`);
  }
  if (ev.organizers.length) {
    const os = ev.organizers.map((o) => `<li><a href="${esc(link(env, o))}">${esc(title(env, o))}</a></li>`).join('');
    parts.push(`<section aria-labelledby="organizers-h"><h2 id="organizers-h">${l.organizers}</h2><ul>${os}</ul></section>`);
  }
  const desc = textParagraphs(content(env, r));
  if (desc) parts.push(`<div class="description">${desc}</div>`);
  if (r.website && safeUrl(r.website) !== '#') parts.push(`<p><a href="${esc(safeUrl(r.website))}" rel="nofollow noopener">${l.website}</a></p>`);
  parts.push('</article>');
  const url = link(env, r);
  return page({
    base: env.base,
    lang: env.segment,
    contentLang: env.lang,
    siteName: env.siteName,
    title: title(env, r),
    body: parts.join('\n'),
    canonical: url,
    oembedFor: url,
  });
}

export async function linkedPage(env: PageEnv, kind: 'venue' | 'organizer', p: VenueRow | OrganizerRow): Promise<string> {
  const l = L[env.lang];
  const parts = [`<article class="${kind}"><h1>${esc(title(env, p))}</h1>`];
  if (kind === 'venue') {
    const addr = venueAddress(p as VenueRow);
    if (addr) parts.push(`<p class="address">${addr}</p>`);
    parts.push(contactList(env, { phone: (p as VenueRow).phone, website: (p as VenueRow).website }));
  } else {
    const o = p as OrganizerRow;
    parts.push(contactList(env, { phone: o.phone, email: o.email, website: o.website }));
  }
  const desc = textParagraphs(content(env, p));
  if (desc) parts.push(`<div class="description">${desc}</div>`);
  const ids = (
    await publicEvents(env.db, {
      endsAfter: upcomingFilter(),
      venueId: kind === 'venue' ? p.id : undefined,
      organizerId: kind === 'organizer' ? p.id : undefined,
      limit: 20,
      offset: 0,
    })
  ).ids;
  parts.push(`<section aria-labelledby="upcoming-h"><h2 id="upcoming-h">${l.upcoming}</h2>${await eventList(env, ids, 3)}</section></article>`);
  const url = link(env, p);
  return page({
    base: env.base,
    lang: env.segment,
    contentLang: env.lang,
    siteName: env.siteName,
    title: title(env, p),
    body: parts.join('\n'),
    canonical: url,
    oembedFor: url,
  });
}

/** The iframe content of an oEmbed: title, dates and excerpt, links opening in the top window via the script. */
export function embedPage(env: PageEnv, p: PostRow, ev?: EventView): string {
  const excerpt = stripTags(excerptOf(pick(env.lang, p.excerpt, p.excerpt_et), content(env, p))).replace(/\[&hellip;\]/g, '…');
  const parts = [
    `<article class="wp-embed"><p class="site">${esc(env.siteName)}</p>`,
    `<h1><a href="${esc(link(env, p))}" target="_top">${esc(title(env, p))}</a></h1>`,
  ];
  if (ev) {
    parts.push(`<p class="dates">${eventDatesHtml(env.lang, ev.row)}</p>`);
    if (ev.venues[0]) parts.push(`<p class="venue">${esc(title(env, ev.venues[0]))}</p>`);
  }
  if (excerpt.trim()) parts.push(`<p class="excerpt">${esc(excerpt.trim())}</p>`);
  parts.push('</article>');
  return page({
    base: env.base,
    lang: env.segment,
    contentLang: env.lang,
    siteName: env.siteName,
    title: title(env, p),
    body: parts.join('\n'),
    canonical: link(env, p),
    embed: true,
  });
}

export const LIST_PAGE_SIZE = 20;

export async function listPage(env: PageEnv, pageNo: number): Promise<{ html: string; found: boolean }> {
  const l = L[env.lang];
  const { ids, total } = await publicEvents(env.db, { endsAfter: upcomingFilter(), limit: LIST_PAGE_SIZE, offset: (pageNo - 1) * LIST_PAGE_SIZE });
  const pages = Math.max(1, Math.ceil(total / LIST_PAGE_SIZE));
  if (pageNo > pages) return { html: notFoundPage(env), found: false };
  const nav: string[] = [];
  const at = (n: number) => siteUrl(env.base, env.segment, n === 1 ? '/events/' : `/events/?page=${n}`);
  if (pageNo > 1) nav.push(`<a rel="prev" href="${esc(at(pageNo - 1))}">${l.prev}</a>`);
  if (pageNo < pages) nav.push(`<a rel="next" href="${esc(at(pageNo + 1))}">${l.next}</a>`);
  const body = `<h1>${l.upcoming}</h1>\n${await eventList(env, ids)}${nav.length ? `\n<nav aria-label="${l.pages}" class="pagination">${nav.join(' ')}</nav>` : ''}`;
  return {
    html: page({ base: env.base, lang: env.segment, contentLang: env.lang, siteName: env.siteName, title: l.events, body, canonical: at(pageNo) }),
    found: true,
  };
}

export function notFoundPage(env: PageEnv): string {
  const l = L[env.lang];
  return page({
    base: env.base,
    lang: env.segment,
    contentLang: env.lang,
    siteName: env.siteName,
    title: l.notFound,
    body: `<h1>${l.notFound}</h1><p>${l.notFoundText}</p>`,
  });
}
