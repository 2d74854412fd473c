import { z } from 'zod';
import path from 'node:path';

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  EVT_DB: z.string().min(1).default('data/evt.sqlite'),
  EVT_PUBLIC_URL: z.url().optional(),
  EVT_ADMIN_USER: z.string().min(1).optional(),
  EVT_ADMIN_PASSWORD: z.string().min(1).optional(),
  EVT_SITE_NAME: z.string().default('Doorstep'),
  EVT_SITE_DESCRIPTION: z.string().default('Events and tickets'),
  EVT_TIMEZONE: z.string().default('UTC'),
  /** Secret for nonces and signed URLs; generated and stored in the database when unset. */
  EVT_SECRET: z.string().min(16).optional(),
  EVT_DATA_DIR: z.string().optional(),
  EVT_SMTP_URL: z.string().optional(),
  EVT_LOG: z.enum(['json', 'off']).default('json'),
  /** Reuse anonymous public reads until the next write (see server/http/response-cache.ts). */
  EVT_CACHE: z.enum(['on', 'off']).default('on'),
  /** Tickets per cart line and per order at most (CONTRACT section 3). */
  EVT_MAX_TICKETS_PER_ORDER: z.coerce.number().int().min(1).max(10_000).default(50),
  /** Minutes an unpaid (pending) order holds its places before it is cancelled. */
  EVT_ORDER_HOLD_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(30),
  /** Origins allowed to send credentials (comma-separated); any other origin gets `*` without credentials (D9). */
  EVT_CORS_ORIGINS: z.string().default(''),
  /** Open connections at most; further ones are closed at once. */
  EVT_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  /** Seconds a request body may take to arrive after its headers (answered 408 past it). */
  EVT_BODY_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
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
  cache: boolean;
  maxTicketsPerOrder: number;
  orderHoldMinutes: number;
  /** Origins (scheme://host[:port], lower case) allowed to send credentials. */
  corsOrigins: string[];
  maxConnections: number;
  bodyTimeoutMs: number;
}

/** Reads the configuration from the environment, once, at start-up. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  const e = parsed.data;
  const dbFile = e.EVT_DB;
  return {
    port: e.PORT,
    host: e.HOST,
    dbFile,
    publicUrl: (e.EVT_PUBLIC_URL ?? `http://${e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    adminUser: e.EVT_ADMIN_USER,
    adminPassword: e.EVT_ADMIN_PASSWORD,
    siteName: e.EVT_SITE_NAME,
    siteDescription: e.EVT_SITE_DESCRIPTION,
    timezone: e.EVT_TIMEZONE,
    secret: e.EVT_SECRET,
    dataDir: e.EVT_DATA_DIR ?? (dbFile === ':memory:' ? path.resolve('data') : path.dirname(path.resolve(dbFile))),
    smtpUrl: e.EVT_SMTP_URL,
    log: e.EVT_LOG === 'json',
    cache: e.EVT_CACHE === 'on',
    maxTicketsPerOrder: e.EVT_MAX_TICKETS_PER_ORDER,
    orderHoldMinutes: e.EVT_ORDER_HOLD_MINUTES,
    corsOrigins: e.EVT_CORS_ORIGINS.split(',').map((o) => o.trim().replace(/\/+$/, '').toLowerCase()).filter(Boolean),
    maxConnections: e.EVT_MAX_CONNECTIONS,
    bodyTimeoutMs: e.EVT_BODY_TIMEOUT_SECONDS * 1000,
  };
}
