import qs from 'qs';
import type { NamespaceDef } from '../../shared/http/route.ts';
import { batchRoute, namespaceRoutes, siteIndexRoute, type BatchItem } from '../../shared/routes/core.ts';
import { gmtOffsetHours } from '../../shared/dates.ts';
import type { Ctx } from '../kernel/context.ts';
import { allowHeader, prepare, type Prepared, type RestRequest } from './dispatch.ts';
import { HttpError } from '../kernel/errors.ts';
import { normaliseRoute } from './incoming.ts';
import { implement, type Endpoint, type Registry } from './registry.ts';
import { errorResult, ok, type Result } from '../kernel/result.ts';
import { openApiDocument, routesData } from './describe.ts';
import { runGrouped } from './batch-group.ts';

function registryOf(ctx: Ctx): Registry {
  return ctx.app.services.registry;
}

export const siteIndex = implement(siteIndexRoute, (_input, ctx) => {
  const { config } = ctx.app;
  const reg = registryOf(ctx);
  return ok({
    name: config.siteName,
    description: config.siteDescription,
    url: ctx.urls.site(''),
    home: ctx.urls.site(''),
    gmt_offset: gmtOffsetHours(config.timezone, new Date()),
    timezone_string: config.timezone,
    page_for_posts: 0,
    page_on_front: 0,
    show_on_front: 'posts',
    namespaces: reg.namespaces.map((n) => n.name),
    authentication: [],
    routes: routesData(reg, ctx.urls),
    site_logo: 0,
    site_icon: 0,
    site_icon_url: '',
    _links: { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] },
  });
});

export function namespaceEndpoints(ns: NamespaceDef): Endpoint[] {
  const { index, doc } = namespaceRoutes(ns.name);
  return [
    implement(index, (_input, ctx) => {
      return ok({ namespace: ns.name, routes: routesData(registryOf(ctx), ctx.urls, ns.name), _links: { up: [{ href: ctx.urls.root }] } });
    }),
    implement(doc, (_input, ctx) => ok(openApiDocument(registryOf(ctx), ns, ctx.urls))),
  ];
}

/**
 * `envelope_response` of one item: its headers, with the route's `Allow` for the caller when a handler of the
 * route was matched (`rest_post_dispatch`); none at all is PHP's empty array, `[]`.
 */
function envelope(r: Result, allow?: string): { body: unknown; status: number; headers: Record<string, string> | [] } {
  const headers: Record<string, string> = { ...r.headers };
  if (allow) headers.Allow = allow;
  return { body: r.body, status: r.status, headers: Object.keys(headers).length ? headers : [] };
}

/** A plain path (letters, digits, `-`, `_` segments, no query): parsing it as a URL would change nothing. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)+\/?$/;

function subRequest(item: BatchItem): RestRequest | HttpError {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(item.headers ?? {})) if (k !== '__proto__') headers[k.toLowerCase()] = v;
  if (PLAIN_PATH.test(item.path)) {
    return { method: item.method, route: normaliseRoute(item.path), query: {}, body: item.body ?? {}, json: null, jsonError: false, headers };
  }
  let url: URL;
  let route: string;
  try {
    url = new URL(item.path, 'http://batch.invalid');
    route = normaliseRoute(decodeURIComponent(url.pathname));
  } catch {
    return new HttpError(400, 'parse_path_failed', 'Could not parse the path.');
  }
  return {
    method: item.method,
    route,
    query: qs.parse(url.search.slice(1)) as Record<string, unknown>,
    body: item.body ?? {},
    json: null,
    jsonError: false,
    headers,
  };
}

/**
 * `POST /batch/v1` as WordPress core runs it: validate every item (route, opt-in, parameters), then either stop
 * (`require-all-validate` with a failure) or run each in order as the caller, each in its own transaction.
 */
export const batch = implement(
  batchRoute,
  async (input, ctx) => {
    const reg = registryOf(ctx);
    const env = {
      caller: ctx.caller,
      urls: ctx.urls,
      lang: ctx.lang,
      ip: ctx.req.ip,
      cookies: ctx.req.cookies,
      userAgent: ctx.req.userAgent,
      setCookie: ctx.setCookie,
      keyChecks: ctx.req.keyChecks,
    };
    // Each item's `Allow`: its route's methods the caller may use, when a handler was matched (not for an
    // unknown route or method, as `rest_send_allow_header` runs only after a match).
    const allows: (string | undefined)[] = [];
    const prepared: (Prepared | HttpError)[] = input.requests.map((item) => {
      const sub = subRequest(item);
      if (sub instanceof HttpError) {
        allows.push(undefined);
        return sub;
      }
      const outcome = prepare(reg, ctx.app, sub, env, { inBatch: true });
      const entry = outcome.ok ? outcome.prepared.entry : outcome.error.code === 'rest_no_route' ? undefined : outcome.entry;
      allows.push(entry ? allowHeader(entry, ctx.caller) : undefined);
      return outcome.ok ? outcome.prepared : outcome.error;
    });
    const failedAny = prepared.some((p) => p instanceof HttpError);
    if (input.validation === 'require-all-validate' && failedAny) {
      return {
        status: 207,
        body: {
          failed: 'validation',
          // Nothing ran: the failures are bare errors (`error_to_response`, no headers), the others null.
          responses: prepared.map((p) => (p instanceof HttpError ? envelope(errorResult(p)) : null)),
        },
      };
    }
    const responses = (await runGrouped(ctx.db, prepared)).map((r, i) => envelope(r, allows[i]));
    return { status: 207, body: { responses } };
  },
  { async: true },
);
