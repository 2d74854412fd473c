import { ErrorEnvelope } from '../../shared/errors.ts';
import type { PairingPayload } from '../../shared/checkin/pairing.ts';

/** Why a request to the server did not produce an answer the caller can use. */
export type ApiFailure =
  /** No answer: offline, refused, timed out, or aborted. Retry later. */
  | { kind: 'network'; message: string }
  /** The key is revoked or lacks rights: stop and ask staff to re-pair. */
  | { kind: 'unauthorized'; status: number; code: string; message: string }
  /** Something answered, but not with JSON: not a Doorstep server (wrong address, captive portal, proxy page). */
  | { kind: 'bad_answer'; status: number; message: string }
  /** Any other non-success answer. */
  | { kind: 'http'; status: number; code: string; message: string; body: unknown };

export class ApiError extends Error {
  constructor(readonly failure: ApiFailure) {
    super(failure.message);
  }
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ApiClient {
  /** `onHeaders` sees the answer's status and headers as soon as they arrive, before its body is read. */
  get(
    path: string,
    query?: Record<string, string | number>,
    opts?: { timeoutMs?: number; signal?: AbortSignal; onHeaders?: (status: number, headers: Headers) => void },
  ): Promise<ApiResponse>;
  post(path: string, body: unknown, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<ApiResponse>;
}

const DEFAULT_TIMEOUT_MS = 20_000;

function signalFor(timeoutMs: number, outer?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return outer ? AbortSignal.any([timeout, outer]) : timeout;
}

/**
 * A read is never answered from the browser's cache (`no-store`): a server that says nothing about caching must not
 * have its answers kept. A write is never cached by the browser anyway, so it goes with the default mode, for one
 * reason: Chromium consults its CORS preflight cache only in that mode (`no-store` and `no-cache` send a preflight
 * every time). A kiosk on its own origin (the Electron shell's app://) then sends a check-in's batch with one
 * round trip instead of two, the server allowing a preflight to be kept two hours (Access-Control-Max-Age).
 */
export function cacheMode(method: string): RequestCache {
  return method === 'GET' || method === 'HEAD' ? 'no-store' : 'default';
}

/**
 * A client of the paired server. Paths are relative to the interface root (`evt/tickets/v1/...`). It throws
 * {@link ApiError} for every failure, so callers switch on one typed union; 2xx and 207 are returned.
 */
export function createApiClient(
  settings: Pick<PairingPayload, 'url' | 'api_key'>,
  fetchImpl: FetchLike = fetch,
  /** Sees every answer's headers (the sync engine reads the server's `Date` for clock skew). */
  onResponse?: (headers: Headers) => void,
): ApiClient {
  async function send(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
    signal?: AbortSignal,
    onHeaders?: (status: number, headers: Headers) => void,
  ): Promise<ApiResponse> {
    let response: Response;
    let parsed: unknown;
    try {
      response = await fetchImpl(new URL(path, settings.url).toString(), {
        method,
        headers: {
          Authorization: `Bearer ${settings.api_key}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signalFor(timeoutMs, signal),
        cache: cacheMode(method),
      });
    } catch (err) {
      throw new ApiError({ kind: 'network', message: err instanceof Error ? err.message : String(err) });
    }
    onHeaders?.(response.status, response.headers);
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      // A body cut off mid-way is as good as no answer.
      throw new ApiError({ kind: 'network', message: err instanceof Error ? err.message : String(err) });
    }
    onResponse?.(response.headers);
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // An HTML page (a captive portal, a proxy, a web site at the wrong address) is no Doorstep server.
      throw new ApiError({ kind: 'bad_answer', status: response.status, message: `HTTP ${response.status}: not a JSON answer` });
    }
    if (response.ok) return { status: response.status, headers: response.headers, body: parsed };
    const envelope = ErrorEnvelope.safeParse(parsed);
    const code = envelope.success ? envelope.data.code : '';
    const message = envelope.success ? envelope.data.message : `HTTP ${response.status}`;
    if (response.status === 401 || response.status === 403) {
      throw new ApiError({ kind: 'unauthorized', status: response.status, code, message });
    }
    throw new ApiError({ kind: 'http', status: response.status, code, message, body: parsed });
  }
  return {
    get(path, query = {}, opts = {}) {
      const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
      return send('GET', qs ? `${path}?${qs}` : path, undefined, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, opts.signal, opts.onHeaders);
    },
    post(path, body, opts = {}) {
      return send('POST', path, body, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, opts.signal);
    },
  };
}
