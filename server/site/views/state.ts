import { isCalendarDate } from '../../../shared/routes/analytics.ts';
import type { Lang } from '../../kernel/context.ts';
import { splitLang } from '../posts.ts';

/**
 * The state of an events view (TEC Views v2): which view, which page or month, the search. It is read from the
 * view URL (`/events/list/page/2/`, `/events/month/2026-12/`, `?eventDisplay=month&eventDate=2026-12`) and
 * then from `view_data` (TEC's `tribe-bar-date`, `tribe-bar-search`, `eventDisplay`, `page`), which wins.
 */
export const VIEWS = ['list', 'month'] as const;
export type ViewName = (typeof VIEWS)[number];

export interface ViewState {
  view: ViewName;
  lang: Lang | null;
  /** List view page, from 1. */
  page: number;
  /** List: first day shown (YYYY-MM-DD); month: the month (YYYY-MM). Undefined means today / this month. */
  date?: string;
  search?: string;
}

export class ViewStateError extends Error {
  constructor(readonly param: string) {
    super(`invalid ${param}`);
  }
}

function isView(v: string): v is ViewName {
  return (VIEWS as readonly string[]).includes(v);
}

function isMonth(s: string): boolean {
  return /^\d{4}-\d{2}$/.test(s) && isCalendarDate(`${s}-01`);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

function applyDate(state: ViewState, raw: string, param: string): void {
  const d = raw.trim();
  if (!d) return;
  if (state.view === 'month') {
    if (isMonth(d)) state.date = d;
    else if (isCalendarDate(d)) state.date = d.slice(0, 7);
    else throw new ViewStateError(param);
  } else {
    if (isCalendarDate(d)) state.date = d;
    else if (isMonth(d)) state.date = `${d}-01`;
    else throw new ViewStateError(param);
  }
}

function applyPage(state: ViewState, raw: string, param: string): void {
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw new ViewStateError(param);
  state.page = Number(raw);
}

/** Reads the view state; throws ViewStateError naming the parameter at fault. */
export function readViewState(url: string, base: string, view: string | undefined, viewData: Record<string, unknown> | undefined): ViewState {
  let u: URL;
  try {
    u = new URL(url, `${base}/`);
  } catch {
    throw new ViewStateError('url');
  }
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  const path = u.pathname.startsWith(basePath) ? u.pathname.slice(basePath.length) || '/' : u.pathname;
  const { lang, rest } = splitLang(path);
  const state: ViewState = { view: 'list', lang, page: 1 };
  const m = /^\/events(?:\/(list|month)(?:\/(.*?))?)?\/?$/i.exec(rest);
  const q = u.searchParams;
  const display = viewData?.eventDisplay !== undefined ? str(viewData.eventDisplay) : (view ?? q.get('eventDisplay') ?? m?.[1]?.toLowerCase());
  if (display !== undefined) {
    if (!isView(display)) throw new ViewStateError(viewData?.eventDisplay !== undefined ? 'view_data' : view !== undefined ? 'view' : 'url');
    state.view = display;
  }
  // Path parts: `/events/list/page/2/`, `/events/month/2026-12/`.
  const tail = m?.[2] ?? '';
  if (m?.[1]?.toLowerCase() === 'list' && tail) {
    const p = /^page\/(\d+)$/.exec(tail);
    if (!p) throw new ViewStateError('url');
    applyPage(state, p[1], 'url');
  } else if (m?.[1]?.toLowerCase() === 'month' && tail) {
    applyDate(state, tail, 'url');
  }
  for (const key of ['paged', 'page']) if (q.has(key)) applyPage(state, q.get(key)!, 'url');
  for (const key of ['eventDate', 'tribe-bar-date']) if (q.has(key)) applyDate(state, q.get(key)!, 'url');
  if (q.has('tribe-bar-search')) state.search = q.get('tribe-bar-search')!.slice(0, 200);
  if (viewData) {
    const date = str(viewData['tribe-bar-date']);
    if (viewData['tribe-bar-date'] !== undefined && date === undefined) throw new ViewStateError('view_data');
    if (date !== undefined) applyDate(state, date, 'view_data');
    const page = str(viewData.page ?? viewData.paged);
    if (page !== undefined) applyPage(state, page, 'view_data');
    const search = str(viewData['tribe-bar-search']);
    if (search !== undefined) state.search = search.slice(0, 200);
  }
  if (state.search !== undefined && !state.search.trim()) state.search = undefined;
  return state;
}

/** The canonical view URL of a state (what TEC puts in `url`, `prev_url`, `next_url`). */
export function viewUrl(base: string, s: ViewState): string {
  const prefix = `${base}${s.lang ? `/${s.lang}` : ''}/events/${s.view}/`;
  const q = new URLSearchParams();
  let path = prefix;
  if (s.view === 'list') {
    if (s.page > 1) path += `page/${s.page}/`;
    if (s.date) q.set('tribe-bar-date', s.date);
  } else if (s.date) {
    path += `${s.date}/`;
  }
  if (s.search) q.set('tribe-bar-search', s.search);
  const qs = q.toString();
  return qs ? `${path}?${qs}` : path;
}
