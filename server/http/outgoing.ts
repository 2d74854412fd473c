import type { Request, Response } from 'express';
import type { Caller, Urls } from '../kernel/context.ts';
import type { Result } from '../kernel/result.ts';
import { COMPRESS_MIN_BYTES, compressBody, pickEncoding } from './compress.ts';
import { filterFields, type Globals } from './globals.ts';
import { presetJson } from './preset-json.ts';
import type { ResponseCache } from './response-cache.ts';

/**
 * The REST answer on the wire: the headers every answer carries (discovery link, CORS, caching for a signed-in
 * caller), the route's `Allow`, and a result written as its HTTP response with the global parameters applied
 * (`_envelope`, `_fields`, `_jsonp`, `_pretty`), its JSON bytes compressed when asked. What reads the request is
 * incoming.ts; the handlers only return results.
 */

// `Date`: a door kiosk on its own origin checks its clock against the server's.
const EXPOSE =
  'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, X-ET-TOTAL, X-ET-TOTAL-PAGES, X-EVT-Cursor, X-EVT-Next-After-Id, X-EVT-Key-List, X-EVT-Key-Event, Retry-After, Date';

/** A JSON body as the whole answer (the errors raised before or around a route). */
export function sendJson(res: Response, status: number, body: unknown, pretty: boolean): void {
  res.status(status).setHeader('Content-Type', 'application/json; charset=UTF-8');
  res.end(pretty ? JSON.stringify(body, null, 4) : JSON.stringify(body));
}

/** True when `origin` (as the browser sent it) is one of the configured credentialed origins (lower case, no trailing slash). */
export function corsOriginAllowed(origin: string, allowed: readonly string[]): boolean {
  if (!allowed.length) return false;
  return allowed.includes(origin.trim().replace(/\/+$/, '').toLowerCase());
}

/** The headers of every REST answer, set before the route's own. */
export function commonHeaders(res: Response, req: Request, urls: Urls, caller: Caller, corsOrigins: readonly string[]): void {
  res.setHeader('X-Robots-Tag', 'noindex');
  res.setHeader('Link', `<${urls.root}>; rel="https://api.w.org/"`);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Access-Control-Expose-Headers', EXPOSE);
  res.setHeader(
    'Access-Control-Allow-Headers',
    'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, X-EVT-FormsViews-Auth',
  );
  const origin = req.headers.origin;
  if (origin) {
    // D9: credentials only for the configured origins; any other origin may read public answers, without them.
    if (corsOriginAllowed(origin, corsOrigins)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    } else {
      res.setHeader('Access-Control-Allow-Origin', '*');
    }
    res.setHeader('Access-Control-Allow-Methods', 'OPTIONS, GET, POST, PUT, PATCH, DELETE');
    res.setHeader('Vary', 'Origin');
  }
  if (caller.kind !== 'anonymous') {
    res.setHeader('Cache-Control', 'no-cache, must-revalidate, max-age=0, no-store, private');
    res.setHeader('Expires', 'Wed, 11 Jan 1984 05:00:00 GMT');
  }
}

/** `Allow`, unless the caller may use none of the route's methods (WordPress then sends no `Allow`). */
export function setAllow(res: Response, allow: string): void {
  if (allow) res.setHeader('Allow', allow);
}

/** An invalid `_jsonp` callback's answer, sent as core sends it: JavaScript type, the error JSON unwrapped. */
export function refuseJsonpCallback(res: Response): void {
  res.status(400).setHeader('Content-Type', 'application/javascript; charset=UTF-8');
  res.end(JSON.stringify({ code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.' }));
}

/** Paging totals WordPress routes set as integers (`$response->header('X-WP-Total', (int) $total)`). */
const INTEGER_HEADER = /^x-(wp|tec|et)-?total/i;

/**
 * `WP_REST_Server::envelope_response`: the handler's headers and the route's `Allow` go inside the envelope (the
 * paging totals as numbers), none of them on the HTTP answer; no headers at all is PHP's empty array, `[]`.
 */
function envelopeHeaders(res: Response, result: Result): Record<string, string | number> | [] {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) out[k] = INTEGER_HEADER.test(k) && /^\d{1,15}$/.test(v) ? Number(v) : v;
  const allow = res.getHeader('Allow');
  if (allow !== undefined) {
    res.removeHeader('Allow');
    out.Allow = String(allow);
  }
  return Object.keys(out).length ? out : [];
}

/** How a JSON answer may be compressed: the request's Accept-Encoding, and the cache entry holding its body. */
export interface Encoding {
  accept: string | string[] | undefined;
  cache?: ResponseCache;
  key?: string;
}

/**
 * Writes a result with the global parameters applied; `json` is the body already serialised (cache hits). A JSON
 * body of at least COMPRESS_MIN_BYTES goes compressed when the request accepts brotli or gzip (`enc`), the
 * compressed form kept with the cache entry when the body is the entry's.
 */
export function writeResult(res: Response, result: Result, g: Globals, head: boolean, json?: Buffer, enc?: Encoding): void {
  if (!g.envelope) for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
  if (result.raw && !g.envelope) {
    res.status(result.status).setHeader('Content-Type', result.raw.contentType);
    res.end(head ? undefined : result.raw.payload);
    return;
  }
  const plain = !g.fields && !g.envelope && !g.pretty;
  // A cached answer's body is parsed from its JSON only when something must read it: sent as it is, it is not.
  let body = plain && json !== undefined ? undefined : result.body;
  if (g.fields && !result.isError) body = filterFields(body, g.fields);
  let status = result.status;
  if (g.envelope) {
    body = { body, status: result.status, headers: envelopeHeaders(res, result) };
    status = 200;
  }
  const text =
    plain && json !== undefined
      ? json
      : plain
        ? (presetJson(body) ?? JSON.stringify(body))
        : g.pretty
          ? JSON.stringify(body, null, 4)
          : JSON.stringify(body);
  res.status(status);
  if (g.jsonp) {
    res.setHeader('Content-Type', 'application/javascript; charset=UTF-8');
    res.end(head ? undefined : `/**/${g.jsonp}(${text.toString()})`);
    return;
  }
  res.setHeader('Content-Type', 'application/json; charset=UTF-8');
  if (enc && !head) {
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    if (bytes.length >= COMPRESS_MIN_BYTES) {
      res.vary('Accept-Encoding');
      const coding = pickEncoding(enc.accept);
      if (coding) {
        const kept =
          plain && json !== undefined && enc.cache && enc.key ? enc.cache.compressed(enc.key, coding, (b) => compressBody(coding, b)) : undefined;
        res.setHeader('Content-Encoding', coding);
        res.end(kept ?? compressBody(coding, bytes, result.quickCompress ? 'quick' : 'fast'));
        return;
      }
    }
    res.end(bytes);
    return;
  }
  res.end(head ? undefined : text);
}
