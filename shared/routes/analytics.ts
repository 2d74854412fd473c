import { z } from 'zod';
import { boolean, custom, string, wpIssue } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef } from '../http/route.ts';

/**
 * `analytics/v1`: views of the public event pages and anonymous API reads of events, counted from stored
 * hits (no raw IP addresses; visitors are daily-salted hashes). All routes are GET and need `manage_options`.
 * Dates are calendar days in the site's time zone. Handlers in server/routes/analytics/.
 */

export const ANALYTICS_NS = 'analytics/v1';
const ns = ANALYTICS_NS;
const tl = { translation_language: translationLanguage };

/** A real calendar date `YYYY-MM-DD`. */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

const dateSchema = z
  .string()
  .transform((s, ctx) => (isCalendarDate(s) ? s : wpIssue(ctx, 'rest_invalid_date', '%s must be a date in the form YYYY-MM-DD.')));
const dateArg = (description: string) => custom(dateSchema, z.string(), { description, extra: { format: 'date' } });

/** Longest range of a daily series, and of a monthly one. */
export const MAX_DAILY_RANGE_DAYS = 731;
export const MAX_MONTHLY_RANGE_DAYS = 3660;

const range = {
  start_date: dateArg('First day of the range (YYYY-MM-DD, site time zone); defaults to 29 days before end_date'),
  end_date: dateArg('Last day of the range (YYYY-MM-DD, site time zone); defaults to today'),
};

const Counts = z.object({ views: z.number().int(), visitors: z.number().int(), page_views: z.number().int(), api_reads: z.number().int() });
export const AnalyticsStats = z.object({
  start_date: z.string(),
  end_date: z.string(),
  interval: z.enum(['day', 'month']),
  totals: Counts,
  data: z.array(Counts.extend({ date: z.string() })),
});
export const AnalyticsTotals = Counts.extend({ start_date: z.string(), end_date: z.string(), posts: z.number().int(), referrers: z.number().int() });
export const AnalyticsPosts = z.object({
  start_date: z.string(),
  end_date: z.string(),
  posts: z.array(Counts.extend({ id: z.number().int(), type: z.string(), title: z.string(), url: z.string() })),
});
export const AnalyticsReferrers = z.object({ start_date: z.string(), end_date: z.string(), referrers: z.array(Counts.extend({ host: z.string() })) });
export const AnalyticsRealtime = Counts.extend({
  since: z.string(),
  until: z.string(),
  paths: z.array(z.object({ path: z.string(), post_id: z.number().int(), views: z.number().int() })),
});

const common = {
  namespace: ns,
  methods: ['GET'] as const,
  permission: 'manage_options' as const,
  forbiddenMessage: 'Sorry, you are not allowed to view analytics.',
};
const responses = (schema: string) => ({
  responses: {
    '200': { description: 'The figures for the range', schema },
    '400': { description: 'A date is malformed or the range is invalid' },
    '401': { description: 'Not signed in' },
    '403': { description: 'The user may not view analytics' },
  },
});

export const analyticsRoutes = {
  stats: defineRoute({
    ...common,
    id: 'analytics.stats',
    route: '/stats',
    args: { ...range, monthly: boolean({ description: 'One entry per month instead of per day', default: false }), ...tl },
    summary: 'Views and visitors per day (or per month) over a date range, zero days included.',
    doc: responses('AnalyticsStats'),
  }),
  totals: defineRoute({
    ...common,
    id: 'analytics.totals',
    route: '/totals',
    args: { ...range, ...tl },
    summary: 'Totals over a date range: views, visitors, page views, API reads, posts and referrers seen.',
    doc: responses('AnalyticsTotals'),
  }),
  posts: defineRoute({
    ...common,
    id: 'analytics.posts',
    route: '/posts',
    args: { ...range, ...tl },
    summary: 'The 100 most viewed events, venues and organizers over a date range.',
    doc: responses('AnalyticsPosts'),
  }),
  referrers: defineRoute({
    ...common,
    id: 'analytics.referrers',
    route: '/referrers',
    args: { ...range, ...tl },
    summary: 'The 100 external sites that sent the most views over a date range (by host).',
    doc: responses('AnalyticsReferrers'),
  }),
  realtime: defineRoute({
    ...common,
    id: 'analytics.realtime',
    route: '/realtime',
    args: {
      since: string({
        description: 'Start of the window (ISO 8601 date-time, or any date the events API accepts); defaults to 30 minutes ago',
        extra: { format: 'date-time' },
      }),
      ...tl,
    },
    summary: 'Views and visitors since a moment (default the last 30 minutes), with the most viewed paths.',
    doc: responses('AnalyticsRealtime'),
  }),
};

export const analyticsNamespace: NamespaceDef = {
  name: ns,
  routes: [analyticsRoutes.stats, analyticsRoutes.totals, analyticsRoutes.posts, analyticsRoutes.referrers, analyticsRoutes.realtime],
  doc: {
    title: 'Analytics',
    description: 'Page views of the public event pages and public API reads of events, without stored IP addresses.',
    version: '1.0.0',
    schemas: { AnalyticsStats, AnalyticsTotals, AnalyticsPosts, AnalyticsReferrers, AnalyticsRealtime },
  },
};
