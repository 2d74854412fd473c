import crypto from 'node:crypto';
import type { OEmbedResponse } from '../../../shared/routes/oembed.ts';
import type { Ctx, Lang } from '../../kernel/context.ts';
import { getPost } from '../../db/repos/posts.ts';
import { getAttachment } from '../../db/repos/attachments.ts';
import { getUser } from '../../db/repos/users.ts';
import { pick } from '../../content/text.ts';
import { esc } from '../../site/html.ts';
import { isPublicPost, matchPostRoute, postEmbedUrl, postPermalink, siteUrl, splitLang, urlToPostId } from '../../site/posts.ts';

/** `oembed_min_max_width`. */
const MIN_WIDTH = 200;
const MAX_WIDTH = 600;

/** `get_oembed_response_data`'s clamp: width within [200, 600], height 16:9 of it but at least 200. */
export function clampSize(maxwidth: number): { width: number; height: number } {
  const width = Math.min(Math.max(MIN_WIDTH, maxwidth), MAX_WIDTH);
  return { width, height: Math.max(Math.ceil((width / 16) * 9), 200) };
}

/** `wp_generate_password(10, false)`: the secret that pairs an embed iframe with its host page's script. */
function embedSecret(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(crypto.randomBytes(10), (b) => alphabet[b % alphabet.length]).join('');
}

/**
 * Host-page script of the embed (WordPress ships wp-embed.js inline): the iframe page posts its height with
 * the secret, and only an iframe carrying that secret, whose window sent the message, is resized or may open a
 * link (of its own host) in the top window.
 */
const HOST_SCRIPT =
  "<script>(function(w,d){if(w.evtEmbedHost)return;w.evtEmbedHost=1;w.addEventListener('message',function(e){var m=e.data;" +
  "if(!m||typeof m.secret!=='string'||!/^[A-Za-z0-9]{10}$/.test(m.secret))return;" +
  "var f=d.querySelectorAll('iframe.wp-embedded-content[data-secret=\"'+m.secret+'\"]');for(var i=0;i<f.length;i++){" +
  "if(f[i].contentWindow!==e.source)continue;if(m.message==='height'){f[i].height=String(Math.max(200,Math.min(1000,parseInt(m.value,10)||200)));}" +
  "else if(m.message==='link'){try{var u=new URL(String(m.value)),s=new URL(f[i].src);if(u.host===s.host&&/^https?:$/.test(u.protocol))w.top.location.href=u.href;}catch(x){}}}});})(window,document);</script>";

/** `get_post_embed_html`: a blockquote fallback, the sandboxed iframe, then the host script. */
export function embedHtml(opts: { permalink: string; embedUrl: string; title: string; siteName: string; width: number; height: number }): string {
  const secret = embedSecret();
  const frameTitle = `&#8220;${esc(opts.title)}&#8221; &#8212; ${esc(opts.siteName)}`;
  return (
    `<blockquote class="wp-embedded-content" data-secret="${secret}"><a href="${esc(opts.permalink)}">${esc(opts.title)}</a></blockquote>` +
    `<iframe sandbox="allow-scripts" security="restricted" src="${esc(`${opts.embedUrl}#?secret=${secret}`)}" width="${opts.width}" height="${opts.height}" ` +
    `title="${frameTitle}" data-secret="${secret}" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" class="wp-embedded-content"></iframe>` +
    HOST_SCRIPT
  );
}

/** `get_the_title`'s "Protected: %s" for a password-protected post. */
const PROTECTED_TITLE: Record<Lang, string> = { en: 'Protected: %s', et: 'Kaitstud: %s' };

/**
 * `get_oembed_response_data` for one of this site's posts: null unless it is a published event (the original
 * embeds no venue or organizer). Text is in `lang`; links keep `segment` (the URL's language segment, else the
 * request's). A password-protected event is embedded as WordPress does, by its title marked "Protected:" only:
 * no thumbnail, and no frame (this site shows no page for it), so nothing behind the password leaves.
 */
export async function postOEmbedData(ctx: Ctx, postId: number, maxwidth: number, lang: Lang, segment: Lang | null): Promise<OEmbedResponse | null> {
  const post = await getPost(ctx.db, postId);
  if (post?.type !== 'event' || post.status !== 'publish') return null;
  const locked = !isPublicPost(post);
  const { config } = ctx.app;
  const home = siteUrl(config.publicUrl, segment, '/');
  const plainTitle = pick(lang, post.title, post.title_et);
  const title = locked ? PROTECTED_TITLE[lang].replace('%s', plainTitle) : plainTitle;
  const author = post.author ? await getUser(ctx.db, post.author) : undefined;
  const { width, height } = clampSize(maxwidth);
  const permalink = postPermalink(config.publicUrl, segment, post);
  const data: OEmbedResponse = {
    version: '1.0',
    provider_name: config.siteName,
    provider_url: home,
    author_name: author?.display_name || config.siteName,
    // No author archives here: the author link is the home page, as WordPress does for a post without an author.
    author_url: home,
    title,
    type: 'rich',
    width,
    height,
    html: locked
      ? `<blockquote class="wp-embedded-content"><a href="${esc(permalink)}">${esc(title)}</a></blockquote>`
      : embedHtml({ permalink, embedUrl: postEmbedUrl(config.publicUrl, segment, post), title, siteName: config.siteName, width, height }),
  };
  const image = post.image_id && !locked ? await getAttachment(ctx.db, post.image_id) : undefined;
  if (image?.url && image.status !== 'trash') {
    const w = image.width ?? 0;
    const h = image.height ?? 0;
    // `wp_get_attachment_image_src($id, [width, 99999])`: the image scaled down to the embed width.
    const scale = w > width ? width / w : 1;
    data.thumbnail_url = image.url;
    data.thumbnail_width = Math.round(w * scale);
    data.thumbnail_height = Math.round(h * scale);
  }
  return data;
}

/** The URL names a post by its permalink path (`/event/{slug}/`), not by `?p={id}`. */
function byPermalink(publicUrl: string, url: string): boolean {
  const basePath = new URL(publicUrl).pathname.replace(/\/+$/, '');
  return matchPostRoute(splitLang(new URL(url).pathname.slice(basePath.length) || '/').rest) !== null;
}

/**
 * `get_oembed_response_data_for_url` restricted to this site: the data of the page at `url`, or null. As the
 * original answers, only a permalink resolves: `?p={id}` is 404 `oembed_invalid_url`.
 */
export async function siteUrlOEmbedData(ctx: Ctx, url: string, maxwidth: number): Promise<OEmbedResponse | null> {
  const found = await urlToPostId(ctx.db, ctx.app.config.publicUrl, url);
  if (!found || !byPermalink(ctx.app.config.publicUrl, url)) return null;
  const explicit = ctx.req.params.translation_language;
  const lang: Lang = explicit === 'en' || explicit === 'et' ? explicit : (found.lang ?? ctx.lang);
  return await postOEmbedData(ctx, found.id, maxwidth, lang, found.lang ?? ctx.urls.langSegment);
}
