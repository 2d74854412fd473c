import { addDays, formatInZone, parseDateInput } from '../../../shared/dates.ts';
import { analyticsRoutes, MAX_DAILY_RANGE_DAYS, MAX_MONTHLY_RANGE_DAYS } from '../../../shared/routes/analytics.ts';
import type { AppState, Ctx } from '../../kernel/context.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { hooks } from '../../kernel/hooks.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { nowUtc } from '../../db/clock.ts';
import { pathsSince, series, since, topPosts, topReferrers, totals, type Counts } from '../../db/repos/analytics.ts';
import { getPost } from '../../db/repos/posts.ts';
import { pick } from '../../content/text.ts';
import { isPageType, postPermalink } from '../../site/posts.ts';
import { apiReadRecorder, flushHits } from './record.ts';

const LIST_LIMIT = 100;
const DEFAULT_RANGE_DAYS = 30;
const REALTIME_WINDOW_MS = 30 * 60 * 1000;

const shiftDay = (day: string, n: number) => addDays(`${day} 00:00:00`, n).slice(0, 10);
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

interface Range {
  start_date: string;
  end_date: string;
}

/** The requested range with its defaults (the 30 days up to today); an inverted or oversized range is a 400. */
function resolveRange(ctx: Ctx, input: { start_date?: string; end_date?: string }, maxDays: number): Range {
  const today = formatInZone(new Date(), ctx.app.config.timezone).slice(0, 10);
  const end = input.end_date ?? (input.start_date && input.start_date > today ? input.start_date : today);
  const start = input.start_date ?? shiftDay(end, -(DEFAULT_RANGE_DAYS - 1));
  if (end < start) throw invalidParam('end_date', 'end_date must not be before start_date.', 'rest_invalid_date_range');
  if (daysBetween(start, end) + 1 > maxDays) {
    throw invalidParam('start_date', `The range may span at most ${maxDays} days.`, 'rest_invalid_date_range');
  }
  return { start_date: start, end_date: end };
}

const counts = (c: Counts): Counts => ({ views: c.views, visitors: c.visitors, page_views: c.page_views, api_reads: c.api_reads });

/** Every period of the range, in order: days, or months ('YYYY-MM'). */
function periods(r: Range, monthly: boolean): string[] {
  const out: string[] = [];
  if (monthly) {
    let [y, m] = r.start_date.slice(0, 7).split('-').map(Number);
    const last = r.end_date.slice(0, 7);
    for (;;) {
      const p = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
      out.push(p);
      if (p >= last) break;
      m++;
      if (m > 12) [y, m] = [y + 1, 1];
    }
    return out;
  }
  for (let d = r.start_date; d <= r.end_date; d = shiftDay(d, 1)) out.push(d);
  return out;
}

const stats = implement(analyticsRoutes.stats, async (input, ctx) => {
  await flushHits(ctx.app);
  const r = resolveRange(ctx, input, input.monthly ? MAX_MONTHLY_RANGE_DAYS : MAX_DAILY_RANGE_DAYS);
  const rows = new Map((await series(ctx.db, r.start_date, r.end_date, input.monthly)).map((s) => [s.period, counts(s)]));
  const zero: Counts = { views: 0, visitors: 0, page_views: 0, api_reads: 0 };
  const t = await totals(ctx.db, r.start_date, r.end_date);
  return ok({
    ...r,
    interval: input.monthly ? 'month' : 'day',
    totals: counts(t),
    data: periods(r, input.monthly).map((p) => ({ date: p, ...(rows.get(p) ?? zero) })),
  });
});

const totalsRoute = implement(analyticsRoutes.totals, async (input, ctx) => {
  await flushHits(ctx.app);
  const r = resolveRange(ctx, input, MAX_MONTHLY_RANGE_DAYS);
  const t = await totals(ctx.db, r.start_date, r.end_date);
  return ok({ ...r, ...counts(t), posts: t.posts, referrers: t.referrers });
});

const posts = implement(analyticsRoutes.posts, async (input, ctx) => {
  await flushHits(ctx.app);
  const r = resolveRange(ctx, input, MAX_MONTHLY_RANGE_DAYS);
  const list = [];
  for (const row of await topPosts(ctx.db, r.start_date, r.end_date, LIST_LIMIT)) {
    const p = await getPost(ctx.db, row.post_id);
    list.push({
      id: row.post_id,
      type: p?.type ?? '',
      title: p ? pick(ctx.lang, p.title, p.title_et) : '',
      url: p && isPageType(p.type) ? postPermalink(ctx.app.config.publicUrl, ctx.urls.langSegment, p) : '',
      ...counts(row),
    });
  }
  return ok({ ...r, posts: list });
});

const referrers = implement(analyticsRoutes.referrers, async (input, ctx) => {
  await flushHits(ctx.app);
  const r = resolveRange(ctx, input, MAX_MONTHLY_RANGE_DAYS);
  return ok({ ...r, referrers: (await topReferrers(ctx.db, r.start_date, r.end_date, LIST_LIMIT)).map((x) => ({ host: x.host, ...counts(x) })) });
});

const realtime = implement(analyticsRoutes.realtime, async (input, ctx) => {
  await flushHits(ctx.app);
  const now = new Date();
  let from = new Date(now.getTime() - REALTIME_WINDOW_MS);
  if (input.since !== undefined) {
    const parsed = parseDateInput(input.since, ctx.app.config.timezone, now);
    if (!parsed) throw invalidParam('since', 'since must be a date-time.', 'rest_invalid_date');
    if (parsed.getTime() > now.getTime()) throw invalidParam('since', 'since must not be in the future.', 'rest_invalid_date_range');
    from = parsed;
  }
  const fromTs = nowUtc(from);
  return ok({
    since: from.toISOString(),
    until: now.toISOString(),
    ...counts(await since(ctx.db, fromTs)),
    paths: await pathsSince(ctx.db, fromTs, LIST_LIMIT),
  });
});

export const analyticsEndpoints: Endpoint[] = [stats, totalsRoute, posts, referrers, realtime];

/** Anonymous reads of the events API are recorded as they are answered. */
export function installAnalytics(state: AppState): void {
  hooks(state).restResponse.push(apiReadRecorder);
  hooks(state).onClose.push(flushHits);
}
