import express, { type Express } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppState } from './http/context.ts';
import { mountPublicPages } from './site/router.ts';
import { mountFiles } from './site/files.ts';
import { mountSeo } from './site/seo.ts';

const kioskDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../renderer/dist');

/** Non-REST pages: the door kiosk at /kiosk/. */
export function mountSite(app: Express, state: AppState): void {
  mountPublicPages(app, state);
  app.use('/kiosk', (req, res, next) => {
    if (fs.existsSync(path.join(kioskDir, 'index.html'))) return next();
    res.status(503).type('text/plain').send('The kiosk has not been built yet: run `npm run build:kiosk`, then reload.');
  });
  app.use('/kiosk', express.static(kioskDir, { index: 'index.html', fallthrough: true, dotfiles: 'deny' }));
  mountFiles(app, state);
  mountSeo(app, state);
}
