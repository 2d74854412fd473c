import type { Args, Input, Method, NamespaceDef, RouteDef } from '../../shared/http/route.ts';
import { routeRegexSource } from '../../shared/http/route.ts';
import type { Ctx } from './context.ts';
import type { Result } from './result.ts';

export type Handler<A extends Args> = (input: Input<A>, ctx: Ctx) => Result | Promise<Result>;

/** A route definition with its handler bound. */
export interface Endpoint {
  def: RouteDef;
  handler: Handler<Args>;
  /** Async handlers manage their own transactions; sync write handlers run inside one. */
  async: boolean;
}

export function implement<A extends Args>(def: RouteDef<A>, handler: Handler<A>, opts: { async?: boolean } = {}): Endpoint {
  return { def: def as unknown as RouteDef, handler: handler as unknown as Handler<Args>, async: opts.async ?? false };
}

/** A WordPress route: one pattern with its endpoints (one per method group), as the index shows it. */
export interface RouteEntry {
  /** Full pattern as shown in the index, e.g. `/evt/events/v1/events/(?P<id>\d+)`. */
  key: string;
  namespace: string;
  regex: RegExp;
  /** The pattern's literal start, lowercased: a path that does not start with it cannot match. */
  prefix: string;
  endpoints: Endpoint[];
}

/** The literal part of a route pattern before its first regular-expression syntax (ASCII only, else ''). */
function literalPrefix(key: string): string {
  if (key.includes('|')) return '';
  let p = /^[^()[\]\\.*+?{}^$]*/.exec(key)![0];
  // A quantifier makes the character before it optional or repeatable: it is not part of the prefix.
  if ('*+?{'.includes(key.charAt(p.length)) && key.length > p.length) p = p.slice(0, -1);
  return /^[\x20-\x7e]*$/.test(p) ? p.toLowerCase() : '';
}

export type Match =
  | { kind: 'found'; entry: RouteEntry; endpoint: Endpoint; pathParams: Record<string, string> }
  | { kind: 'method'; entry: RouteEntry }
  | { kind: 'none' };

export class Registry {
  readonly routes: RouteEntry[] = [];
  readonly namespaces: NamespaceDef[] = [];
  private readonly byKey = new Map<string, RouteEntry>();

  add(endpoint: Endpoint): void {
    const { namespace, route } = endpoint.def;
    const key = namespace ? `/${namespace}${route}` : route;
    let entry = this.byKey.get(key.toLowerCase());
    if (!entry) {
      entry = { key, namespace, regex: new RegExp(namespace ? routeRegexSource(namespace, route) : `^${route}$`, 'i'), prefix: literalPrefix(key), endpoints: [] };
      this.byKey.set(key.toLowerCase(), entry);
      this.routes.push(entry);
    }
    entry.endpoints.push(endpoint);
  }

  /** WordPress `match_request_to_handler`: first route whose pattern and method both match. */
  match(path: string, method: Method): Match {
    let pathMatched: RouteEntry | null = null;
    // The regular expressions are case-insensitive; for ASCII literals that is exactly what lowercasing does.
    const lower = path.toLowerCase();
    for (const entry of this.routes) {
      if (!lower.startsWith(entry.prefix)) continue;
      const m = entry.regex.exec(path);
      if (!m) continue;
      pathMatched ??= entry;
      const endpoint = entry.endpoints.find((e) => e.def.methods.includes(method));
      if (endpoint) return { kind: 'found', entry, endpoint, pathParams: { ...(m.groups ?? {}) } };
    }
    return pathMatched ? { kind: 'method', entry: pathMatched } : { kind: 'none' };
  }

  namespace(name: string): NamespaceDef | undefined {
    return this.namespaces.find((n) => n.name.toLowerCase() === name.toLowerCase());
  }
}
