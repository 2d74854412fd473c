import express, { type Express } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIOSK_CSP } from '../electron/csp.ts';
import type { AppState } from './kernel/context.ts';
import { mountPublicPages } from './site/router.ts';
import { mountFiles } from './site/files.ts';
import { mountSeo } from './site/seo.ts';
import { staticCompression } from './http/compress.ts';

const kioskDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../renderer/dist');

/**
 * The headers of every /kiosk/ answer: the Electron shell's Content-Security-Policy (the same policy object, so
 * the two cannot drift; it already carries `frame-ancestors 'none'`, which a <meta> CSP cannot), no framing,
 * no type sniffing, no Referer carrying the page's address to the door server or anywhere else.
 */
export const KIOSK_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': KIOSK_CSP.includes("frame-ancestors 'none'") ? KIOSK_CSP : `${KIOSK_CSP}; frame-ancestors 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Paths of static files and the kiosk app: no discovery header there (WordPress sends it from PHP pages only). */
const STATIC_PATHS = /^\/(?:kiosk|site-assets|files|private)(?:\/|$)/i;

/**
 * The `Link` header WordPress sends on every site page (`rest_output_link_header`, 404 pages included), which
 * `WPAPI.discover(siteUrl)` and other clients follow to the interface root; under a language segment it points
 * at that language's root, as the REST answers do.
 */
export function discoveryLink(base: string, path: string): string {
  const lang = /^\/(en|et)(?:\/|$)/i.exec(path)?.[1]?.toLowerCase();
  return `<${base}${lang ? `/${lang}` : ''}/wp-json/>; rel="https://api.w.org/"`;
}

/** Non-REST pages: the public pages, robots.txt and sitemap, file downloads and the door kiosk at /kiosk/. */
export function mountSite(app: Express, state: AppState): void {
  app.use((req, res, next) => {
    if (!STATIC_PATHS.test(req.path)) res.setHeader('Link', discoveryLink(state.config.publicUrl, req.path));
    next();
  });
  mountPublicPages(app, state);
  app.use('/kiosk', (_req, res, next) => {
    for (const [name, value] of Object.entries(KIOSK_HEADERS)) res.setHeader(name, value);
    next();
  });
  app.use('/kiosk', (_req, res, next) => {
    if (fs.existsSync(path.join(kioskDir, 'index.html'))) return next();
    res.status(503).type('text/plain').send('The kiosk has not been built yet: run `npm run build:kiosk`, then reload.');
  });
  // Compressed copies of the built files for clients that take brotli or gzip; the rest as express.static answers.
  app.use('/kiosk', staticCompression(kioskDir));
  app.use('/kiosk', express.static(kioskDir, { index: 'index.html', fallthrough: true, dotfiles: 'deny' }));
  mountFiles(app, state);
  mountSeo(app, state);
}
