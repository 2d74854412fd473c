import type { AttachmentRow } from '../../db/repos/attachments.ts';
import type { PostRow } from '../../db/repos/posts.ts';
import { autop, dropEmpty, excerptOf, pick } from '../../content/text.ts';
import type { Ctx } from '../../kernel/context.ts';

/**
 * What every presented post (event, venue, organizer) is made of: its global ID, permalink, title and texts in
 * the caller's language, featured image and post head, as TEC writes them.
 */

/** The events namespace's REST root, for `rest_url` and the term links. */
export const NS = '/evt/events/v1';

const origins = new Map<string, string>();

/** `Tribe__Utils__Global_ID`: `<host><path>?id=<post id>`. */
export function globalId(ctx: Ctx, id: number, type?: string): string {
  let origin = origins.get(ctx.app.config.publicUrl);
  if (origin === undefined) {
    const u = new URL(ctx.app.config.publicUrl);
    origin = `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
    origins.set(ctx.app.config.publicUrl, origin);
  }
  return type ? `${origin}?type=${type}&id=${id}` : `${origin}?id=${id}`;
}

export function permalink(ctx: Ctx, base: string, post: Pick<PostRow, 'id' | 'slug'>): string {
  return post.slug ? ctx.urls.site(`/${base}/${post.slug}/`) : ctx.urls.site(`/?p=${post.id}`);
}

function extension(att: AttachmentRow): string {
  const fromMime = att.mime_type.split('/')[1] ?? '';
  const fromUrl = /\.([a-z0-9]{2,5})(?:[?#]|$)/i.exec(att.url)?.[1]?.toLowerCase() ?? '';
  return fromUrl || (fromMime === 'jpeg' ? 'jpg' : fromMime);
}

/** The featured-image object, empty values removed, as TEC emits it. */
export function imageObject(att: AttachmentRow | undefined): Record<string, unknown> | false {
  if (!att) return false;
  return dropEmpty(
    {
      url: att.url,
      id: att.post_id,
      extension: extension(att),
      width: att.width ?? 0,
      height: att.height ?? 0,
      filesize: att.filesize ?? 0,
      sizes: {},
    },
    ['sizes'],
  );
}

export function titleOf(ctx: Ctx, p: PostRow): string {
  return pick(ctx.lang, p.title, p.title_et);
}

export function contentOf(ctx: Ctx, p: PostRow): string {
  return pick(ctx.lang, p.content, p.content_et);
}

/** The post's own excerpt, as TEC answers `excerpt`: only one that was given (none derived from the content). */
export function excerptText(ctx: Ctx, p: PostRow): string {
  const given = pick(ctx.lang, p.excerpt, p.excerpt_et);
  return given.trim() ? autop(given) : '';
}

/** `get_the_excerpt` as TEC's JSON-LD reads it: the given excerpt, else the first 55 words of the content. */
export function ldDescription(ctx: Ctx, p: PostRow): string {
  const text = excerptOf(pick(ctx.lang, p.excerpt, p.excerpt_et), contentOf(ctx, p));
  return text ? escHtml(`${text}\n`) : '';
}

/** WordPress `esc_html`. */
function escHtml(s: string): string {
  return s
    .replace(/&(?!#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

export function postHead(ctx: Ctx, p: PostRow, base: string): Record<string, unknown> {
  return {
    id: p.id,
    author: String(p.author),
    status: p.status,
    date: p.date,
    date_utc: p.date_gmt,
    modified: p.modified,
    modified_utc: p.modified_gmt,
    url: permalink(ctx, base, p),
  };
}
