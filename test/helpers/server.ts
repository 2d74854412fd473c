import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig } from '../../server/config.ts';
import { openDatabase, type Db } from '../../server/db/connection.ts';
import { createApp, type App } from '../../server/app.ts';
import { hardenServer } from '../../server/http/harden.ts';
import { createApiKey, createAppPassword } from '../../server/auth/credentials.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import type { Role } from '../../shared/auth.ts';
import { freshTestDatabase, testDbWanted } from './pg-cluster.ts';

export interface TestServer {
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** Interface root with a trailing slash: `http://127.0.0.1:PORT/wp-json/` */
  root: string;
  db: Db;
  /** What `db` was opened from (the SQLite file or the PostgreSQL URL): open it again for "another process". */
  dbSpec: string;
  app: App;
  dir: string;
  /** `Authorization` header values for a new user of that role. */
  userAuth: (role: Role, login?: string) => Promise<string>;
  /** A new API key (door device). */
  apiKey: (label?: string, eventId?: number | null) => Promise<{ key: string; id: number }>;
  admin: string;
  close: () => Promise<void>;
}

/**
 * Starts the real app on a fresh SQLite file in a temporary directory, on 127.0.0.1 with a free port. With
 * `EVT_TEST_DB=postgres`, on a fresh PostgreSQL database of its own instead (test/helpers/pg-cluster.ts),
 * dropped on close.
 */
export async function startTestServer(env: Record<string, string> = {}, opts: { sqlite?: boolean } = {}): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-test-'));
  // `sqlite`: a server that only runs on SQLite whatever the suite's engine (a venue hub).
  const pg = testDbWanted() && !opts.sqlite ? await freshTestDatabase() : null;
  const dbFile = pg ? pg.url : path.join(dir, 'evt.sqlite');
  const db = await openDatabase(dbFile);
  // The public URL must carry the real port, so listen first on an app-less server, then attach the app.
  const server = await new Promise<Server>((resolve) => {
    const s = http.createServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig({
    EVT_DB: dbFile,
    PORT: String(port),
    HOST: '127.0.0.1',
    EVT_LOG: process.env.EVT_TEST_SERVER_LOG ?? 'off',
    EVT_DATA_DIR: dir,
    ...env,
  });
  const app = await createApp({ config, db });
  hardenServer(server, config);
  server.on('request', app.express);
  const base = `http://127.0.0.1:${port}`;
  let n = 0;
  const userAuth = async (role: Role, login = `${role}${++n}`) => {
    const u = await insertUser(db, { login, email: `${login}@example.test`, role });
    const { password } = await createAppPassword(db, u.id, 'test');
    return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
  };
  return {
    base,
    root: `${base}/wp-json/`,
    db,
    dbSpec: dbFile,
    app,
    dir,
    userAuth,
    admin: await userAuth('administrator', 'admin'),
    apiKey: async (label = 'Door', eventId = null) => {
      const { key, row } = await createApiKey(db, label, eventId, null);
      return { key, id: row.id };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close(async () => {
          try {
            await app.close();
            if (pg) {
              if (db.open) await db.close();
              pg.drop();
            }
            // A file that appears while the folder is being removed (SQLite's -wal/-shm as the last connection
            // closes) makes one pass fail with ENOTEMPTY: retry, and fail the hook rather than leave it hanging.
            fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
            resolve();
          } catch (e) {
            reject(e);
          }
        });
      }),
  };
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A small fetch wrapper: JSON in, parsed JSON out (text kept for non-JSON answers). */
export async function call<T = any>(
  url: string,
  opts: { method?: string; body?: unknown; auth?: string; headers?: Record<string, string>; form?: Record<string, string> } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth) headers.authorization = opts.auth;
  let body: string | undefined;
  if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  } else if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  }
  const res = await fetch(url, { method: opts.method ?? 'GET', headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
