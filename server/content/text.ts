import type { Lang } from '../kernel/context.ts';

/** A translatable text: the request language's value, else the default language's. */
export function pick(lang: Lang, base: string, et: string | null): string {
  return lang === 'et' && et !== null && et !== '' ? et : base;
}

const BLOCK = /^<(p|div|ul|ol|li|h[1-6]|blockquote|table|pre|figure|section|article|hr|dl|address|form|fieldset)[\s>/]/i;

/** WordPress `wpautop`, simplified: blank-line paragraphs become `<p>`, single newlines `<br />`. */
export function autop(text: string): string {
  const t = text.replace(/\r\n?/g, '\n').trim();
  if (!t) return '';
  return t
    .split(/\n\s*\n/)
    .map((chunk) => chunk.trim())
    .filter(Boolean)
    .map((chunk) => (BLOCK.test(chunk) ? chunk : `<p>${chunk.replace(/\n/g, '<br />\n')}</p>`))
    .join('\n');
}

export function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, '');
}

/** `the_excerpt`: the manual excerpt, else the first 55 words of the content, wrapped in a paragraph. */
export function excerptOf(excerpt: string, content: string): string {
  if (excerpt.trim()) return autop(excerpt);
  const words = stripTags(content).trim().split(/\s+/).filter(Boolean);
  if (!words.length) return '';
  const more = words.length > 55;
  return `<p>${words.slice(0, 55).join(' ')}${more ? ' [&hellip;]' : ''}</p>`;
}

/** WordPress `esc_url_raw` + `wp_http_validate_url` in spirit: only http(s) URLs with a host. */
export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Drops the values PHP's `array_filter` drops: '', '0', 0, false, null, empty arrays. */
export function dropEmpty<T extends Record<string, unknown>>(o: T, keep: readonly string[] = []): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (keep.includes(k)) {
      out[k] = v;
      continue;
    }
    if (v === '' || v === '0' || v === 0 || v === false || v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}
