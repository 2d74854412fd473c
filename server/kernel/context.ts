import type { Db } from '../db/connection.ts';
import type { SharedState } from '../db/change-feed.ts';
import type { Config } from '../config.ts';
import type { Capability, Role } from '../../shared/auth.ts';
import type { Method } from '../../shared/http/route.ts';
import { roleCan } from '../../shared/auth.ts';
import type { Services } from './services.ts';

export type Lang = 'en' | 'et';
export const LANGS: readonly Lang[] = ['en', 'et'];
export const DEFAULT_LANG: Lang = 'en';

export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'user'; userId: number; login: string; displayName: string; role: Role; appPasswordId: number }
  | { kind: 'api_key'; keyId: number; label: string; eventId: number | null; listId: number | null; role: 'door' };

/** Process-wide state shared by every request: the database, configuration and services. */
export interface AppState {
  db: Db;
  config: Config;
  /** Secret for nonces and signed links. */
  secret: string;
  /**
   * Where what every process on the database must agree on is kept (rate limits, cache invalidation): in memory
   * ('process', one process per database) or in the database ('database'). Fixed at app creation.
   */
  sharedState: SharedState;
  /** Bumped on every committed write; response caches key on it. */
  contentVersion: number;
  /** Process-wide services, typed field by field (see services.ts). */
  services: Services;
  log: (entry: Record<string, unknown>) => void;
}

/** Builds the public URLs of this request (they keep the request's language segment). */
export interface Urls {
  /** Interface root, with a trailing slash: `http://host/et/wp-json/`. */
  root: string;
  /** `rest('/evt/events/v1/events/12')` -> absolute URL of that route. */
  rest: (route: string) => string;
  /** Site pages: `site('/event/slug/')`. */
  site: (path: string) => string;
  /** The public base URL, no trailing slash. */
  base: string;
  langSegment: Lang | null;
}

/** The URLs of a request under `base` (`lang`: the request's language segment, if it had one). */
export function makeUrls(base: string, lang: Lang | null): Urls {
  const prefix = lang ? `/${lang}` : '';
  const root = `${base}${prefix}/wp-json/`;
  return {
    root,
    base,
    langSegment: lang,
    rest: (route: string) => root + route.replace(/^\/+/, ''),
    site: (path: string) => `${base}${prefix}${path || '/'}`,
  };
}

export interface RequestInfo {
  method: Method | 'HEAD' | 'OPTIONS';
  /** The route as matched, e.g. `/evt/events/v1/events/12`. */
  route: string;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** All parameters merged with WordPress precedence (JSON > form body > query > URL). */
  params: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  cookies: Record<string, string>;
  userAgent: string;
  /** Door keys already checked while serving this request, by their text (auth/authenticate.ts `checkApiKey`). */
  keyChecks?: Map<string, unknown>;
}

export interface Ctx {
  app: AppState;
  db: Db;
  caller: Caller;
  lang: Lang;
  urls: Urls;
  req: RequestInfo;
  /** Inside `POST /batch/v1`. */
  inBatch: boolean;
  /** Headers a handler wants on the response besides those in its result. */
  setCookie?: (name: string, value: string, maxAgeSeconds: number) => void;
}

export function callerRole(c: Caller): Role | null {
  return c.kind === 'user' ? c.role : c.kind === 'api_key' ? 'door' : null;
}

/** A stable name of the caller (`user:1`, `key:2`, `anonymous`) for logs and nonces. */
export function callerTag(c: Caller): string {
  return c.kind === 'user' ? `user:${c.userId}` : c.kind === 'api_key' ? `key:${c.keyId}` : 'anonymous';
}

export function can(ctx: Pick<Ctx, 'caller'>, cap: Capability): boolean {
  return roleCan(callerRole(ctx.caller), cap);
}

export function isAnonymous(ctx: Pick<Ctx, 'caller'>): boolean {
  return ctx.caller.kind === 'anonymous';
}

/** WordPress user ID of the caller (0 for anonymous and API keys). */
export function callerUserId(ctx: Pick<Ctx, 'caller'>): number {
  return ctx.caller.kind === 'user' ? ctx.caller.userId : 0;
}
