import { z } from 'zod';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isPostgresSpec } from './db/engine/types.ts';
import { trustProxyEntryProblem, trustProxyListProblem } from './http/client-address.ts';

/** A time zone name the runtime knows (`Europe/Tallinn`, `UTC`): checked at start-up, not at the first events list. */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

const Env = z.object({
  PORT: z.coerce.number({ error: 'must be a port number (0-65535)' }).int().min(0).max(65535).default(8080),
  HOST: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9.:_%[\]-]+$/, 'must be a host name or an IP address')
    .default('127.0.0.1'),
  // A SQLite file (the default), or a PostgreSQL database: postgres://user@host:port/name (PostgreSQL's connection URI form).
  EVT_DB: z
    .string()
    .min(1)
    .refine((v) => !/^postgres(ql)?:/i.test(v) || (isPostgresSpec(v) && URL.canParse(v) && new URL(v).pathname.length > 1), {
      message: 'a PostgreSQL EVT_DB must be a URL naming the database: postgres://user@host:5432/doorstep',
    })
    .default('data/evt.sqlite'),
  EVT_PUBLIC_URL: httpUrl.optional(),
  EVT_ADMIN_USER: z.string().min(1).optional(),
  EVT_ADMIN_PASSWORD: z.string().min(1).optional(),
  EVT_SITE_NAME: z.string().default('Doorstep'),
  EVT_SITE_DESCRIPTION: z.string().default('Events and tickets'),
  EVT_TIMEZONE: z.string().refine(validTimeZone, 'must be an IANA time zone name such as Europe/Tallinn or UTC').default('UTC'),
  /** Secret for nonces and signed URLs; generated and stored in the database when unset. */
  EVT_SECRET: z.string().min(16).optional(),
  EVT_DATA_DIR: z.string().optional(),
  EVT_SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  /** `json`: one JSON object a line on stdout (pino); `pretty`: one readable line a record; `off`: none. */
  EVT_LOG: z.enum(['json', 'pretty', 'off']).default('json'),
  EVT_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** PEM certificate (chain) and private key: both set, the server speaks HTTPS only. */
  EVT_TLS_CERT: z.string().min(1).optional(),
  EVT_TLS_KEY: z.string().min(1).optional(),
  /** Reuse anonymous public reads until the next write (see server/http/response-cache.ts). */
  EVT_CACHE: z.enum(['on', 'off']).default('on'),
  /** Tickets per cart line and per order at most (CONTRACT section 3). */
  EVT_MAX_TICKETS_PER_ORDER: z.coerce.number().int().min(1).max(10_000).default(50),
  /** Minutes an unpaid (pending) order holds its places before it is cancelled. */
  EVT_ORDER_HOLD_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(30),
  /** PostgreSQL: connections this process opens at most (its statements in flight at once). */
  EVT_PG_POOL: z.coerce.number().int().min(1).max(200).default(10),
  /** Origins allowed to send credentials (comma-separated); any other origin gets `*` without credentials (D9). */
  EVT_CORS_ORIGINS: z.string().default(''),
  /** Open connections at most; further ones are closed at once. */
  EVT_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  /** Seconds a request body may take to arrive after its headers (answered 408 past it). */
  EVT_BODY_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /**
   * Where rate limits and cache invalidation live: `process` (memory; one process per database) or `database`
   * (shared by every process on it). Unset: `database` on PostgreSQL, `process` on SQLite.
   */
  EVT_SHARED_STATE: z.enum(['process', 'database']).optional(),
  /**
   * The load balancers and reverse proxies whose `X-Forwarded-For` names the client (comma-separated addresses,
   * CIDR ranges, `loopback`, `linklocal`, `uniquelocal`). Unset: nobody's; the client is the address that connects.
   */
  /**
   * Venue hub (CONTRACT section 9): the site's base URL and a door key made there for one event (or one list);
   * with both set this server mirrors that event from the site and pushes its check-ins there.
   */
  EVT_UPSTREAM: httpUrl.optional(),
  EVT_UPSTREAM_KEY: z.string().min(8, 'must be a door key made on the site (cli api-key create --event ID)').optional(),
  /** Seconds between two pulls from the site while it answers (pushes go as soon as a check-in is made). */
  EVT_UPSTREAM_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(5),
  EVT_TRUST_PROXY: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
    )
    .superRefine((list, ctx) => {
      let fine = true;
      for (const entry of list) {
        const problem = trustProxyEntryProblem(entry);
        if (problem) {
          fine = false;
          ctx.addIssue({ code: 'custom', message: problem });
        }
      }
      // Entries that together cover every address are as bad as one that does.
      const together = fine ? trustProxyListProblem(list) : null;
      if (together) ctx.addIssue({ code: 'custom', message: together });
    })
    .optional(),
});

export interface Config {
  port: number;
  host: string;
  dbFile: string;
  /** Public base URL without a trailing slash. */
  publicUrl: string;
  adminUser?: string;
  adminPassword?: string;
  siteName: string;
  siteDescription: string;
  timezone: string;
  secret?: string;
  dataDir: string;
  smtpUrl?: string;
  log: boolean;
  logFormat: 'json' | 'pretty' | 'off';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** HTTPS: the PEM files as read at start-up, and the leaf certificate's SHA-256 fingerprint (hex, lower case). */
  tls?: { certFile: string; keyFile: string; cert: string; key: string; fingerprint: string };
  cache: boolean;
  maxTicketsPerOrder: number;
  orderHoldMinutes: number;
  /** PostgreSQL connections per process at most (EVT_PG_POOL). */
  pgPool: number;
  /** Origins (scheme://host[:port], lower case) allowed to send credentials. */
  corsOrigins: string[];
  maxConnections: number;
  bodyTimeoutMs: number;
  /** EVT_SHARED_STATE when set (see createApp for the default). */
  sharedState?: 'process' | 'database';
  /** EVT_TRUST_PROXY: the proxies (addresses, CIDR ranges, proxy-addr names) trusted for X-Forwarded-For; empty: none. */
  trustProxy: string[];
  /** Venue hub mode: the site this server mirrors one event of (EVT_UPSTREAM, EVT_UPSTREAM_KEY). */
  upstream?: { url: string; key: string; intervalMs: number };
}

/** Reads the configuration from the environment, once, at start-up. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // A variable set to nothing (`EVT_PUBLIC_URL=` in a unit or .env file) means its default, except the two
  // texts that may be empty on purpose.
  const given = Object.fromEntries(Object.entries(env).filter(([k, v]) => v !== '' || k === 'EVT_SITE_NAME' || k === 'EVT_SITE_DESCRIPTION'));
  const parsed = Env.safeParse(given);
  // A misspelt name (EVT_TLS_CRT) would otherwise be ignored without a word, and the server run without it.
  const known = Object.keys(Env.shape);
  // EVT_TEST_* belong to the test harness (EVT_TEST_DB, EVT_TEST_PG_URL), which servers it spawns inherit.
  const unknown = Object.keys(given).filter((k) => k.startsWith('EVT_') && !k.startsWith('EVT_TEST_') && !known.includes(k));
  const issues = [
    ...(parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)),
    ...unknown.map((k) => `  ${k}: unknown variable (known: ${known.filter((n) => n.startsWith('EVT_')).join(', ')})`),
    // One without the other would start with no administrator and no word about it.
    ...(given.EVT_ADMIN_USER !== undefined && given.EVT_ADMIN_PASSWORD === undefined
      ? ['  EVT_ADMIN_PASSWORD: must be set together with EVT_ADMIN_USER']
      : []),
    ...(given.EVT_ADMIN_PASSWORD !== undefined && given.EVT_ADMIN_USER === undefined
      ? ['  EVT_ADMIN_USER: must be set together with EVT_ADMIN_PASSWORD']
      : []),
    ...(given.EVT_UPSTREAM !== undefined && given.EVT_UPSTREAM_KEY === undefined
      ? ['  EVT_UPSTREAM_KEY: must be set together with EVT_UPSTREAM']
      : []),
    ...(given.EVT_UPSTREAM_KEY !== undefined && given.EVT_UPSTREAM === undefined
      ? ['  EVT_UPSTREAM: must be set together with EVT_UPSTREAM_KEY']
      : []),
    // A hub runs on a laptop at the venue: its mirror is a SQLite file (one writer, no server to reach).
    ...(given.EVT_UPSTREAM !== undefined && isPostgresSpec(given.EVT_DB ?? '')
      ? ['  EVT_DB: a venue hub (EVT_UPSTREAM) keeps its mirror in a SQLite file, not in PostgreSQL']
      : []),
  ];
  if (!parsed.success || issues.length) throw new Error(`Invalid configuration:\n${issues.join('\n')}`);
  const e = parsed.data;
  const dbFile = e.EVT_DB;
  const tls = readTls(e.EVT_TLS_CERT, e.EVT_TLS_KEY);
  const host = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST.includes(':') && !e.HOST.startsWith('[') ? `[${e.HOST}]` : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    dbFile,
    publicUrl: (e.EVT_PUBLIC_URL ?? `${tls ? 'https' : 'http'}://${host}:${e.PORT}`).replace(/\/+$/, ''),
    adminUser: e.EVT_ADMIN_USER,
    adminPassword: e.EVT_ADMIN_PASSWORD,
    siteName: e.EVT_SITE_NAME,
    siteDescription: e.EVT_SITE_DESCRIPTION,
    timezone: e.EVT_TIMEZONE,
    secret: e.EVT_SECRET,
    dataDir: e.EVT_DATA_DIR ?? (dbFile === ':memory:' || isPostgresSpec(dbFile) ? path.resolve('data') : path.dirname(path.resolve(dbFile))),
    smtpUrl: e.EVT_SMTP_URL,
    log: e.EVT_LOG !== 'off',
    logFormat: e.EVT_LOG,
    logLevel: e.EVT_LOG_LEVEL,
    tls,
    cache: e.EVT_CACHE === 'on',
    maxTicketsPerOrder: e.EVT_MAX_TICKETS_PER_ORDER,
    orderHoldMinutes: e.EVT_ORDER_HOLD_MINUTES,
    pgPool: e.EVT_PG_POOL,
    corsOrigins: e.EVT_CORS_ORIGINS.split(',')
      .map((o) => o.trim().replace(/\/+$/, '').toLowerCase())
      .filter(Boolean),
    maxConnections: e.EVT_MAX_CONNECTIONS,
    bodyTimeoutMs: e.EVT_BODY_TIMEOUT_SECONDS * 1000,
    sharedState: e.EVT_SHARED_STATE,
    trustProxy: e.EVT_TRUST_PROXY ?? [],
    upstream:
      e.EVT_UPSTREAM && e.EVT_UPSTREAM_KEY
        ? { url: e.EVT_UPSTREAM.replace(/\/+$/, ''), key: e.EVT_UPSTREAM_KEY, intervalMs: e.EVT_UPSTREAM_INTERVAL_SECONDS * 1000 }
        : undefined,
  };
}

/** Reads and checks the TLS files: both or neither, readable PEM, and the key matches the certificate. */
function readTls(certFile: string | undefined, keyFile: string | undefined): Config['tls'] {
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile)
    throw new Error(
      `Invalid configuration:\n  ${certFile ? 'EVT_TLS_KEY' : 'EVT_TLS_CERT'}: must be set together with ${certFile ? 'EVT_TLS_CERT' : 'EVT_TLS_KEY'}`,
    );
  const read = (name: string, file: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`Invalid configuration:\n  ${name}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const cert = read('EVT_TLS_CERT', certFile);
  const key = read('EVT_TLS_KEY', keyFile);
  let x509: crypto.X509Certificate;
  try {
    x509 = new crypto.X509Certificate(cert);
  } catch {
    throw new Error(`Invalid configuration:\n  EVT_TLS_CERT: ${certFile} is not a PEM certificate`);
  }
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey(key);
  } catch {
    throw new Error(`Invalid configuration:\n  EVT_TLS_KEY: ${keyFile} is not a PEM private key (or it is encrypted)`);
  }
  if (!x509.checkPrivateKey(privateKey))
    throw new Error(`Invalid configuration:\n  EVT_TLS_KEY: ${keyFile} is not the key of the certificate in ${certFile}`);
  return { certFile, keyFile, cert, key, fingerprint: certificateFingerprint(x509) };
}

/** SHA-256 of the certificate's DER, as lower-case hex without separators (the pairing payload's `fingerprint`). */
export function certificateFingerprint(cert: crypto.X509Certificate | string): string {
  const x509 = typeof cert === 'string' ? new crypto.X509Certificate(cert) : cert;
  return crypto.createHash('sha256').update(x509.raw).digest('hex');
}
