import type { Args, Input, Method, NamespaceDef, RouteDef } from '../../shared/http/route.ts';
import { routeRegexSource } from '../../shared/http/route.ts';
import type { Ctx } from '../kernel/context.ts';
import type { Result } from '../kernel/result.ts';

declare module '../kernel/services.ts' {
  interface Services {
    /** The app's route table (the core routes list it). */
    registry: Registry;
  }
}

export type Handler<A extends Args> = (input: Input<A>, ctx: Ctx) => Result | Promise<Result>;

/** A route definition with its handler bound. */
export interface Endpoint {
  def: RouteDef;
  handler: Handler<Args>;
  /** Async handlers manage their own transactions; sync write handlers run inside one. */
  async: boolean;
  /**
   * The rows a write will lock, known from its input alone (db/repos/locks.ts). A batch takes those of all its
   * items at once, in ascending order, before it runs them, so two batches that meet the same attendees in
   * different orders wait for each other instead of deadlocking.
   */
  locks?: (input: Record<string, unknown>) => { attendees?: number[] };
  /**
   * A set-based way to run consecutive batch items of this endpoint (those whose input `fits`): `run` answers
   * them all, in order, exactly as the handler would one by one in one transaction, with fewer statements.
   */
  many?: RunMany;
}

/** One batch item handed to a set-based run. */
export interface RunItem {
  input: Record<string, unknown>;
  ctx: Ctx;
}

/** A run's answer for one item; `wrote`: the item got as far as writing (its cache tags are dropped). */
export interface RunAnswer {
  result: Result;
  wrote: boolean;
}

export interface RunMany {
  fits: (input: Record<string, unknown>, ctx: Ctx) => boolean;
  run: (items: readonly RunItem[]) => Promise<RunAnswer[]>;
}

export function implement<A extends Args>(
  def: RouteDef<A>,
  handler: Handler<A>,
  opts: { async?: boolean; locks?: (input: Input<A>) => { attendees?: number[] }; many?: RunMany } = {},
): Endpoint {
  return {
    def: def as unknown as RouteDef,
    handler: handler as unknown as Handler<Args>,
    async: opts.async ?? false,
    ...(opts.locks ? { locks: opts.locks as unknown as Endpoint['locks'] } : {}),
    ...(opts.many ? { many: opts.many } : {}),
  };
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

/** The text before a string's third `/` (its first two segments), or null when it has no third `/`. */
function bucketOf(s: string): string | null {
  const second = s.indexOf('/', 1);
  const third = second < 0 ? -1 : s.indexOf('/', second + 1);
  return third < 0 ? null : s.slice(0, third);
}

export type Match =
  | { kind: 'found'; entry: RouteEntry; endpoint: Endpoint; pathParams: Record<string, string> }
  | { kind: 'method'; entry: RouteEntry }
  | { kind: 'none' };

export class Registry {
  readonly routes: RouteEntry[] = [];
  readonly namespaces: NamespaceDef[] = [];
  private readonly byKey = new Map<string, RouteEntry>();
  /** Candidate routes by a path's first two segments (see `bucketOf`), in registration order; made on first use. */
  private buckets: Map<string, RouteEntry[]> | null = null;
  private loose: RouteEntry[] = [];

  add(endpoint: Endpoint): void {
    const { namespace, route } = endpoint.def;
    const key = namespace ? `/${namespace}${route}` : route;
    let entry = this.byKey.get(key.toLowerCase());
    if (!entry) {
      entry = {
        key,
        namespace,
        regex: new RegExp(namespace ? routeRegexSource(namespace, route) : `^${route}$`, 'i'),
        prefix: literalPrefix(key),
        endpoints: [],
      };
      this.byKey.set(key.toLowerCase(), entry);
      this.routes.push(entry);
      this.buckets = null;
    }
    entry.endpoints.push(endpoint);
  }

  /**
   * Routes whose literal prefix spans the first two segments (`/evt/tickets/...`) can only match paths that start
   * with those segments; the rest ("loose": `/`, `/batch/v1`, patterns with early syntax) may match anything.
   * Each bucket holds its own routes and the loose ones, in registration order, so first-match order holds.
   */
  private candidates(lower: string): RouteEntry[] {
    if (!this.buckets) {
      const keyed = new Map<string, RouteEntry[]>();
      this.loose = this.routes.filter((e) => bucketOf(e.prefix) === null);
      for (const e of this.routes) {
        const k = bucketOf(e.prefix);
        if (k !== null && !keyed.has(k))
          keyed.set(
            k,
            this.routes.filter((r) => bucketOf(r.prefix) === null || bucketOf(r.prefix) === k),
          );
      }
      this.buckets = keyed;
    }
    const k = bucketOf(lower);
    return (k !== null && this.buckets.get(k)) || this.loose;
  }

  /** WordPress `match_request_to_handler`: first route whose pattern and method both match. */
  match(path: string, method: Method): Match {
    let pathMatched: RouteEntry | null = null;
    // The regular expressions are case-insensitive; for ASCII literals that is exactly what lowercasing does.
    const lower = path.toLowerCase();
    for (const entry of this.candidates(lower)) {
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
