import type { Method } from '../../shared/http/route.ts';
import { WRITE_METHODS } from '../../shared/http/route.ts';
import { roleCan } from '../../shared/auth.ts';
import type { AppState, Caller, Ctx, Lang, RequestInfo, Urls } from './context.ts';
import { callerRole } from './context.ts';
import { HttpError, forbidden, internalError, noRoute } from './errors.ts';
import type { Endpoint, Registry, RouteEntry } from './registry.ts';
import { errorResult, type Result } from './result.ts';
import { validateArgs } from './validate.ts';
import { inTransaction } from '../db/in-transaction.ts';

/** A request in REST terms, whether it came over HTTP or as an item of a batch. */
export interface RestRequest {
  method: Method;
  route: string;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  json: Record<string, unknown> | null;
  jsonError: boolean;
  headers: Record<string, string | string[] | undefined>;
}

export interface CallerEnv {
  caller: Caller;
  urls: Urls;
  lang: Lang;
  ip: string;
  cookies: Record<string, string>;
  userAgent: string;
  setCookie?: Ctx['setCookie'];
}

/** A request that matched and validated: ready to run. */
export interface Prepared {
  entry: RouteEntry;
  endpoint: Endpoint;
  input: Record<string, unknown>;
  ctx: Ctx;
}

export type PrepareOutcome = { ok: true; prepared: Prepared } | { ok: false; error: HttpError; entry?: RouteEntry };

export function mergeParams(req: RestRequest, pathParams: Record<string, string>): Record<string, unknown> {
  // WordPress precedence: JSON body > form body > query string > URL parameters.
  return { ...pathParams, ...req.query, ...req.body, ...(req.json ?? {}) };
}

/** Route match, JSON check, required and invalid parameters: everything before the permission check. */
export function prepare(
  registry: Registry,
  app: AppState,
  req: RestRequest,
  env: CallerEnv,
  opts: { inBatch: boolean },
): PrepareOutcome {
  const match = registry.match(req.route, req.method);
  if (match.kind !== 'found') return { ok: false, error: noRoute(), entry: match.kind === 'method' ? match.entry : undefined };
  const { entry, endpoint } = match;
  if (opts.inBatch && !endpoint.def.batch) {
    return { ok: false, entry, error: new HttpError(400, 'rest_batch_not_allowed', 'The requested route does not support batch requests.') };
  }
  if (req.jsonError) {
    return {
      ok: false,
      entry,
      error: new HttpError(400, 'rest_invalid_json', 'Invalid JSON body passed.', { json_error_code: 4, json_error_message: 'Syntax error' }),
    };
  }
  const params = mergeParams(req, match.pathParams);
  let input: Record<string, unknown>;
  try {
    input = validateArgs(endpoint.def.args, params);
  } catch (e) {
    if (e instanceof HttpError) return { ok: false, error: e, entry };
    throw e;
  }
  const tl = input.translation_language;
  const lang: Lang = tl === 'en' || tl === 'et' ? tl : env.lang;
  const info: RequestInfo = {
    method: req.method,
    route: req.route,
    query: req.query,
    body: { ...req.body, ...(req.json ?? {}) },
    params,
    headers: req.headers,
    ip: env.ip,
    cookies: env.cookies,
    userAgent: env.userAgent,
  };
  const ctx: Ctx = { app, db: app.db, caller: env.caller, lang, urls: env.urls, req: info, inBatch: opts.inBatch, setCookie: env.setCookie };
  return { ok: true, prepared: { entry, endpoint, input, ctx } };
}

export function permitted(endpoint: Endpoint, caller: Caller): boolean {
  const p = endpoint.def.permission;
  if (p === 'public') return true;
  if (p === 'authenticated') return caller.kind !== 'anonymous';
  return roleCan(callerRole(caller), p);
}

/** Permission, then the handler; a sync write handler runs in one transaction so a failure changes nothing. */
export async function execute(p: Prepared): Promise<Result> {
  const { endpoint, ctx } = p;
  if (!permitted(endpoint, ctx.caller)) {
    return errorResult(forbidden(ctx.caller.kind === 'anonymous', endpoint.def.forbiddenMessage));
  }
  const isWrite = WRITE_METHODS.includes(ctx.req.method as Method);
  try {
    let result: Result;
    if (endpoint.async) {
      result = await endpoint.handler(p.input as never, ctx);
    } else if (isWrite) {
      result = inTransaction(ctx.db, () => endpoint.handler(p.input as never, ctx) as Result);
    } else {
      result = endpoint.handler(p.input as never, ctx) as Result;
    }
    if (isWrite) ctx.app.contentVersion++;
    return result;
  } catch (e) {
    if (e instanceof HttpError) return errorResult(e);
    ctx.app.log({ level: 'error', msg: 'unhandled error', route: ctx.req.route, method: ctx.req.method, error: String((e as Error)?.stack ?? e) });
    return errorResult(internalError());
  }
}
