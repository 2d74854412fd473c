import { z } from 'zod';
import { esc } from '../../site/html.ts';

/**
 * What a provider's oEmbed JSON may contribute. Everything is re-validated and the HTML is rebuilt from scratch
 * (WordPress `data2html` + `wp_filter_oembed_result`): a provider's markup never reaches a client verbatim.
 */
const str = z.string().max(2000);
const dim = z.union([z.number(), z.string().regex(/^\d{1,5}$/)]).transform((v) => Math.min(Math.max(0, Math.round(Number(v))), 10000));

export const ProviderData = z.object({
  type: z.enum(['photo', 'video', 'link', 'rich']),
  version: z.union([z.string(), z.number()]).transform(String).optional(),
  title: str.optional(),
  author_name: str.optional(),
  author_url: str.optional(),
  provider_name: str.optional(),
  provider_url: str.optional(),
  cache_age: z.union([z.number(), z.string()]).optional(),
  thumbnail_url: str.optional(),
  thumbnail_width: dim.optional(),
  thumbnail_height: dim.optional(),
  url: str.optional(),
  width: dim.optional().nullable(),
  height: dim.optional().nullable(),
  html: z.string().max(20000).optional(),
});
export type ProviderData = z.infer<typeof ProviderData>;

function httpUrl(u: string | undefined): string | undefined {
  if (!u) return undefined;
  try {
    const p = new URL(u);
    return p.protocol === 'https:' || p.protocol === 'http:' ? p.href : undefined;
  } catch {
    return undefined;
  }
}

function decodeEntities(s: string): string {
  return s.replace(
    /&(amp|quot|#0?39|#x27|lt|gt);/gi,
    (_m, e: string) => (({ amp: '&', quot: '"', lt: '<', gt: '>' }) as Record<string, string>)[e.toLowerCase()] ?? "'",
  );
}

const ATTR = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** A tag's attributes by lower-case name, values entity-decoded (a bare attribute is ''). */
function parseAttrs(source: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of source.matchAll(ATTR)) attrs.set(m[1].toLowerCase(), decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  return attrs;
}

const REFERRER_POLICIES = new Set([
  'no-referrer',
  'no-referrer-when-downgrade',
  'origin',
  'origin-when-cross-origin',
  'same-origin',
  'strict-origin',
  'strict-origin-when-cross-origin',
  'unsafe-url',
]);

/** The provider's first iframe, rebuilt with only safe attributes; null when there is none or its src is not http(s). */
export function safeIframe(html: string): string | null {
  const tag = /<iframe\b([^>]*)>/i.exec(html);
  if (!tag) return null;
  const attrs = parseAttrs(tag[1]);
  const src = httpUrl(attrs.get('src'));
  if (!src) return null;
  const out: string[] = [`src="${esc(src)}"`];
  for (const k of ['width', 'height', 'frameborder']) {
    const v = attrs.get(k);
    if (v !== undefined && /^\d{1,5}%?$/.test(v)) out.push(`${k}="${v}"`);
  }
  const title = attrs.get('title');
  if (title) out.push(`title="${esc(title)}"`);
  const allow = attrs.get('allow');
  if (allow && /^[a-z0-9-;*' ]{1,300}$/i.test(allow)) out.push(`allow="${esc(allow)}"`);
  const ref = attrs.get('referrerpolicy');
  if (ref && REFERRER_POLICIES.has(ref.toLowerCase())) out.push(`referrerpolicy="${ref.toLowerCase()}"`);
  if (attrs.has('allowfullscreen')) out.push('allowfullscreen');
  return `<iframe ${out.join(' ')}></iframe>`;
}

/** `WP_oEmbed::data2html` on validated data; null when the data cannot be turned into safe markup. */
export function data2html(d: ProviderData, url: string): string | null {
  switch (d.type) {
    case 'photo': {
      const src = httpUrl(d.url);
      if (!src) return null;
      const title = d.title ?? '';
      const size = `${d.width ? ` width="${d.width}"` : ''}${d.height ? ` height="${d.height}"` : ''}`;
      return `<a href="${esc(url)}"><img src="${esc(src)}" alt="${esc(title)}"${size} /></a>`;
    }
    case 'video':
    case 'rich':
      return d.html ? safeIframe(d.html) : null;
    case 'link':
      return d.title ? `<a href="${esc(url)}">${esc(d.title)}</a>` : null;
  }
}

/** The answer the proxy gives for an external URL: validated provider fields, in oEmbed order, with safe HTML. */
export function externalAnswer(raw: unknown, url: string): Record<string, unknown> | null {
  const parsed = ProviderData.safeParse(raw);
  if (!parsed.success) return null;
  const d = parsed.data;
  const html = data2html(d, url);
  if (html === null) return null;
  const out: Record<string, unknown> = { version: d.version ?? '1.0', type: d.type };
  if (d.title !== undefined) out.title = d.title;
  if (d.author_name !== undefined) out.author_name = d.author_name;
  const authorUrl = httpUrl(d.author_url);
  if (authorUrl) out.author_url = authorUrl;
  if (d.provider_name !== undefined) out.provider_name = d.provider_name;
  const providerUrl = httpUrl(d.provider_url);
  if (providerUrl) out.provider_url = providerUrl;
  const thumb = httpUrl(d.thumbnail_url);
  if (thumb) {
    out.thumbnail_url = thumb;
    if (d.thumbnail_width !== undefined) out.thumbnail_width = d.thumbnail_width;
    if (d.thumbnail_height !== undefined) out.thumbnail_height = d.thumbnail_height;
  }
  if (d.type === 'photo') out.url = httpUrl(d.url);
  if (d.width != null) out.width = d.width;
  if (d.height != null) out.height = d.height;
  out.html = html;
  return out;
}

/** `WP_oEmbed::discover`: the first JSON oEmbed link of an HTML page, resolved against the page URL. */
export function discoverLink(html: string, pageUrl: URL): string | null {
  for (const m of html.matchAll(/<link\b([^>]*)>/gi)) {
    const attrs = parseAttrs(m[1]);
    if (attrs.get('type')?.toLowerCase() !== 'application/json+oembed') continue;
    const href = attrs.get('href');
    if (!href) continue;
    try {
      return new URL(href, pageUrl).href;
    } catch {}
  }
  return null;
}
