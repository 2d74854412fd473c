import type { Method } from '../../shared/http/route.ts';
import { hubWriteRefusal } from '../hub/read-only.ts';
import { WRITE_METHODS } from '../../shared/http/route.ts';
import { roleCan } from '../../shared/auth.ts';
import type { AppState, Caller, Ctx, Lang, RequestInfo, Urls } from '../kernel/context.ts';
import { callerRole } from '../kernel/context.ts';
import { HttpError, forbidden, internalError, noRoute } from '../kernel/errors.ts';
import type { Endpoint, Registry, RouteEntry } from './registry.ts';
import { errorResult, type Result } from '../kernel/result.ts';
import { validateArgs } from './validate.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { LockTimeout, TextRefused } from '../db/engine/types.ts';
import { touch, writeTags } from './cache-tags.ts';

/** A request in REST terms, whether it came over HTTP or as an item of a batch. */
export interface RestRequest {
  method: Method;
  route: string;
  query: Record<string, unknown>;
  /** The form body (a batch item's body goes here too); empty when the request had a JSON body. */
  body: Record<string, unknown>;
  /** The JSON body, when the request had one. */
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
  keyChecks?: RequestInfo['keyChecks'];
}

/** A request that matched and validated: ready to run. */
export interface Prepared {
  entry: RouteEntry;
  endpoint: Endpoint;
  input: Record<string, unknown>;
  ctx: Ctx;
}

export type PrepareOutcome = { ok: true; prepared: Prepared } | { ok: false; error: HttpError; entry?: RouteEntry };

/**
 * Copies own keys as object spread does (a `__proto__` key becomes a plain property, never the prototype), 0.2 µs
 * instead of 2.9 µs (a direct loop) for spreading four objects whose first is the regex's null-prototype groups.
 */
function assignOwn(out: Record<string, unknown>, src: Record<string, unknown> | null): void {
  if (!src) return;
  for (const k of Object.keys(src)) {
    if (k === '__proto__') Object.defineProperty(out, k, { value: src[k], enumerable: true, writable: true, configurable: true });
    else out[k] = src[k];
  }
}

export function mergeParams(req: RestRequest, pathParams: Record<string, string>): Record<string, unknown> {
  // WordPress precedence: JSON body > form body > query string > URL parameters.
  const out: Record<string, unknown> = {};
  assignOwn(out, pathParams);
  assignOwn(out, req.query);
  assignOwn(out, req.body);
  assignOwn(out, req.json);
  return out;
}

/** Route match, JSON check, required and invalid parameters: everything before the permission check. */
export function prepare(registry: Registry, app: AppState, req: RestRequest, env: CallerEnv, opts: { inBatch: boolean }): PrepareOutcome {
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
  // A venue hub takes check-ins only (server/hub/read-only.ts).
  if (app.services.hub) {
    const refused = hubWriteRefusal(endpoint.def, req.method, input);
    if (refused) return { ok: false, error: refused, entry };
  }
  const tl = input.translation_language;
  const lang: Lang = tl === 'en' || tl === 'et' ? tl : env.lang;
  const info: RequestInfo = {
    method: req.method,
    route: req.route,
    query: req.query,
    body: req.json ?? req.body,
    params,
    headers: req.headers,
    ip: env.ip,
    cookies: env.cookies,
    userAgent: env.userAgent,
    keyChecks: env.keyChecks,
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

/** The `Allow` header of a route for this caller: the methods of its endpoints the caller may use. */
export function allowHeader(entry: RouteEntry, caller: Caller): string {
  const methods: string[] = [];
  for (const e of entry.endpoints) if (permitted(e, caller)) for (const m of e.def.methods) if (!methods.includes(m)) methods.push(m);
  return methods.join(', ');
}

/** The permission check's answer when the caller may not run the endpoint, else null. */
function denied(p: Prepared): Result | null {
  return permitted(p.endpoint, p.ctx.caller) ? null : errorResult(forbidden(p.ctx.caller.kind === 'anonymous', p.endpoint.def.forbiddenMessage));
}

/** What a handler's throw answers with: its own error, or a logged 500. */
function failure(ctx: Ctx, e: unknown): Result {
  if (e instanceof HttpError) return errorResult(e);
  // Bad input the database refused (a NUL character on PostgreSQL): nothing was written.
  if (e instanceof TextRefused) return errorResult(new HttpError(400, 'rest_invalid_param', `Invalid parameter(s): ${e.message}.`));
  if (e instanceof LockTimeout) {
    // Nothing was written (the transaction rolled back); the client may send the same request again.
    ctx.app.log({ level: 'warn', msg: 'database busy', route: ctx.req.route, method: ctx.req.method, error: e.message });
    const busy = new HttpError(503, 'evt_database_busy', 'The database is busy. Please try again in a moment.');
    busy.answerHeaders = { 'Retry-After': '1' };
    return errorResult(busy);
  }
  ctx.app.log({ level: 'error', msg: 'unhandled error', route: ctx.req.route, method: ctx.req.method, error: String((e as Error)?.stack ?? e) });
  return errorResult(internalError());
}

/**
 * After a write: the response cache drops what the route declares it changed (server/http/cache-tags.ts), or
 * everything (the app's `contentVersion` moves) when the route declares nothing.
 */
async function wrote(p: Prepared): Promise<void> {
  await touch(p.ctx.app, writeTags(p.endpoint.def.id, p.input));
}

/**
 * Permission, then a handler that talks to nothing but the database; a write runs in one transaction so a
 * failure changes nothing. Batches call this directly for such items, inside the group's transaction.
 */
export async function executeInline(p: Prepared): Promise<Result> {
  const refused = denied(p);
  if (refused) return refused;
  const { endpoint, ctx } = p;
  const isWrite = WRITE_METHODS.includes(ctx.req.method as Method);
  try {
    if (!isWrite) return await endpoint.handler(p.input as never, ctx);
    // What the write changed is recorded in its own transaction (other processes read it from the database).
    return await inTransaction(ctx.db, async () => {
      const result = await endpoint.handler(p.input as never, ctx);
      await wrote(p);
      return result;
    });
  } catch (e) {
    return failure(ctx, e);
  }
}

/**
 * Consecutive batch items of one endpoint that `fits` its set-based run (Endpoint.many), inside the batch's
 * transaction: each item's permission, then the run. With `savepoint` the run has a savepoint of its own, so a
 * statement that fails (a lock not granted in time) undoes the run's writes only and answers each of its items
 * as executeInline would; without it (the run is the whole transaction) a failure fails the transaction.
 */
export async function executeRun(items: readonly Prepared[], opts: { savepoint: boolean }): Promise<Result[]> {
  const out: (Result | null)[] = items.map(denied);
  const todo = items.filter((_, k) => out[k] === null);
  const first = todo[0];
  if (first) {
    const many = first.endpoint.many as NonNullable<Endpoint['many']>;
    const run = async () => {
      const ran = await many.run(todo.map((p) => ({ input: p.input, ctx: p.ctx })));
      for (let k = 0; k < todo.length; k++) if (ran[k]?.wrote) await wrote(todo[k] as Prepared);
      return ran.map((a) => a.result);
    };
    let answers: Result[];
    if (!opts.savepoint) answers = await run();
    else {
      try {
        answers = await inTransaction(first.ctx.db, run);
      } catch (e) {
        answers = todo.map((p) => failure(p.ctx, e));
      }
    }
    let k = 0;
    for (let i = 0; i < out.length; i++) if (out[i] === null) out[i] = answers[k++] as Result;
  }
  return out as Result[];
}

/** Permission, then the handler; asynchronous handlers manage their own transactions. */
export async function execute(p: Prepared): Promise<Result> {
  if (!p.endpoint.async) return await executeInline(p);
  const refused = denied(p);
  if (refused) return refused;
  const { endpoint, ctx } = p;
  try {
    const result = await endpoint.handler(p.input as never, ctx);
    if (WRITE_METHODS.includes(ctx.req.method as Method)) await wrote(p);
    return result;
  } catch (e) {
    return failure(ctx, e);
  }
}
