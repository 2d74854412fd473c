import type { IncomingMessage, ServerResponse } from 'node:http';
import qs from 'qs';
import type { Lang } from './context.ts';
import { HttpError } from './errors.ts';

export const BODY_LIMIT = 1024 * 1024;

const QS_OPTIONS = { depth: 10, arrayLimit: 200, parameterLimit: 5000, allowPrototypes: false } as const;

export interface RestTarget {
  route: string;
  langSegment: Lang | null;
  query: Record<string, unknown>;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Normalises a route: leading slash, no trailing slash (WordPress un-trailing-slashes before matching). */
export function normaliseRoute(route: string): string {
  let r = route.startsWith('/') ? route : `/${route}`;
  r = r.replace(/\/{2,}/g, '/');
  if (r.length > 1) r = r.replace(/\/+$/, '');
  return r || '/';
}

/**
 * Finds the REST route in a URL: `/{lang}/wp-json/<route>`, `/wp-json/<route>`, or `?rest_route=<route>` on the
 * site root, `/index.php` or a language root. Returns null for URLs that are not REST requests.
 */
export function resolveRestTarget(url: string): RestTarget | null {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  const m = /^\/(?:(en|et)\/)?wp-json(\/.*)?$/i.exec(pathname);
  const root = m ? null : /^\/(?:(en|et)\/?)?(?:index\.php)?$/i.exec(pathname);
  // Site pages and kiosk files are neither: their query strings are not parsed here.
  if (!m && !root) return null;
  const query = qs.parse(q < 0 ? '' : url.slice(q + 1), QS_OPTIONS) as Record<string, unknown>;
  if (m) {
    const lang = (m[1]?.toLowerCase() as Lang | undefined) ?? null;
    return { route: normaliseRoute(safeDecode(m[2] ?? '/')), langSegment: lang, query };
  }
  if (typeof query.rest_route !== 'string') return null;
  const lang = (root![1]?.toLowerCase() as Lang | undefined) ?? null;
  return { route: normaliseRoute(query.rest_route), langSegment: lang, query };
}

/** Seconds a body may take after its headers unless the server says otherwise (CONTRACT section 3). */
export const BODY_TIMEOUT_MS = 30_000;

/**
 * Reads a request body of at most `limit` bytes. A body that has not fully arrived `timeoutMs` after this call
 * (made as soon as the headers are in) fails with `408 rest_request_timeout`; the caller answers and closes
 * the connection (see `closeAfterResponse`), so a client trickling a body cannot hold a request open.
 */
export function readBody(req: IncomingMessage, opts: { limit?: number; timeoutMs?: number } = {}): Promise<Buffer> {
  const limit = opts.limit ?? BODY_LIMIT;
  const timeoutMs = opts.timeoutMs ?? BODY_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(payloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const timer = setTimeout(() => {
      if (failed) return;
      failed = true;
      chunks.length = 0;
      // Stop taking the rest of it: the answer closes the connection.
      req.pause();
      reject(requestTimeout(timeoutMs));
    }, timeoutMs);
    timer.unref();
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        clearTimeout(timer);
        chunks.length = 0;
        reject(payloadTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      clearTimeout(timer);
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e) => {
      clearTimeout(timer);
      if (!failed) reject(new HttpError(400, 'rest_invalid_body', `The request body could not be read: ${e.message}`));
    });
  });
}

function requestTimeout(timeoutMs: number): HttpError {
  return new HttpError(408, 'rest_request_timeout', 'The request body did not arrive in time.', { timeout: Math.round(timeoutMs / 1000) });
}

/** True for the error of a body that did not arrive in time: its answer must close the connection. */
export function isRequestTimeout(e: unknown): boolean {
  return e instanceof HttpError && e.status === 408;
}

/**
 * Marks an answer as the connection's last (`Connection: close`) and ends the socket once it is written, so a
 * client still sending a late body cannot keep it; a socket not closed by the peer is destroyed soon after.
 */
export function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  res.once('finish', () => {
    const socket = req.socket;
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
  });
}

function payloadTooLarge(): HttpError {
  return new HttpError(413, 'rest_payload_too_large', 'The request body is larger than the 1 MiB limit.', { limit: BODY_LIMIT });
}

export interface ParsedBody {
  body: Record<string, unknown>;
  json: Record<string, unknown> | null;
  jsonError: boolean;
}

/** JSON when the content type says so (a syntax error is reported after routing, as core does), else a form. */
export function parseBody(buf: Buffer, contentType: string | undefined): ParsedBody {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (buf.length === 0) return { body: {}, json: null, jsonError: false };
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      const v: unknown = JSON.parse(buf.toString('utf8'));
      const json = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
      return { body: {}, json, jsonError: false };
    } catch {
      return { body: {}, json: null, jsonError: true };
    }
  }
  if (type === '' || type === 'application/x-www-form-urlencoded' || type === 'text/plain') {
    return { body: qs.parse(buf.toString('utf8'), QS_OPTIONS) as Record<string, unknown>, json: null, jsonError: false };
  }
  return { body: {}, json: null, jsonError: false };
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (k) out[k] = safeDecode(part.slice(i + 1).trim());
  }
  return out;
}
