import type { z } from 'zod';
import { enumString, type Param, type ParamValue } from './params.ts';
import type { Permission } from '../auth.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const WRITE_METHODS: readonly Method[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

export type Args = Record<string, Param>;

export interface DocResponse {
  description: string;
  /** Name of a component schema in the namespace document. */
  schema?: string;
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
  /** OpenAPI: `false` leaves the endpoint out of `/doc`. */
  readonly doc?: false | { responses?: Record<string, DocResponse> };
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
}

export interface NamespaceDef {
  readonly name: string;
  /** Endpoints in registration order; the index lists routes in the order their first endpoint appears. */
  readonly routes: readonly RouteDef[];
  readonly doc: NamespaceDoc;
}

/** Convert a WordPress route pattern to a JavaScript regular expression source. */
export function routeRegexSource(namespace: string, route: string): string {
  return `^/${namespace}${route}`.replace(/\(\?P</g, '(?<') + '$';
}

/** `/events/(?P<id>\d+)` -> `/events/{id}` for OpenAPI. */
export function openApiPath(route: string): string {
  return route.replace(/\(\?P<([a-zA-Z_][a-zA-Z0-9_]*)>[^)]*\)/g, '{$1}');
}
