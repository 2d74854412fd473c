import { ErrorEnvelope } from '../../shared/errors.ts';

/**
 * The venue hub's client of the site: the site's interface root (`{EVT_UPSTREAM}/wp-json/`), the upstream door key
 * as a bearer token, a deadline on every request, and one failure type for every way a request can fail.
 */

export type UpstreamFailure =
  /** No answer in time, connection refused or reset: the site is unreachable from the venue. */
  | { kind: 'network'; message: string }
  /** 401 or 403: the upstream key is revoked, or not a key for this event. Nothing is pushed until it is replaced. */
  | { kind: 'refused'; status: number; code: string; message: string }
  /** 5xx, 429, or an answer that is not the site's JSON (a captive portal): try again later. */
  | { kind: 'unavailable'; status: number; message: string; retryAfterMs: number | null }
  /** Any other error answer (the event gone: 404). */
  | { kind: 'http'; status: number; code: string; message: string };

export class UpstreamError extends Error {
  constructor(readonly failure: UpstreamFailure) {
    super(failure.message);
  }
}

export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface Upstream {
  /** The site's base URL, as configured. */
  readonly url: string;
  get(path: string, query?: Record<string, string | number>): Promise<UpstreamAnswer>;
  post(path: string, body: unknown): Promise<UpstreamAnswer>;
}

/** A request that has not been answered within this is given up (the next cycle tries again). */
export const UPSTREAM_TIMEOUT_MS = 15_000;

export function createUpstream(url: string, key: string, fetchImpl: typeof fetch = fetch, timeoutMs = UPSTREAM_TIMEOUT_MS): Upstream {
  const root = `${url.replace(/\/+$/, '')}/wp-json/`;
  async function send(method: string, path: string, query: Record<string, string | number> | undefined, body: unknown): Promise<UpstreamAnswer> {
    const target = new URL(path.replace(/^\/+/, ''), root);
    for (const [k, v] of Object.entries(query ?? {})) target.searchParams.set(k, String(v));
    let res: Response;
    let text: string;
    try {
      res = await fetchImpl(target, {
        method,
        headers: {
          Authorization: `Bearer ${key}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      text = await res.text();
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      throw new UpstreamError({ kind: 'network', message: `${method} ${target.pathname}: ${cause ?? (e as Error).message}` });
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      throw new UpstreamError({
        kind: 'unavailable',
        status: res.status,
        message: `${method} ${target.pathname}: HTTP ${res.status}, not JSON`,
        retryAfterMs: null,
      });
    }
    if (res.ok || res.status === 207) return { status: res.status, headers: res.headers, body: parsed };
    const env = ErrorEnvelope.safeParse(parsed);
    const code = env.success ? env.data.code : '';
    const message = `${method} ${target.pathname}: HTTP ${res.status}${env.success ? ` ${env.data.code}: ${env.data.message}` : ''}`;
    if (res.status === 401 || res.status === 403) throw new UpstreamError({ kind: 'refused', status: res.status, code, message });
    if (res.status === 429 || res.status >= 500) {
      const after = Number(res.headers.get('retry-after'));
      throw new UpstreamError({
        kind: 'unavailable',
        status: res.status,
        message,
        retryAfterMs: Number.isFinite(after) && after > 0 ? after * 1000 : null,
      });
    }
    throw new UpstreamError({ kind: 'http', status: res.status, code, message });
  }
  return {
    url,
    get: (path, query) => send('GET', path, query, undefined),
    post: (path, body) => send('POST', path, undefined, body),
  };
}
