/** HTML escaping for every value that reaches a page, an attribute or an oEmbed `html` string. */

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };

/** Escapes text for an element body or a quoted attribute (both quote kinds). */
export function esc(s: string | number): string {
  return String(s).replace(/[&<>"']/g, (c) => ESC[c]);
}

/**
 * WordPress `esc_html` (`_wp_specialchars` without double encoding): entities already in the text are kept,
 * every other special character is escaped.
 */
export function escKeepEntities(s: string): string {
  return s.replace(/&(?!(?:[a-zA-Z][a-zA-Z0-9]{1,31}|#\d{1,7}|#x[0-9a-fA-F]{1,6});)|[<>"']/g, (c) => ESC[c[0]]);
}

/** A URL for an `href`/`src`: only http(s) and site-relative URLs survive; anything else becomes `#`. */
export function safeUrl(u: string): string {
  if (u.startsWith('/') && !u.startsWith('//')) return u;
  try {
    const p = new URL(u);
    return p.protocol === 'http:' || p.protocol === 'https:' ? p.href : '#';
  } catch {
    return '#';
  }
}

/** Plain text from stored content (which may hold HTML): tags dropped, entities left as typed, then escaped. */
export function textParagraphs(content: string): string {
  const text = content
    .replace(/<\s*br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h[1-6])>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/\r\n?/g, '\n')
    .trim();
  if (!text) return '';
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${p.split('\n').map(esc).join('<br>')}</p>`)
    .join('\n');
}
