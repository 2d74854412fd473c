import { RobotsSettings, SEO_TYPES, seoRoutes as R } from '../../../shared/routes/seo.ts';
import type { Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { forbidden, HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { nowUtc } from '../../db/clock.ts';
import { pick } from '../../content/text.ts';
import { getPost, type PostRow } from '../../db/repos/posts.ts';
import { getSeo, putSeo, type SeoRow } from '../../db/repos/seo.ts';
import { setJsonOption } from '../../db/repos/site-options.ts';
import { mayChangePost } from '../../security/post-ownership.ts';
import { ROBOTS_OPTION, robotsSettings, robotsTxt, sitemapEntries, sitemapXml } from '../../seo/sitemap.ts';

const invalidId = () => new HttpError(404, 'rest_post_invalid_id', 'Invalid post ID.');

/** A post whose meta the caller may see: published and password-free for everyone, any status for editors. */
async function postFor(ctx: Ctx, id: number): Promise<PostRow> {
  const p = await getPost(ctx.db, id);
  if (!p || !(SEO_TYPES as readonly string[]).includes(p.type) || p.status === 'trash') throw invalidId();
  if (!can(ctx, 'read_private_events') && (p.status !== 'publish' || p.password !== '')) throw invalidId();
  return p;
}

function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[a-z0-9#]+;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function present(ctx: Ctx, p: PostRow, m: SeoRow | undefined) {
  const title = m?.title ?? '';
  const description = m?.description ?? '';
  const canonical = m?.canonical ?? '';
  const noindex = (m?.noindex ?? 0) === 1;
  const nofollow = (m?.nofollow ?? 0) === 1;
  const postTitle = pick(ctx.lang, p.title, p.title_et);
  const excerpt = textOf(pick(ctx.lang, p.excerpt, p.excerpt_et)) || textOf(pick(ctx.lang, p.content, p.content_et));
  return {
    post_id: p.id,
    title,
    description,
    canonical,
    noindex,
    nofollow,
    effective: {
      title: title || `${postTitle} – ${ctx.app.config.siteName}`,
      description: description || (excerpt.length > 160 ? `${excerpt.slice(0, 157).trimEnd()}...` : excerpt),
      canonical: canonical || (p.slug ? ctx.urls.site(`/${p.type}/${p.slug}/`) : ctx.urls.site(`/?p=${p.id}`)),
      robots: `${noindex ? 'noindex' : 'index'}, ${nofollow ? 'nofollow' : 'follow'}`,
    },
  };
}

const sitemap = implement(R.sitemap, async (input, ctx) => {
  const entries = await sitemapEntries(ctx.db, ctx.urls.site);
  if (input.format === 'xml')
    return { status: 200, body: null, raw: { contentType: 'application/xml; charset=UTF-8', payload: sitemapXml(entries) } };
  return ok({ count: entries.length, urls: entries });
});

const readMeta = implement(R.readMeta, async (input, ctx) => {
  const p = await postFor(ctx, input.id);
  return ok(present(ctx, p, await getSeo(ctx.db, p.id)));
});

function canonicalOk(url: string): boolean {
  if (url === '') return true;
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
  } catch {
    return false;
  }
}

/**
 * The original's order of checks: parameters (400), then the permission callback, which finds the post (404
 * when there is no such event, venue or organizer) and asks whether the caller may change it (403: an organizer
 * changes the meta only of posts it may change itself, CONTRACT section 3). A trashed post is then 404 to
 * those who may change it, as for every reader.
 */
const updateMeta = implement(R.updateMeta, async (input, ctx) => {
  if (input.canonical !== undefined && !canonicalOk(input.canonical.trim()))
    throw invalidParam('canonical', 'canonical must be an http or https URL.', 'rest_invalid_url');
  const p = await getPost(ctx.db, input.id);
  if (!p || !(SEO_TYPES as readonly string[]).includes(p.type)) throw invalidId();
  if (!(await mayChangePost(ctx, p))) throw forbidden(ctx.caller.kind === 'anonymous');
  if (p.status === 'trash') throw invalidId();
  const cur = await getSeo(ctx.db, p.id);
  const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const row: SeoRow = {
    post_id: p.id,
    title: input.title !== undefined ? oneLine(input.title) : (cur?.title ?? ''),
    description: input.description !== undefined ? oneLine(input.description) : (cur?.description ?? ''),
    canonical: input.canonical !== undefined ? input.canonical.trim() : (cur?.canonical ?? ''),
    noindex: input.noindex !== undefined ? Number(input.noindex) : (cur?.noindex ?? 0),
    nofollow: input.nofollow !== undefined ? Number(input.nofollow) : (cur?.nofollow ?? 0),
    updated: nowUtc(),
  };
  await putSeo(ctx.db, row);
  return ok(present(ctx, p, row));
});

const readRobots = implement(R.readRobots, async (_input, ctx) => {
  const s = await robotsSettings(ctx.db);
  return ok({ settings: s, robots_txt: robotsTxt(s, ctx.app.config.publicUrl) });
});

const updateRobots = implement(R.updateRobots, async (input, ctx) => {
  const cur = await robotsSettings(ctx.db);
  const next = RobotsSettings.parse({
    block_all: input.block_all ?? cur.block_all,
    disallow: input.disallow ?? cur.disallow,
    include_sitemap: input.include_sitemap ?? cur.include_sitemap,
    crawl_delay: input.crawl_delay ?? cur.crawl_delay,
  });
  await setJsonOption(ctx.db, ROBOTS_OPTION, next);
  return ok({ settings: next, robots_txt: robotsTxt(next, ctx.app.config.publicUrl) });
});

export const seoEndpoints: Endpoint[] = [sitemap, readMeta, updateMeta, readRobots, updateRobots];
