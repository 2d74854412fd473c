import { z } from 'zod';
import { boolean, custom, enumString, integer, string } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';

/**
 * `seo/v1`: search-engine tooling. The spec lists the namespace without its routes, so this is our own small,
 * real set:
 *   GET  /sitemap              public: the published, indexable events, venues and organizers (JSON, or XML
 *                              with `format=xml`; also served at /sitemap.xml)
 *   GET  /meta/<id>            public for published posts: the post's search meta and what pages will use
 *   POST|PUT|PATCH /meta/<id>  edit_events: title, description, canonical, noindex, nofollow
 *   GET  /robots               public: the robots settings and the robots.txt they produce (also at /robots.txt)
 *   POST|PUT|PATCH /robots     manage_options: block_all, disallow (paths), include_sitemap, crawl_delay
 * Handlers: server/routes/seo/.
 */

export const SEO_NS = 'seo/v1';
const ns = SEO_NS;
const tl = { translation_language: translationLanguage };
const EDITABLE = ['POST', 'PUT', 'PATCH'] as const;

export const SEO_TYPES = ['event', 'venue', 'organizer'] as const;

/** A robots.txt path rule: starts with `/`, no white space or control characters (they would inject lines). */
export const RobotsPath = z
  .string()
  .max(200)
  .regex(/^\/[^\s\u0000-\u001f\u007f#]*$/);

export const RobotsSettings = z.object({
  block_all: z.boolean().default(false),
  disallow: z.array(RobotsPath).max(50).default(['/wp-json/', '/private/']),
  include_sitemap: z.boolean().default(true),
  crawl_delay: z.number().int().min(0).max(60).default(0),
});
export type RobotsSettings = z.infer<typeof RobotsSettings>;

export const SeoMeta = z.object({
  post_id: z.number().int(),
  title: z.string(),
  description: z.string(),
  canonical: z.string(),
  noindex: z.boolean(),
  nofollow: z.boolean(),
  effective: z.object({ title: z.string(), description: z.string(), canonical: z.string(), robots: z.string() }),
});

export const SitemapEntry = z.object({ id: z.number().int(), type: z.enum(SEO_TYPES), loc: z.string(), lastmod: z.string() });
export const Sitemap = z.object({ count: z.number().int(), urls: z.array(SitemapEntry) });
export const Robots = z.object({ settings: RobotsSettings, robots_txt: z.string() });
const postErrors = { '404': { description: 'No such published event, venue or organizer (`rest_post_invalid_id`).' } };

const id = integer({ description: 'Unique identifier of the post', required: true, in: 'path', minimum: 1 });
const pathList = custom(
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(/[\n,]+/)
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(RobotsPath).max(50),
  ),
  z.array(z.string()),
  {
    description: 'Paths crawlers must not visit (each starts with /); replaces the list',
  },
);

export const seoRoutes = {
  sitemap: defineRoute({
    id: 'seo.sitemap',
    namespace: ns,
    route: '/sitemap',
    methods: ['GET'],
    permission: 'public',
    args: { format: enumString(['json', 'xml'], { description: 'json (default) or xml (a sitemaps.org urlset)', default: 'json' as const }), ...tl },
    summary: 'The sitemap of published, indexable events, venues and organizers',
    doc: {
      responses: {
        '200': {
          description: 'The sitemap: JSON, or (format=xml) a sitemaps.org urlset',
          schema: 'Sitemap',
          media: ['application/json', 'application/xml'],
        },
      },
    },
  }),
  readMeta: defineRoute({
    id: 'seo.meta.read',
    namespace: ns,
    route: '/meta/(?P<id>\\d+)',
    methods: ['GET'],
    permission: 'public',
    args: { id, ...tl },
    summary: "A post's search meta, with the values pages use",
    doc: { responses: { '200': { description: 'The meta', schema: 'SeoMeta' }, ...postErrors } },
  }),
  updateMeta: defineRoute({
    id: 'seo.meta.update',
    namespace: ns,
    route: '/meta/(?P<id>\\d+)',
    methods: EDITABLE,
    permission: 'edit_events',
    args: {
      id,
      title: string({ description: 'The title for search results (empty: the post title)', maxLength: 120 }),
      description: string({ description: 'The description for search results (empty: the excerpt)', maxLength: 320 }),
      canonical: string({ description: 'The canonical URL (http or https; empty: the permalink)', maxLength: 2000 }),
      noindex: boolean({ description: 'Keep the post out of search indexes and the sitemap' }),
      nofollow: boolean({ description: "Ask crawlers not to follow the post's links" }),
      ...tl,
    },
    summary: "Updates a post's search meta",
    doc: { responses: { '200': { description: 'The meta', schema: 'SeoMeta' }, ...postErrors } },
  }),
  readRobots: defineRoute({
    id: 'seo.robots.read',
    namespace: ns,
    route: '/robots',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary: 'The robots settings and the robots.txt they produce',
    doc: { responses: { '200': { description: 'The settings and robots.txt', schema: 'Robots' } } },
  }),
  updateRobots: defineRoute({
    id: 'seo.robots.update',
    namespace: ns,
    route: '/robots',
    methods: EDITABLE,
    permission: 'manage_options',
    args: {
      block_all: boolean({ description: 'Ask every crawler to stay away from the whole site' }),
      disallow: pathList,
      include_sitemap: boolean({ description: 'Name the sitemap in robots.txt' }),
      crawl_delay: integer({ description: 'Seconds between requests (0: none)', minimum: 0, maximum: 60 }),
      ...tl,
    },
    summary: 'Updates the robots settings',
    doc: { responses: { '200': { description: 'The settings and robots.txt', schema: 'Robots' } } },
  }),
};

export const seoNamespace: NamespaceDef = {
  name: ns,
  routes: Object.values(seoRoutes) as RouteDef[],
  doc: {
    title: 'Search-engine tooling',
    description: 'Sitemap, per-post search meta and robots settings.',
    version: '1.0.0',
    schemas: { SeoMeta, SitemapEntry, RobotsSettings, Sitemap, Robots },
  },
};
