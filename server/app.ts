import express, { type Express, type Request, type Response } from 'express';
import crypto from 'node:crypto';
import type { Method } from '../shared/http/route.ts';
import type { Config } from './config.ts';
import { startCheckpointer } from './db/checkpointer.ts';
import { openDatabase, type Db } from './db/connection.ts';
import { siteSecretOf } from './db/repos/site-options.ts';
import { engineOf } from './db/engine/types.ts';
import { openChangeFeed, type SharedState } from './db/change-feed.ts';
import { authenticate, type KeyChecks } from './auth/authenticate.ts';
import { errorHeaders } from './auth/sign-in-limits.ts';
import type { AppState, Caller, Lang, Urls } from './kernel/context.ts';
import { DEFAULT_LANG, callerTag, makeUrls } from './kernel/context.ts';
import { allowHeader, execute, prepare, type RestRequest } from './http/dispatch.ts';
import { HttpError, internalError, noRoute } from './kernel/errors.ts';
import { filterFields, readGlobals, validJsonpCallback, type Globals } from './http/globals.ts';
import {
  closeAfterResponse,
  isRequestTimeout,
  parseBody,
  parseCookies,
  readBody,
  resolveRestTarget,
  withFileParams,
  type ParsedBody,
  type RestTarget,
} from './http/incoming.ts';
import { buildRegistry, installModules } from './routes/index.ts';
import type { Registry } from './http/registry.ts';
import { errorResult, type Result } from './kernel/result.ts';
import { routeData } from './http/describe.ts';
import { mountSite } from './site.ts';
import { filterRestResponse, hooks } from './kernel/hooks.ts';
import { ResponseCache, cacheKey } from './http/response-cache.ts';
import { readTags } from './http/cache-tags.ts';
import { presetJson } from './http/preset-json.ts';
import { COMPRESS_MIN_BYTES, compressBody, pickEncoding } from './http/compress.ts';
import { createLogger, logFunction } from './log.ts';
import { health } from './http/health.ts';
import { compileTrust } from './http/client-address.ts';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
// `Date`: a door kiosk on its own origin checks its clock against the server's.
const EXPOSE =
  'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, X-ET-TOTAL, X-ET-TOTAL-PAGES, X-EVT-Cursor, X-EVT-Key-List, Retry-After, Date';

async function siteSecret(db: Db, configured?: string): Promise<string> {
  return configured || (await siteSecretOf(db, crypto.randomBytes(32).toString('base64url')));
}

/** The shared-state mode: asked for, configured, else 'database' on PostgreSQL and 'process' on SQLite. */
function sharedStateFor(db: Db, config: Config, asked?: SharedState): SharedState {
  return asked ?? config.sharedState ?? (engineOf(db) === 'postgres' ? 'database' : 'process');
}

export interface App {
  express: Express;
  state: AppState;
  registry: Registry;
  close: () => Promise<void>;
}

/** Builds the whole server on an open (or newly opened) database. Tests call this on a fresh file. */
export async function createApp(opts: { config: Config; db?: Db; log?: AppState['log']; sharedState?: SharedState }): Promise<App> {
  const db = opts.db ?? (await openDatabase(opts.config.dbFile));
  const registry = buildRegistry();
  const log = opts.log ?? (opts.config.log ? logFunction(createLogger(opts.config)) : () => {});
  const sharedState = sharedStateFor(db, opts.config, opts.sharedState);
  await openChangeFeed(db, sharedState);
  const state: AppState = {
    db,
    config: opts.config,
    secret: await siteSecret(db, opts.config.secret),
    sharedState,
    contentVersion: 0,
    services: { registry, responseCache: new ResponseCache(opts.config.cache) },
    log,
  };
  const checkpointer = db.memory ? null : startCheckpointer(db, { onError: (error) => log({ level: 'error', msg: 'WAL checkpoint failed', error }) });
  state.services.checkpointer = checkpointer;
  await installModules(state);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // EVT_TRUST_PROXY: `req.ip` is the client named by a trusted proxy's X-Forwarded-For (proxy-addr's walk from the
  // right, stopping at the first untrusted hop); with none trusted, the address that connects. Every per-address
  // limit and log reads `req.ip`. Public URLs never follow X-Forwarded-Proto or -Host: they come from EVT_PUBLIC_URL.
  app.set('trust proxy', compileTrust(opts.config.trustProxy));
  app.get('/health', health(state));
  app.use((req, res, next) => {
    const target = resolveRestTarget(req.originalUrl);
    if (!target) return next();
    serveRest(state, registry, req, res, target).catch((e) => {
      log({ level: 'error', msg: 'request failed', error: String((e as Error)?.stack ?? e) });
      if (!res.headersSent) sendJson(res, 500, internalError().body(), false);
      else res.end();
    });
  });
  mountSite(app, state);
  app.use((_req: Request, res: Response) => {
    res.status(404).type('text/plain').send('Not found');
  });
  return {
    express: app,
    state,
    registry,
    close: async () => {
      for (const f of hooks(state).onClose) await f(state);
      await checkpointer?.stop();
      await db.close();
    },
  };
}

function sendJson(res: Response, status: number, body: unknown, pretty: boolean): void {
  res.status(status).setHeader('Content-Type', 'application/json; charset=UTF-8');
  res.end(pretty ? JSON.stringify(body, null, 4) : JSON.stringify(body));
}

/** True when `origin` (as the browser sent it) is one of the configured credentialed origins (lower case, no trailing slash). */
export function corsOriginAllowed(origin: string, allowed: readonly string[]): boolean {
  if (!allowed.length) return false;
  return allowed.includes(origin.trim().replace(/\/+$/, '').toLowerCase());
}

/** A request that carries a body (a length above 0, or a chunked one). */
function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

function commonHeaders(res: Response, req: Request, urls: Urls, caller: Caller, corsOrigins: readonly string[]): void {
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
function setAllow(res: Response, allow: string): void {
  if (allow) res.setHeader('Allow', allow);
}

async function serveRest(state: AppState, registry: Registry, req: Request, res: Response, target: RestTarget): Promise<void> {
  const started = process.hrtime.bigint();
  const urls = makeUrls(state.config.publicUrl, target.langSegment);
  const lang: Lang = target.langSegment ?? DEFAULT_LANG;
  const ip = req.ip ?? '';
  let caller: Caller = { kind: 'anonymous' };
  let status = 500;
  let routeKey: string | undefined;
  // D6: `_method` and `X-HTTP-Method-Override` act only on a POST; any other request keeps its own method.
  const override =
    req.method !== 'POST' ? undefined : typeof target.query._method === 'string' ? target.query._method : req.headers['x-http-method-override'];
  const method = (typeof override === 'string' && override ? override : req.method).toUpperCase();
  try {
    let parsed: ParsedBody = { body: {}, json: null, jsonError: false, files: [] };
    if (req.method !== 'GET' && req.method !== 'HEAD')
      parsed = await parseBody(await readBody(req, { timeoutMs: state.config.bodyTimeoutMs }), req.headers['content-type']);
    // File parts of a multipart body reach only a route that takes files; elsewhere they are ignored.
    if (parsed.files.length && METHODS.has(method)) {
      const m = registry.match(target.route, method as Method);
      if (m.kind === 'found') parsed.body = withFileParams(m.endpoint.def.id, parsed.body, parsed.files);
    }
    // A request has a JSON body or a form body, never both (see parseBody).
    const globals = readGlobals(target.query, parsed.json ?? parsed.body);
    if (globals.jsonp !== null && !validJsonpCallback(globals.jsonp)) {
      // As core: its headers (the discovery Link, the JavaScript type `_jsonp` asked for) are sent before the
      // callback is checked, and before the caller is known.
      status = 400;
      commonHeaders(res, req, urls, caller, state.config.corsOrigins);
      res.status(400).setHeader('Content-Type', 'application/javascript; charset=UTF-8');
      res.end(JSON.stringify({ code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.' }));
      return;
    }
    const apiKeyParam =
      typeof parsed.body.api_key === 'string' ? parsed.body.api_key : typeof target.query.api_key === 'string' ? target.query.api_key : undefined;
    const keyChecks: KeyChecks = new Map();
    try {
      caller = await authenticate(state.db, { authorization: req.headers.authorization, apiKeyParam, ip, keyChecks }, state);
    } catch (e) {
      commonHeaders(res, req, urls, caller, state.config.corsOrigins);
      if (!(e instanceof HttpError)) throw e;
      status = e.status;
      return write(res, { ...errorResult(e), headers: errorHeaders(e) }, globals, req.method === 'HEAD');
    }
    commonHeaders(res, req, urls, caller, state.config.corsOrigins);
    if (!METHODS.has(method)) {
      status = 404;
      return write(res, errorResult(noRoute()), globals, false);
    }
    if (method === 'OPTIONS') {
      const m = registry.match(target.route, 'GET');
      const entry = m.kind === 'none' ? undefined : m.entry;
      status = 200;
      if (entry) setAllow(res, allowHeader(entry, caller));
      return write(res, { status: 200, body: entry ? routeData(entry, urls) : [] }, globals, false, undefined, {
        accept: req.headers['accept-encoding'],
      });
    }
    const restReq: RestRequest = {
      method: (method === 'HEAD' ? 'GET' : method) as Method,
      route: target.route,
      query: target.query,
      body: parsed.body,
      json: parsed.json,
      jsonError: parsed.jsonError,
      headers: req.headers,
    };
    const cache = state.services.responseCache;
    // Only a real GET (or HEAD) without a body is answered from, or stored into, the anonymous cache: an
    // overridden POST is answered from its body parameters, which the URL does not show.
    const cacheable = caller.kind === 'anonymous' && (req.method === 'GET' || req.method === 'HEAD') && restReq.method === 'GET' && !hasBody(req);
    const key = cacheable ? cacheKey(target) : null;
    const hit = key ? await cache.get(state.db, state.contentVersion, key) : undefined;
    let result: Result;
    // The body already serialised (a cached answer, or one just cached), so it is not stringified twice.
    let json: Buffer | undefined;
    if (hit) {
      routeKey = hit.routeKey;
      setAllow(res, hit.allow);
      result = hit.result;
      json = hit.json;
    } else {
      const cookies = parseCookies(req.headers.cookie);
      const setCookie = (name: string, value: string, maxAge: number) => {
        res.append('Set-Cookie', `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax`);
      };
      const outcome = prepare(
        registry,
        state,
        restReq,
        { caller, urls, lang, ip, cookies, userAgent: String(req.headers['user-agent'] ?? ''), setCookie, keyChecks },
        { inBatch: false },
      );
      if (!outcome.ok) {
        // `rest_send_allow_header` runs only for a matched handler: a method no handler takes gets no Allow.
        if (outcome.entry && outcome.error.code !== 'rest_no_route') setAllow(res, allowHeader(outcome.entry, caller));
        result = errorResult(outcome.error);
      } else {
        routeKey = outcome.prepared.entry.key;
        const allow = allowHeader(outcome.prepared.entry, caller);
        setAllow(res, allow);
        result = await execute(outcome.prepared);
        if (key && outcome.prepared.endpoint.def.publicCache && result.status === 200 && !result.raw) {
          json = await cache.set(state.db, state.contentVersion, key, { result, allow, routeKey }, readTags(outcome.prepared.endpoint.def.id));
        }
      }
    }
    const filtered = await filterRestResponse(
      state,
      { method, route: target.route, matched: routeKey, query: target.query, caller, ip, headers: req.headers },
      result,
    );
    if (typeof override === 'string' && filtered.status >= 400)
      res.setHeader('Cache-Control', 'no-cache, must-revalidate, max-age=0, no-store, private');
    status = globals.envelope ? 200 : filtered.status;
    write(res, filtered, globals, method === 'HEAD', filtered === result ? json : undefined, {
      accept: req.headers['accept-encoding'],
      cache,
      key: key ?? undefined,
    });
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    status = e.status;
    commonHeaders(res, req, urls, caller, state.config.corsOrigins);
    if (isRequestTimeout(e)) closeAfterResponse(req, res);
    sendJson(res, e.status, e.body(), false);
  } finally {
    state.log({
      level: 'info',
      method,
      route: target.route,
      matched: routeKey,
      status,
      caller: callerTag(caller),
      ms: Number(process.hrtime.bigint() - started) / 1e6,
    });
  }
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
interface Encoding {
  accept: string | string[] | undefined;
  cache?: ResponseCache;
  key?: string;
}

/**
 * Writes a result with the global parameters applied; `json` is the body already serialised (cache hits). A JSON
 * body of at least COMPRESS_MIN_BYTES goes compressed when the request accepts brotli or gzip (`enc`), the
 * compressed form kept with the cache entry when the body is the entry's.
 */
function write(res: Response, result: Result, g: Globals, head: boolean, json?: Buffer, enc?: Encoding): void {
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
        res.end(kept ?? compressBody(coding, bytes));
        return;
      }
    }
    res.end(bytes);
    return;
  }
  res.end(head ? undefined : text);
}
