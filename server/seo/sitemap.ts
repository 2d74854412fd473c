import type { Db } from '../db/connection.ts';
import { sitemapRows } from '../db/repos/seo.ts';
import { getJsonOption } from '../db/repos/site-options.ts';
import { RobotsSettings } from '../../shared/routes/seo.ts';

/** Sitemap and robots.txt of this site, built from the database (served by the REST routes and site/seo.ts). */

export const ROBOTS_OPTION = 'seo.robots';
// One sitemap file holds at most 50,000 URLs (sitemaps.org).
const MAX_URLS = 50_000;

export interface SitemapEntry {
  id: number;
  type: 'event' | 'venue' | 'organizer';
  loc: string;
  lastmod: string;
}

export async function sitemapEntries(db: Db, site: (path: string) => string): Promise<SitemapEntry[]> {
  return (await sitemapRows(db, MAX_URLS)).map((r) => ({
    id: r.id,
    type: r.type as SitemapEntry['type'],
    loc: r.slug ? site(`/${r.type}/${r.slug}/`) : site(`/?p=${r.id}`),
    lastmod: `${r.modified_gmt.replace(' ', 'T')}+00:00`,
  }));
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

export function sitemapXml(entries: SitemapEntry[]): string {
  const urls = entries.map((e) => `  <url>\n    <loc>${xmlEscape(e.loc)}</loc>\n    <lastmod>${e.lastmod}</lastmod>\n  </url>\n`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}</urlset>\n`;
}

export async function robotsSettings(db: Db): Promise<RobotsSettings> {
  const r = RobotsSettings.safeParse(await getJsonOption<unknown>(db, ROBOTS_OPTION, {}));
  return r.success ? r.data : RobotsSettings.parse({});
}

export function robotsTxt(s: RobotsSettings, base: string): string {
  const lines = ['User-agent: *'];
  if (s.block_all) lines.push('Disallow: /');
  else for (const p of s.disallow) lines.push(`Disallow: ${p}`);
  if (s.crawl_delay > 0) lines.push(`Crawl-delay: ${s.crawl_delay}`);
  if (s.include_sitemap && !s.block_all) lines.push('', `Sitemap: ${base}/sitemap.xml`);
  return `${lines.join('\n')}\n`;
}
