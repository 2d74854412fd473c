import fs from 'node:fs';
import type { Express, Response } from 'express';
import type { AppState } from '../kernel/context.ts';
import { countHit, getFile, getLink, type FileRow } from '../db/repos/files.ts';
import { checkToken } from '../files/links.ts';
import { resolveStored } from '../files/storage.ts';

/**
 * File downloads: `/files/<id>/<name>` serves an unprotected file, `/private/<token>` a protected one through a
 * live, signed, unexpired private link. Files are found by ID; the name in the URL must equal the stored name
 * and is never used as a path.
 */
export function mountFiles(app: Express, state: AppState): void {
  app.get('/files/:id/:name', async (req, res) => {
    const id = /^\d{1,12}$/.test(req.params.id) ? Number(req.params.id) : 0;
    const f = id ? await getFile(state.db, id) : undefined;
    if (!f || f.protected === 1 || f.status === 'trash' || f.name !== req.params.name) return notFound(res);
    send(res, state, f, 'public, max-age=300');
  });

  app.get('/private/:token', async (req, res) => {
    const check = await checkToken(state.secret, req.params.token, async (linkId) => (await getLink(state.db, linkId))?.post_id);
    if (!check.ok) {
      res.setHeader('X-Robots-Tag', 'noindex');
      return check.reason === 'expired' ? res.status(410).type('text/plain').send('This private link has expired.') : notFound(res);
    }
    const link = (await getLink(state.db, check.linkId))!;
    const f = await getFile(state.db, link.post_id);
    if (link.revoked || !f || f.protected !== 1 || f.status === 'trash') return notFound(res);
    await countHit(state.db, link.id);
    send(res, state, f, 'private, no-store');
  });
}

function notFound(res: Response): void {
  res.status(404).type('text/plain').send('Not found');
}

function send(res: Response, state: AppState, f: FileRow, cacheControl: string): void {
  const abs = resolveStored(state.config.dataDir, f.file_path);
  if (!abs) return notFound(res);
  const inline = /^(image\/|application\/pdf$|text\/plain$)/.test(f.mime_type);
  res.status(200);
  res.setHeader('Content-Type', f.mime_type.startsWith('text/') ? `${f.mime_type}; charset=utf-8` : f.mime_type);
  res.setHeader('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(f.name)}`);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Uploaded content is never a page of this site: no scripts, no same-origin powers.
  res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('X-Robots-Tag', 'noindex');
  res.end(fs.readFileSync(abs));
}
