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
  endpoints: Endpoint[];
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
      entry = { key, namespace, regex: new RegExp(namespace ? routeRegexSource(namespace, route) : `^${route}$`, 'i'), endpoints: [] };
      this.byKey.set(key.toLowerCase(), entry);
      this.routes.push(entry);
    }
    entry.endpoints.push(endpoint);
  }

  /** WordPress `match_request_to_handler`: first route whose pattern and method both match. */
  match(path: string, method: Method): Match {
    let pathMatched: RouteEntry | null = null;
    for (const entry of this.routes) {
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
