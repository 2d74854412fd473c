import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { Config } from './config.ts';
import { resolveRestTarget } from './http/incoming.ts';
import { clientAddress, compileTrust, type TrustFn } from './http/client-address.ts';

/**
 * Structured logs (pino): one JSON object a line on stdout, with `level` as a word, an ISO `time`, and the
 * request's `req_id` on every line written while a request is served. `EVT_LOG=pretty` prints the same records
 * as one readable line each; `EVT_LOG=off` prints none. `EVT_LOG_LEVEL` sets the lowest level written.
 *
 * Nothing secret is written: authorization, cookie and nonce headers are not logged (and redacted if a module
 * logs headers), query parameters that carry credentials (`api_key`, passwords, tokens, nonces) are masked in
 * logged URLs, and fields of those names are redacted wherever they appear in a record.
 *
 * Lines written through `state.log` while a request is served carry its `req_id` (AsyncLocalStorage), as the
 * access lines do.
 */

/** What `state.log(entry)` receives: `level` (default info), `msg`, and any fields. */
export type LogEntry = Record<string, unknown>;
export type LogFn = (entry: LogEntry) => void;

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);

/** Query parameters and record fields whose values are credentials. */
const SECRET_NAMES = [
  'api_key',
  'apikey',
  'key',
  'password',
  'pass',
  'pwd',
  'post_password',
  'token',
  'secret',
  '_wpnonce',
  'nonce',
  'security_code',
  'code',
];
const SECRET_PARAM = new RegExp(`([?&](?:${SECRET_NAMES.join('|')})=)[^&#]*`, 'gi');

export const REDACT_PATHS = [
  'authorization',
  'password',
  'api_key',
  'secret',
  'token',
  'headers.authorization',
  'headers.cookie',
  'headers["x-wp-nonce"]',
  'headers["x-evt-formsviews-auth"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-wp-nonce"]',
  'req.headers["x-evt-formsviews-auth"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.api_key',
  '*.authorization',
  '*.secret',
  '*.token',
];

/** A URL with the values of credential-carrying query parameters replaced by `[Redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAM, '$1[Redacted]');
}

/** The request being served, for the `req_id` of every line logged while serving it. */
const requestContext = new AsyncLocalStorage<{ reqId: string }>();

/** The ID of the request being served (undefined outside one). */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.reqId;
}

/** One readable line a record: `12:01:02.345 INFO  msg  key=value ...`. */
function prettyStream(out: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string) {
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const { time, level, msg, ...rest } = rec;
      const fields = Object.entries(rest)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`)
        .join(' ');
      const clock = typeof time === 'string' ? time.slice(11, 23) : '';
      out.write(`${clock} ${String(level).toUpperCase().padEnd(5)} ${msg ?? ''}${fields ? `  ${fields}` : ''}\n`);
    },
  };
}

/** The process's logger, as configured (`destination` for tests; stdout otherwise). */
export function createLogger(config: Pick<Config, 'logFormat' | 'logLevel'>, destination?: DestinationStream): Logger {
  const stream = destination ?? (config.logFormat === 'pretty' ? prettyStream(process.stdout) : pino.destination({ dest: 1, sync: false }));
  return pino(
    {
      level: config.logFormat === 'off' ? 'silent' : config.logLevel,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    },
    stream,
  );
}

/** `state.log(entry)` backed by a pino logger: `entry.level` picks the level (info when absent or unknown). */
export function logFunction(logger: Logger): LogFn {
  return (entry) => {
    const { level, msg, ...fields } = entry;
    const lvl = typeof level === 'string' && LEVELS.has(level) ? (level as 'info') : 'info';
    if (!logger.isLevelEnabled(lvl)) return;
    const reqId = currentRequestId();
    if (reqId !== undefined && fields.req_id === undefined) fields.req_id = reqId;
    if (typeof fields.url === 'string') fields.url = redactUrl(fields.url);
    if (typeof msg === 'string') logger[lvl](fields, msg);
    else logger[lvl](fields);
  };
}

/** The URL as requested (Express rewrites `req.url` inside mounted routers). */
function originalUrl(req: IncomingMessage): string {
  return (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
}

/** A request ID a client or proxy sent that is safe to log and echo: printable, no spaces, at most 128 characters. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdOf(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && SANE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

/** The request's ID (requestIdOf), echoed in its `X-Request-Id` response header. */
function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const id = requestIdOf(req.headers['x-request-id']);
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * Wraps the app's request handler: gives each request an ID (`X-Request-Id` from the client when sane, a new
 * UUID otherwise), echoes it in the `X-Request-Id` response header, and serves the request inside that ID's
 * context. Non-REST requests (pages, the kiosk's files) get an access line here; REST requests are logged by
 * the REST layer itself (one line with the route, caller and time), which carries the same `req_id`.
 */
export function withRequestLog(handler: RequestListener, logger: Logger, trust: TrustFn = compileTrust([])): RequestListener {
  const httpLogger = pinoHttp({
    logger,
    genReqId: assignRequestId,
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: (req, res) => `${req.method} ${redactUrl(originalUrl(req))} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${redactUrl(originalUrl(req))} ${res.statusCode}`,
    customAttributeKeys: { reqId: 'req_id', responseTime: 'ms' },
    quietReqLogger: true,
    serializers: {
      // `ip` is the client (EVT_TRUST_PROXY: as a trusted proxy names it), `via` the proxy it came through.
      req: (req: { method?: string; url?: string; remoteAddress?: string; headers?: Record<string, unknown>; raw?: IncomingMessage }) => {
        const ip = req.raw ? clientAddress(req.raw, trust) : req.remoteAddress;
        return {
          method: req.method,
          url: redactUrl(req.url ?? ''),
          ip,
          ...(ip !== req.remoteAddress ? { via: req.remoteAddress } : {}),
          user_agent: req.headers?.['user-agent'],
        };
      },
      res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
    },
  });
  return (req, res) => {
    // A REST request gets no access line (the REST layer writes its own), so not pino-http's per-request child
    // logger and listeners either: they were 6% of a server's CPU in a batch check-in profile, for nothing written.
    if (resolveRestTarget(req.url ?? '/') !== null) {
      const reqId = assignRequestId(req, res);
      (req as IncomingMessage & { id?: unknown }).id = reqId;
      requestContext.run({ reqId }, () => handler(req, res));
      return;
    }
    httpLogger(req, res);
    const reqId = String((req as IncomingMessage & { id?: unknown }).id);
    requestContext.run({ reqId }, () => handler(req, res));
  };
}
