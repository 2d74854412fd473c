import { addDays, formatInZone, zonedToInstant } from '../../../shared/dates.ts';
import type { Db } from '../../db/connection.ts';
import type { Lang } from '../../kernel/context.ts';
import { nowUtc } from '../../db/clock.ts';
import { excerptOf, pick, stripTags } from '../../content/text.ts';
import { eventDatesHtml, loadEvents, publicEvents, upcomingFilter, type EventView } from '../content.ts';
import { esc } from '../html.ts';
import { postPermalink } from '../posts.ts';
import { viewUrl, type ViewState } from './state.ts';

export interface ViewEnv {
  db: Db;
  base: string;
  lang: Lang;
  /** Language segment the links keep. */
  segment: Lang | null;
  timezone: string;
  /** REST URL of the `/html` endpoint, for the container's data attribute. */
  restUrl: string;
  shouldManageUrl: boolean;
}

/** TEC's default "events per page". */
export const LIST_PER_PAGE = 12;
/** WordPress `start_of_week` default: Monday. */
const START_OF_WEEK = 1;
const MONTH_EVENT_CAP = 500;

const L = {
  en: {
    upcoming: 'Upcoming Events',
    prev: 'Previous Events',
    next: 'Next Events',
    none: 'There are no upcoming events.',
    prevMonth: 'Previous month',
    nextMonth: 'Next month',
    more: 'more',
    results: 'Search results for',
    calendar: 'Calendar of events',
  },
  et: {
    upcoming: 'Tulevased üritused',
    prev: 'Eelmised üritused',
    next: 'Järgmised üritused',
    none: 'Tulevasi üritusi ei ole.',
    prevMonth: 'Eelmine kuu',
    nextMonth: 'Järgmine kuu',
    more: 'veel',
    results: 'Otsingu tulemused:',
    calendar: 'Ürituste kalender',
  },
} as const;

/** JSON inside a <script> element: no `<`, `>`, `&` or line separators can end or break out of it. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function title(env: ViewEnv, p: { title: string; title_et: string | null }): string {
  return pick(env.lang, p.title, p.title_et);
}

function container(env: ViewEnv, s: ViewState, inner: string, data: { title: string; prev?: ViewState; next?: ViewState }): string {
  const url = viewUrl(env.base, s);
  const viewData = {
    slug: s.view,
    url,
    prev_url: data.prev ? viewUrl(env.base, data.prev) : '',
    next_url: data.next ? viewUrl(env.base, data.next) : '',
    view_class: s.view === 'list' ? 'Tribe\\Events\\Views\\V2\\Views\\List_View' : 'Tribe\\Events\\Views\\V2\\Views\\Month_View',
    title: data.title,
    should_manage_url: env.shouldManageUrl,
    'tribe-bar-date': s.date ?? '',
    'tribe-bar-search': s.search ?? '',
  };
  return (
    `<div class="tribe-common tribe-events tribe-events-view tribe-events-view--${s.view}" data-js="tribe-events-view" ` +
    `data-view-rest-url="${esc(env.restUrl)}" data-view-rest-method="POST" data-view-manage-url="${env.shouldManageUrl ? 1 : 0}">\n` +
    `<script type="application/json" data-js="tribe-events-view-data">${scriptJson(viewData)}</script>\n${inner}\n</div>\n`
  );
}

function navLink(env: ViewEnv, s: ViewState | undefined, rel: 'prev' | 'next', label: string): string {
  if (!s) return '';
  return `<a rel="${rel}" href="${esc(viewUrl(env.base, s))}" class="tribe-events-c-nav__${rel}" data-js="tribe-events-view-link">${esc(label)}</a>`;
}

function listItem(env: ViewEnv, ev: EventView): string {
  const r = ev.row;
  const venue = ev.venues[0] ? `<address class="tribe-events-calendar-list__event-venue">${esc(title(env, ev.venues[0]))}</address>` : '';
  const excerpt = stripTags(excerptOf(pick(env.lang, r.excerpt, r.excerpt_et), pick(env.lang, r.content, r.content_et)))
    .replace(/\[&hellip;\]/g, '…')
    .trim();
  return (
    `<li class="tribe-events-calendar-list__event-row"><article class="tribe-events-calendar-list__event">` +
    `<p class="tribe-events-calendar-list__event-datetime">${eventDatesHtml(env.lang, r)}</p>` +
    `<h3 class="tribe-events-calendar-list__event-title"><a href="${esc(postPermalink(env.base, env.segment, r))}" class="tribe-events-calendar-list__event-title-link">${esc(title(env, r))}</a></h3>` +
    venue +
    (excerpt ? `<div class="tribe-events-calendar-list__event-description"><p>${esc(excerpt)}</p></div>` : '') +
    `</article></li>`
  );
}

/** The list view: upcoming public events from the chosen day, 12 per page, with previous/next links. */
export async function renderList(env: ViewEnv, s: ViewState): Promise<string> {
  const l = L[env.lang];
  const from = s.date ? nowUtc(zonedToInstant(`${s.date} 00:00:00`, env.timezone)) : upcomingFilter();
  const { ids, total } = await publicEvents(env.db, {
    endsAfter: from,
    search: s.search,
    limit: LIST_PER_PAGE,
    offset: (s.page - 1) * LIST_PER_PAGE,
  });
  const pages = Math.max(1, Math.ceil(total / LIST_PER_PAGE));
  const prev = s.page > 1 ? { ...s, page: s.page - 1 } : undefined;
  const next = s.page < pages ? { ...s, page: s.page + 1 } : undefined;
  const heading = s.search ? `${l.results} ${s.search}` : l.upcoming;
  const items = ids.length
    ? `<ul class="tribe-events-calendar-list">${(await loadEvents(env.db, ids)).map((e) => listItem(env, e)).join('')}</ul>`
    : `<p class="tribe-events-c-messages__message">${l.none}</p>`;
  const nav =
    prev || next
      ? `<nav class="tribe-events-calendar-list-nav tribe-events-c-nav">${navLink(env, prev, 'prev', l.prev)} ${navLink(env, next, 'next', l.next)}</nav>`
      : '';
  return container(
    env,
    s,
    `<header class="tribe-events-header"><h2 class="tribe-events-header__title">${esc(heading)}</h2></header>\n${items}\n${nav}`,
    { title: heading, prev, next },
  );
}

function monthShift(month: string, n: number): string {
  let [y, m] = month.split('-').map(Number);
  m += n;
  while (m > 12) [y, m] = [y + 1, m - 12];
  while (m < 1) [y, m] = [y - 1, m + 12];
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
}

const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
const shiftDay = (day: string, n: number) => addDays(`${day} 00:00:00`, n).slice(0, 10);

/** The month view: a week-per-row grid (weeks start on Monday); each event is listed on every day it covers. */
export async function renderMonth(env: ViewEnv, s: ViewState): Promise<string> {
  const l = L[env.lang];
  const month = s.date ?? formatInZone(new Date(), env.timezone).slice(0, 7);
  const first = `${month}-01`;
  const gridStart = shiftDay(first, -((weekday(first) - START_OF_WEEK + 7) % 7));
  const nextFirst = `${monthShift(month, 1)}-01`;
  const last = shiftDay(nextFirst, -1);
  const gridEnd = shiftDay(last, (START_OF_WEEK + 6 - weekday(last) + 7) % 7);
  // Query a day wider on both sides in UTC; days are then assigned by each event's own wall-clock dates.
  const { ids } = await publicEvents(env.db, {
    endsAfter: nowUtc(zonedToInstant(`${shiftDay(gridStart, -1)} 00:00:00`, env.timezone)),
    startsBefore: nowUtc(zonedToInstant(`${shiftDay(gridEnd, 2)} 00:00:00`, env.timezone)),
    search: s.search,
    limit: MONTH_EVENT_CAP,
    offset: 0,
  });
  const events = await loadEvents(env.db, ids);
  const fmtDay = new Intl.DateTimeFormat(env.lang, { day: 'numeric', timeZone: 'UTC' });
  const fmtMonth = new Intl.DateTimeFormat(env.lang, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  const fmtWeekday = new Intl.DateTimeFormat(env.lang, { weekday: 'short', timeZone: 'UTC' });
  const heads: string[] = [];
  for (let i = 0; i < 7; i++) heads.push(`<th scope="col">${esc(fmtWeekday.format(new Date(`${shiftDay(gridStart, i)}T00:00:00Z`)))}</th>`);
  const rows: string[] = [];
  for (let weekStart = gridStart; weekStart <= gridEnd; weekStart = shiftDay(weekStart, 7)) {
    const cells: string[] = [];
    for (let i = 0; i < 7; i++) {
      const day = shiftDay(weekStart, i);
      const onDay = events.filter((e) => e.row.start_local.slice(0, 10) <= day && e.row.end_local.slice(0, 10) >= day);
      const list = onDay.length
        ? `<ul>${onDay.map((e) => `<li class="tribe-events-calendar-month__calendar-event"><a href="${esc(postPermalink(env.base, env.segment, e.row))}">${esc(title(env, e.row))}</a></li>`).join('')}</ul>`
        : '';
      const cls = `tribe-events-calendar-month__day${day.slice(0, 7) !== month ? ' tribe-events-calendar-month__day--other-month' : ''}`;
      cells.push(`<td class="${cls}"><time datetime="${day}">${esc(fmtDay.format(new Date(`${day}T00:00:00Z`)))}</time>${list}</td>`);
    }
    rows.push(`<tr>${cells.join('')}</tr>`);
  }
  const heading = fmtMonth.format(new Date(`${first}T00:00:00Z`));
  const prev = { ...s, page: 1, date: monthShift(month, -1) };
  const next = { ...s, page: 1, date: monthShift(month, 1) };
  const nav = `<nav class="tribe-events-calendar-month-nav tribe-events-c-nav">${navLink(env, prev, 'prev', l.prevMonth)} ${navLink(env, next, 'next', l.nextMonth)}</nav>`;
  const table = `<table class="tribe-events-calendar-month"><caption>${esc(l.calendar)}: ${esc(heading)}</caption><thead><tr>${heads.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return container(
    env,
    { ...s, date: month },
    `<header class="tribe-events-header"><h2 class="tribe-events-header__title">${esc(heading)}</h2></header>\n${table}\n${nav}`,
    { title: heading, prev, next },
  );
}

export async function renderView(env: ViewEnv, s: ViewState): Promise<string> {
  return s.view === 'month' ? await renderMonth(env, s) : await renderList(env, s);
}
