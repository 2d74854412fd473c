import express, { type Express } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIOSK_CSP } from '../electron/csp.ts';
import type { AppState } from './http/context.ts';
import { mountPublicPages } from './site/router.ts';
import { mountFiles } from './site/files.ts';
import { mountSeo } from './site/seo.ts';

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

/** Non-REST pages: the door kiosk at /kiosk/. */
export function mountSite(app: Express, state: AppState): void {
  mountPublicPages(app, state);
  app.use('/kiosk', (_req, res, next) => {
    for (const [name, value] of Object.entries(KIOSK_HEADERS)) res.setHeader(name, value);
    next();
  });
  app.use('/kiosk', (req, res, next) => {
    if (fs.existsSync(path.join(kioskDir, 'index.html'))) return next();
    res.status(503).type('text/plain').send('The kiosk has not been built yet: run `npm run build:kiosk`, then reload.');
  });
  app.use('/kiosk', express.static(kioskDir, { index: 'index.html', fallthrough: true, dotfiles: 'deny' }));
  mountFiles(app, state);
  mountSeo(app, state);
}
