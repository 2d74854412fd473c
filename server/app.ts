import express, { type Express, type Request, type Response } from 'express';
import type { Method } from '../shared/http/route.ts';
import type { Config } from './config.ts';
import { startCheckpointer } from './ops/checkpointer.ts';
import { startHub } from './hub/hub.ts';
import { openDatabase, type Db } from './db/connection.ts';
import { resolveSiteSecret } from './db/repos/site-options.ts';
import { engineOf } from './db/engine/types.ts';
import { openChangeFeed, type SharedState } from './db/change-feed.ts';
import { authenticate, type KeyChecks } from './auth/authenticate.ts';
import { errorHeaders } from './auth/sign-in-limits.ts';
import type { AppState, Caller, Lang } from './kernel/context.ts';
import { DEFAULT_LANG, callerTag, makeUrls } from './kernel/context.ts';
import { allowHeader, execute, prepare, type RestRequest } from './http/dispatch.ts';
import { HttpError, internalError, noRoute } from './kernel/errors.ts';
import { readGlobals, validJsonpCallback } from './http/globals.ts';
import { commonHeaders, refuseJsonpCallback, sendJson, setAllow, writeResult } from './http/outgoing.ts';
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
import { createLogger, logFunction } from './log.ts';
import { health } from './http/health.ts';
import { compileTrust } from './http/client-address.ts';

/** How long a browser may keep a CORS preflight's answer, in seconds: Chromium's cap (Firefox allows a day). */
const PREFLIGHT_MAX_AGE_S = 7200;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

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
    secret: await resolveSiteSecret(db, opts.config.secret),
    sharedState,
    contentVersion: 0,
    services: { registry, responseCache: new ResponseCache(opts.config.cache) },
    log,
  };
  const checkpointer = db.memory ? null : startCheckpointer(db, { onError: (error) => log({ level: 'error', msg: 'WAL checkpoint failed', error }) });
  state.services.checkpointer = checkpointer;
  await installModules(state);
  // Venue hub mode (EVT_UPSTREAM): mirrors the site's event and pushes check-ins there (server/hub/).
  await startHub(state);
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

/** A request that carries a body (a length above 0, or a chunked one). */
function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
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
      refuseJsonpCallback(res);
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
      return writeResult(res, { ...errorResult(e), headers: errorHeaders(e) }, globals, req.method === 'HEAD');
    }
    commonHeaders(res, req, urls, caller, state.config.corsOrigins);
    if (!METHODS.has(method)) {
      status = 404;
      return writeResult(res, errorResult(noRoute()), globals, false);
    }
    if (method === 'OPTIONS') {
      // A browser's preflight (a kiosk on its own origin, as the Electron shell's app:// is, sends one before each
      // signed request): the browser may keep the answer for up to two hours (Chromium's most) instead of its
      // default 5 s, so a door scanning a guest every few seconds does not pay a second round trip per check-in.
      if (req.headers.origin && req.headers['access-control-request-method']) res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
      const m = registry.match(target.route, 'GET');
      const entry = m.kind === 'none' ? undefined : m.entry;
      status = 200;
      if (entry) setAllow(res, allowHeader(entry, caller));
      return writeResult(res, { status: 200, body: entry ? routeData(entry, urls) : [] }, globals, false, undefined, {
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
    writeResult(res, filtered, globals, method === 'HEAD', filtered === result ? json : undefined, {
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
