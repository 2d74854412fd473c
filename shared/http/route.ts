import type { z } from 'zod';
import { enumString, type Param, type ParamValue } from './params.ts';
import type { Permission } from '../auth.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const WRITE_METHODS: readonly Method[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

export type Args = Record<string, Param>;

export interface DocResponse {
  description: string;
  /**
   * The answer's schema: the name of a component schema of the namespace document (`Event`), an array of one
   * (`Event[]`), or an inline Zod schema. Error answers without one get the error envelope (`Error`).
   */
  schema?: string | z.ZodType;
  /** Media type of the answer when it is not JSON (`text/html`, `text/csv`, `image/png`, ...). */
  media?: string | readonly string[];
}

/** What `/doc` says of an endpoint beyond its args. */
export interface RouteDoc {
  /** Answers by status. The error envelope answers (400, 401, 403, 404, 413, 429) are added where they apply. */
  responses?: Record<string, DocResponse>;
  /**
   * Document-only schema keywords for parameters (e.g. `per_page` `maximum` where the original clamps instead of
   * refusing): shown in `/doc`, not in the route index, not enforced.
   */
  paramBounds?: Record<string, Record<string, unknown>>;
  /** Example values of path parameters, by name (defaults: 42 for integers, a slug for strings). */
  examples?: Record<string, unknown>;
  /** Parameters the handler reads from the request itself (the route declares only the language). */
  extraParams?: readonly {
    name: string;
    in: 'query' | 'header' | 'body';
    description: string;
    required?: boolean;
    schema: Record<string, unknown>;
  }[];
  /** Answers no statuses besides those listed (no automatic 404 for a path parameter, e.g.). */
  exact?: boolean;
}

/**
 * One endpoint of the interface, as data. The server binds a handler to it; the site index, the namespace
 * indexes, `/doc` and batch dispatch are all generated from these objects.
 */
export interface RouteDef<A extends Args = Args> {
  /** Stable name used to bind the handler, e.g. `events.read`. */
  readonly id: string;
  readonly namespace: string;
  /** WordPress route pattern relative to the namespace, with named groups: `/events/(?P<id>\d+)`. */
  readonly route: string;
  readonly methods: readonly Method[];
  readonly args: A;
  /** `public`, or the capability a caller needs before the handler runs. */
  readonly permission: Permission;
  /** Message of the `rest_forbidden` error when the permission fails. */
  readonly forbiddenMessage?: string;
  /** Anonymous GET answers may be reused until the next write (public content that depends only on data). */
  readonly publicCache?: boolean;
  /** Whether `POST /batch/v1` may run this endpoint. */
  readonly batch?: boolean;
  /** Read write parameters from the form body only (Event Tickets editor routes). */
  readonly formBodyOnly?: boolean;
  readonly summary: string;
  /** OpenAPI: what `/doc` says of the endpoint (every endpoint is documented). */
  readonly doc?: RouteDoc;
}

export type Input<A extends Args> = { [K in keyof A]: ParamValue<A[K]> };

/** Every route accepts the content language, as the spec says; it is appended to each endpoint's args. */
export const translationLanguage = enumString(['en', 'et'], { description: 'The language of the content to read or write.' });

export function defineRoute<const A extends Args>(def: RouteDef<A>): RouteDef<A> {
  return def;
}

export interface NamespaceDoc {
  title: string;
  description: string;
  version: string;
  schemas: Record<string, z.ZodType>;
  /** Component schema of the namespace's error answers (default `Error`, the WordPress envelope). */
  errorSchema?: string;
}

export interface NamespaceDef {
  readonly name: string;
  /** Endpoints in registration order; the index lists routes in the order their first endpoint appears. */
  readonly routes: readonly RouteDef[];
  readonly doc: NamespaceDoc;
}

/** Convert a WordPress route pattern to a JavaScript regular expression source. */
export function routeRegexSource(namespace: string, route: string): string {
  return `${`^/${namespace}${route}`.replace(/\(\?P</g, '(?<')}$`;
}

/** `/events/(?P<id>\d+)` -> `/events/{id}` for OpenAPI. */
export function openApiPath(route: string): string {
  return route.replace(/\(\?P<([a-zA-Z_][a-zA-Z0-9_]*)>[^)]*\)/g, '{$1}');
}
