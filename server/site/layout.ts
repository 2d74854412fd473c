import type { Response } from 'express';
import type { Lang } from '../kernel/context.ts';
import { esc } from './html.ts';
import { siteUrl } from './posts.ts';

/**
 * Strict CSP for the public pages: nothing inline, scripts and styles only from this site, no plugins, no
 * <base> or form hijacking. Ordinary pages may be framed by this site only; embed pages exist to be framed by
 * other sites (the oEmbed iframe), so only their frame-ancestors is open.
 */
export function securityHeaders(res: Response, framable: boolean): void {
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' https: data:",
      "base-uri 'none'",
      "form-action 'self'",
      `frame-ancestors ${framable ? '*' : "'self'"}`,
    ].join('; '),
  );
  if (!framable) res.setHeader('X-Frame-Options', 'SAMEORIGIN');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
}

export interface PageOpts {
  base: string;
  lang: Lang | null;
  contentLang: Lang;
  siteName: string;
  title: string;
  /** Already-escaped HTML of the main content. */
  body: string;
  canonical?: string;
  /** The oEmbed discovery links point at this URL. */
  oembedFor?: string;
  embed?: boolean;
}

const T = {
  en: { skip: 'Skip to content', events: 'Events' },
  et: { skip: 'Jätka sisuga', events: 'Üritused' },
} as const;

export function labels(lang: Lang) {
  return T[lang];
}

/** The document around a page's content: one stylesheet, discovery links, a skip link and landmarks. */
export function page(o: PageOpts): string {
  const root = siteUrl(o.base, o.lang, '/wp-json/');
  const head: string[] = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(o.title)} &#8211; ${esc(o.siteName)}</title>`,
    `<link rel="stylesheet" href="${esc(`${o.base}/site-assets/site.css`)}">`,
  ];
  if (o.canonical) head.push(`<link rel="canonical" href="${esc(o.canonical)}">`);
  if (o.oembedFor) {
    const enc = encodeURIComponent(o.oembedFor);
    head.push(`<link rel="alternate" type="application/json+oembed" href="${esc(`${root}oembed/1.0/embed?url=${enc}`)}">`);
    head.push(`<link rel="alternate" type="text/xml+oembed" href="${esc(`${root}oembed/1.0/embed?url=${enc}&format=xml`)}">`);
  }
  if (o.embed) head.push(`<script src="${esc(`${o.base}/site-assets/embed-frame.js`)}" defer></script>`);
  const l = labels(o.contentLang);
  const chrome = o.embed
    ? `<main id="main" class="embed">${o.body}</main>`
    : `<a class="skip" href="#main">${l.skip}</a>\n<header><nav aria-label="${esc(o.siteName)}"><a href="${esc(siteUrl(o.base, o.lang, '/events/'))}">${esc(o.siteName)} &#8212; ${l.events}</a></nav></header>\n<main id="main">${o.body}</main>`;
  return `<!doctype html>\n<html lang="${o.contentLang}">\n<head>\n${head.join('\n')}\n</head>\n<body>\n${chrome}\n</body>\n</html>\n`;
}

export function sendPage(res: Response, status: number, html: string, framable = false): void {
  securityHeaders(res, framable);
  res.status(status).type('text/html; charset=utf-8').send(html);
}
