import type { Express, NextFunction, Request, Response } from 'express';
import type { AppState, Lang } from '../kernel/context.ts';
import { DEFAULT_LANG } from '../kernel/context.ts';
import { getLinkedRows } from '../db/repos/linked.ts';
import { recordHit } from '../routes/analytics/record.ts';
import { ASSETS } from './assets.ts';
import { loadEvents } from './content.ts';
import { embedPage, eventPage, linkedPage, listPage, notFoundPage, type PageEnv } from './pages.ts';
import { matchPostRoute, publicPostBySlug, siteUrl, splitLang } from './posts.ts';
import { renderView } from './views/render.ts';
import { readViewState, viewUrl, ViewStateError } from './views/state.ts';
import { labels, page, securityHeaders, sendPage } from './layout.ts';

function header(req: Request, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

/**
 * The public pages: `/event/{slug}/`, `/venue/{slug}/`, `/organizer/{slug}/` (each also with `embed/`, the
 * oEmbed iframe content), `/events/` and the calendar views `/events/list/` and `/events/month/`, under an optional `/en` or `/et` segment. Only published, unprotected
 * content is shown; every page view is recorded for analytics. Anything else falls through.
 */
export function mountPublicPages(app: Express, state: AppState): void {
  const base = state.config.publicUrl;
  app.get('/site-assets/:name', (req: Request, res: Response, next: NextFunction) => {
    const asset = ASSETS[String(req.params.name)];
    if (!asset) return next();
    securityHeaders(res, false);
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.status(200).type(asset.type).send(asset.body);
  });
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const { lang: segment, rest } = splitLang(req.path);
    const lang: Lang = segment ?? DEFAULT_LANG;
    const env: PageEnv = { db: state.db, base, segment, lang, siteName: state.config.siteName };
    const view = (postId: number) =>
      recordHit(state, {
        kind: 'page',
        path: req.path,
        postId,
        ip: req.ip ?? '',
        userAgent: header(req, 'user-agent'),
        referrer: header(req, 'referer'),
      });

    // The front page (`/`, `/en/`, `/et/`) is the list of upcoming events: a site page that answers 200, so a
    // client can discover the interface from the site's address (see `discoveryLink`).
    const front = rest === '/';
    if (front || /^\/events\/?$/i.test(rest)) {
      if (!front && !rest.endsWith('/')) return res.redirect(301, `${req.path}/${req.url.slice(req.path.length)}`);
      const raw = typeof req.query.page === 'string' ? req.query.page : '1';
      const pageNo = /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 0;
      if (!pageNo) return sendPage(res, 404, notFoundPage(env));
      const out = await listPage(env, pageNo);
      if (out.found) await view(0);
      return sendPage(res, out.found ? 200 : 404, out.html);
    }

    // The calendar views without JavaScript: the same HTML the views endpoint renders, inside a page.
    if (/^\/events\/(list|month)(\/|$)/i.test(rest)) {
      if (!req.path.endsWith('/')) return res.redirect(301, `${req.path}/${req.url.slice(req.path.length)}`);
      try {
        const vs = readViewState(`${base}${req.url}`, base, undefined, undefined);
        const inner = await renderView(
          {
            db: state.db,
            base,
            lang,
            segment,
            timezone: state.config.timezone,
            restUrl: siteUrl(base, segment, '/wp-json/evt/views/v2/html'),
            shouldManageUrl: true,
          },
          vs,
        );
        await view(0);
        return sendPage(
          res,
          200,
          page({
            base,
            lang: segment,
            contentLang: lang,
            siteName: state.config.siteName,
            title: labels(lang).events,
            body: inner,
            canonical: viewUrl(base, vs),
          }),
        );
      } catch (e) {
        if (e instanceof ViewStateError) return sendPage(res, 404, notFoundPage(env));
        throw e;
      }
    }

    const route = matchPostRoute(rest);
    if (!route) return next();
    // WordPress redirect_canonical: permalinks end with a slash.
    if (!req.path.endsWith('/')) return res.redirect(301, `${req.path}/${req.url.slice(req.path.length)}`);
    const post = await publicPostBySlug(state.db, route.type, route.slug);
    if (!post) return sendPage(res, 404, notFoundPage(env));
    const ev = route.type === 'event' ? (await loadEvents(state.db, [post.id]))[0] : undefined;
    if (route.embed) {
      await view(post.id);
      return sendPage(res, 200, embedPage(env, post, ev), true);
    }
    let html: string;
    if (ev) html = eventPage(env, ev);
    else {
      const kind = route.type === 'venue' ? 'venue' : 'organizer';
      const row = (await getLinkedRows(state.db, kind, [post.id]))[0];
      if (!row) return sendPage(res, 404, notFoundPage(env));
      html = await linkedPage(env, kind, row);
    }
    await view(post.id);
    return sendPage(res, 200, html);
  });
}
