import type { Express } from 'express';
import type { AppState } from '../kernel/context.ts';
import { robotsSettings, robotsTxt, sitemapEntries, sitemapXml } from '../seo/sitemap.ts';

/** `/robots.txt` and `/sitemap.xml` at the site root, from the settings and content of seo/v1. */
export function mountSeo(app: Express, state: AppState): void {
  const base = state.config.publicUrl;
  app.get('/robots.txt', async (_req, res) => {
    res
      .status(200)
      .type('text/plain; charset=utf-8')
      .send(robotsTxt(await robotsSettings(state.db), base));
  });
  app.get('/sitemap.xml', async (_req, res) => {
    res
      .status(200)
      .type('application/xml; charset=utf-8')
      .send(sitemapXml(await sitemapEntries(state.db, (p) => `${base}${p}`)));
  });
}
