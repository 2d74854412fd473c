import type { Db } from '../db/connection.ts';
import type { Lang } from '../kernel/context.ts';
import { LANGS } from '../kernel/context.ts';
import { findPostIdBySlug, getPost, type PostRow } from '../db/repos/posts.ts';

/** Post types that have public pages, and the path segment of their permalinks. */
export const PAGE_TYPES = ['event', 'venue', 'organizer'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export function isPageType(t: string): t is PageType {
  return (PAGE_TYPES as readonly string[]).includes(t);
}

/** Published, not password-protected: what anyone may see as a page or an embed. */
export function isPublicPost(p: Pick<PostRow, 'status' | 'password' | 'type'>): boolean {
  return p.status === 'publish' && p.password === '' && isPageType(p.type);
}

/** A public post of that type by slug, or undefined. */
export async function publicPostBySlug(db: Db, type: PageType, slug: string): Promise<PostRow | undefined> {
  const id = await findPostIdBySlug(db, type, slug);
  const post = id ? await getPost(db, id) : undefined;
  return post && isPublicPost(post) ? post : undefined;
}

/** Absolute URL of a site path under the public base, with an optional language segment. */
export function siteUrl(base: string, lang: Lang | null, path: string): string {
  return `${base}${lang ? `/${lang}` : ''}${path}`;
}

/** The post's permalink (`/event/{slug}/`, or `/?p={id}` without a slug), as the events API builds it. */
export function postPermalink(base: string, lang: Lang | null, p: Pick<PostRow, 'id' | 'slug' | 'type'>): string {
  return p.slug ? siteUrl(base, lang, `/${p.type}/${encodeURIComponent(p.slug)}/`) : siteUrl(base, lang, `/?p=${p.id}`);
}

/** `get_post_embed_url`: the permalink plus `embed/` (or `&embed=true` on a query permalink). */
export function postEmbedUrl(base: string, lang: Lang | null, p: Pick<PostRow, 'id' | 'slug' | 'type'>): string {
  return p.slug ? `${postPermalink(base, lang, p)}embed/` : `${postPermalink(base, lang, p)}&embed=true`;
}

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export interface SitePath {
  lang: Lang | null;
  /** The rest of the path after the base path and the language segment, starting with `/`. */
  rest: string;
}

/** Splits a request path (already relative to the site root) into its language segment and the rest. */
export function splitLang(path: string): SitePath {
  const m = /^\/(en|et)(\/.*|)$/i.exec(path);
  if (!m) return { lang: null, rest: path || '/' };
  return { lang: m[1].toLowerCase() as Lang, rest: m[2] || '/' };
}

export interface PostRoute {
  type: PageType;
  slug: string;
  embed: boolean;
}

/** `/event/{slug}/`, `/venue/{slug}/embed/`, ...: the post route of a path, or null. */
export function matchPostRoute(rest: string): PostRoute | null {
  const m = /^\/(event|venue|organizer)\/([^/]+)(\/embed)?\/?$/i.exec(rest);
  if (!m) return null;
  const slug = decode(m[2]);
  if (slug === null || slug === '') return null;
  return { type: m[1].toLowerCase() as PageType, slug, embed: !!m[3] };
}

/**
 * WordPress `url_to_postid` for this site: the URL's host (and port) must be the site's, its path under the
 * site's base path, with any language segment; `/event/{slug}/`, `/venue/{slug}/`, `/organizer/{slug}/` (with
 * or without `embed/`) and `?p={id}` resolve. Returns the post ID and the URL's language segment, or null.
 */
export async function urlToPostId(db: Db, publicUrl: string, url: string): Promise<{ id: number; lang: Lang | null } | null> {
  let u: URL;
  let base: URL;
  try {
    u = new URL(url);
    base = new URL(publicUrl);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const stripWww = (h: string) => h.toLowerCase().replace(/^www\./, '');
  if (stripWww(u.hostname) !== stripWww(base.hostname)) return null;
  const port = (x: URL) => x.port || (x.protocol === 'https:' ? '443' : '80');
  if (port(u) !== port(base) && !(u.protocol !== base.protocol && !u.port && !base.port)) return null;
  const basePath = base.pathname.replace(/\/+$/, '');
  if (basePath && !(u.pathname === basePath || u.pathname.startsWith(`${basePath}/`))) return null;
  const { lang, rest } = splitLang(u.pathname.slice(basePath.length) || '/');
  if (lang && !LANGS.includes(lang)) return null;
  const p = u.searchParams.get('p');
  if ((rest === '/' || rest === '/index.php') && p !== null) {
    const id = /^\d+$/.test(p) ? Number(p) : 0;
    return id > 0 ? { id, lang } : null;
  }
  const route = matchPostRoute(rest);
  if (!route) return null;
  const id = await findPostIdBySlug(db, route.type, route.slug);
  return id ? { id, lang } : null;
}
