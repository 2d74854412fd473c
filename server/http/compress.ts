import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';

/**
 * Compression of answers (issue 14 item 4): JSON answers of at least `COMPRESS_MIN_BYTES` and the kiosk's
 * static files, as brotli or gzip when the request's `Accept-Encoding` takes one (brotli first), identity
 * otherwise. Smaller answers are sent as they are: a few hundred bytes gain nothing and cost a compression.
 */
export const COMPRESS_MIN_BYTES = 1024;

export type Coding = 'br' | 'gzip';

/** The coding to answer with (`br`, then `gzip`, the first with q > 0, `*` included), or null for identity. */
export function pickEncoding(header: string | string[] | undefined): Coding | null {
  if (!header) return null;
  const text = Array.isArray(header) ? header.join(',') : header;
  let star: number | null = null;
  const q = new Map<string, number>();
  for (const part of text.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    if (!Number.isFinite(weight)) weight = 0;
    if (name === '*') star = weight;
    else q.set(name, weight);
  }
  for (const c of ['br', 'gzip'] as const) {
    const w = q.get(c) ?? (c === 'gzip' ? q.get('x-gzip') : undefined) ?? star;
    if (w !== undefined && w !== null && w > 0) return c;
  }
  return null;
}

/**
 * Compresses a body (brotli at quality 4 and gzip at level 6: fast enough per request, close to the best ratio for
 * JSON). `quick`: brotli quality 1 and gzip level 1, for large bodies made for one request (about a fourteenth of
 * quality 4's time on a door snapshot of 5,000 attendees, for 17% more bytes).
 */
export function compressBody(coding: Coding, body: Buffer, level: 'quick' | 'fast' | 'best' = 'fast'): Buffer {
  if (coding === 'br') {
    return zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: level === 'best' ? 11 : level === 'quick' ? 1 : 4,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  return zlib.gzipSync(body, { level: level === 'best' ? 9 : level === 'quick' ? 1 : 6 });
}

const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.json', '.webmanifest', '.svg', '.txt', '.map', '.xml']);

interface Packed {
  mtimeMs: number;
  size: number;
  body: Buffer;
}

/**
 * The kiosk's built files, compressed once (at the best levels: they do not change while the server runs, and a
 * changed file is seen by its size and time) and answered from memory. Anything else (a file too small, of a
 * type that does not compress, a request without an accepted coding, a Range request) falls through to
 * `express.static`, which answers as before; `Vary: Accept-Encoding` goes on every compressible file's answer.
 */
export function staticCompression(root: string): (req: Request, res: Response, next: NextFunction) => void {
  const packed = new Map<string, Packed>();
  const base = path.resolve(root);
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    let rel: string;
    try {
      rel = decodeURIComponent(req.path);
    } catch {
      return next();
    }
    if (rel.endsWith('/')) rel += 'index.html';
    if (rel.includes('\0') || rel.split('/').some((s) => s.startsWith('.'))) return next();
    const file = path.resolve(base, `.${rel}`);
    if (!file.startsWith(base + path.sep)) return next();
    const ext = path.extname(file).toLowerCase();
    if (!COMPRESSIBLE.has(ext)) return next();
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return next();
    }
    if (!st.isFile() || st.size < COMPRESS_MIN_BYTES) return next();
    res.vary('Accept-Encoding');
    const coding = pickEncoding(req.headers['accept-encoding']);
    if (!coding || req.headers.range) return next();
    const key = `${coding}\0${file}`;
    let p = packed.get(key);
    if (!p || p.mtimeMs !== st.mtimeMs || p.size !== st.size) {
      p = { mtimeMs: st.mtimeMs, size: st.size, body: compressBody(coding, fs.readFileSync(file), 'best') };
      packed.set(key, p);
    }
    const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}-${coding}"`;
    res.setHeader('Cache-Control', 'public, max-age=0');
    res.setHeader('Last-Modified', st.mtime.toUTCString());
    res.setHeader('ETag', etag);
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.type(ext === '.webmanifest' ? 'application/manifest+json' : ext);
    res.setHeader('Content-Encoding', coding);
    res.setHeader('Content-Length', String(p.body.length));
    res.status(200).end(req.method === 'HEAD' ? undefined : p.body);
  };
}
