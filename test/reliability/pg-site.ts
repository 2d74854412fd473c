import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createApiKey, createAppPassword } from '../../server/auth/credentials.ts';
import { openDatabase, type Db } from '../../server/db/connection.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import { startPrivateCluster, withDatabase } from '../helpers/pg-cluster.ts';
import { PsqlAdmin } from '../helpers/psql.ts';
import { insertTicket, seedTicketsFixture, type TicketsFixture } from '../helpers/tickets-fixture.ts';

/**
 * PostgreSQL for the multi-process reliability profile and bench:scale: a cluster (EVT_TEST_PG_URL when set,
 * else a private one), one database of their own on it, a seeded site in that database, and a small HTTP client
 * that can send from any loopback address (127.0.0.0/8 is all local on Linux), so limits counted per client
 * address see many clients without raising them.
 */

const BIN = process.env.EVT_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PgCluster {
  url: string;
  /** Where it came from: `EVT_TEST_PG_URL` or `private cluster`. */
  origin: string;
  stop: () => void;
}

/**
 * Why PostgreSQL cannot be had here, or null when it can: EVT_TEST_PG_URL is set, or initdb is installed for a
 * private cluster.
 */
export function pgUnavailable(): string | null {
  if (process.env.EVT_TEST_PG_URL) return null;
  const initdb = path.join(BIN, 'initdb');
  return fs.existsSync(initdb)
    ? null
    : `PostgreSQL is not available: ${initdb} is missing and EVT_TEST_PG_URL is unset (install the postgresql package, as .ci/run does, or point EVT_TEST_PG_URL at a cluster)`;
}

export async function pgCluster(): Promise<PgCluster> {
  const given = process.env.EVT_TEST_PG_URL;
  if (given) return { url: given, origin: 'EVT_TEST_PG_URL', stop: () => {} };
  const c = await startPrivateCluster();
  return { url: c.url, origin: 'private cluster', stop: c.stop };
}

let made = 0;

/** A new database on the cluster, empty or a copy of `template` (UTF8, C collation, as the server requires); `drop` removes it. */
export function createDatabase(
  clusterUrl: string,
  prefix: string,
  template = 'template0',
): { url: string; name: string; backends: () => number[]; drop: () => void } {
  const admin = new PsqlAdmin(clusterUrl);
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${++made}`;
  try {
    admin.querySync(`CREATE DATABASE ${name} TEMPLATE ${template} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  } catch (e) {
    admin.end();
    throw e;
  }
  return {
    url: withDatabase(clusterUrl, name),
    name,
    // The PostgreSQL backends serving connections to this database (their CPU is the database's share).
    backends: () => admin.querySync('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]).map((r) => Number(r.pid)),
    drop: () => {
      try {
        admin.querySync(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } catch {
        // The cluster is gone already.
      } finally {
        admin.end();
      }
    },
  };
}

/** CPU seconds (user + system) a process and its children waited for have used, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14-17 (utime, stime, cutime, cstime) are the 12th-15th after the command name.
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return 0;
  }
}

export interface PgSite extends TicketsFixture {
  url: string;
  auth: { admin: string; doorKey: string };
}

async function basicFor(db: Db, login: string): Promise<string> {
  const u = await insertUser(db, { login, email: `${login}@example.test`, role: 'administrator' });
  const { password } = await createAppPassword(db, u.id, 'reliability');
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

/** Migrates the database at `url` and seeds an event, an RSVP ticket with `attendees` attendees, an administrator and a door key. */
export async function seedPgSite(url: string, attendees: number): Promise<PgSite> {
  const db = await openDatabase(url);
  try {
    const fixture = await seedTicketsFixture(db, { attendees, provider: 'rsvp' });
    const doorKey = (await createApiKey(db, 'Door multiprocess', null, null)).key;
    return { ...fixture, url, auth: { admin: await basicFor(db, 'mp-admin'), doorKey: `Bearer ${doorKey}` } };
  } finally {
    await db.close();
  }
}

/** A further free (RSVP) ticket on the event with `capacity` places. */
export async function addTicket(url: string, eventId: number, capacity: number): Promise<number> {
  const db = await openDatabase(url);
  try {
    return await insertTicket(db, eventId, { provider: 'rsvp', capacity, title: `Limited ${capacity}` });
  } finally {
    await db.close();
  }
}

export interface HttpAnswer {
  status: number;
  body: { code?: string; [k: string]: unknown } | null;
  cookies: string[];
}

/**
 * One JSON request on a connection of its own from `localAddress` (a 127.x.y.z address: the server sees it as
 * the client's address). A network error rejects.
 */
export function requestFrom(
  base: string,
  pathname: string,
  o: { method?: string; body?: unknown; cookie?: string; localAddress?: string; auth?: string; timeoutMs?: number; agent?: http.Agent } = {},
): Promise<HttpAnswer> {
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${pathname}`,
      {
        method: o.method ?? 'GET',
        agent: o.agent ?? false,
        localAddress: o.localAddress,
        timeout: o.timeoutMs ?? 30_000,
        headers: {
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...(o.cookie ? { cookie: o.cookie } : {}),
          ...(o.auth ? { authorization: o.auth } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: HttpAnswer['body'] = null;
          try {
            body = text ? JSON.parse(text) : null;
          } catch {
            body = { code: 'not-json', text };
          }
          const set = res.headers['set-cookie'] ?? [];
          resolve({ status: res.statusCode ?? 0, body, cookies: set.map((c) => c.split(';')[0]!) });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The n-th distinct client address on loopback (127.1.x.y, never 127.0.0.1). */
export function clientAddress(n: number): string {
  return `127.${1 + Math.floor(n / 65_000)}.${Math.floor((n % 65_000) / 250)}.${1 + (n % 250)}`;
}

export interface CheckoutOutcome {
  status: number;
  code: string | null;
  /** Cart write to checkout answer, ms. */
  ms: number;
  /** 503 evt_database_busy answers sent again (buyOne's `busyRetries`). */
  busy?: number;
}

/**
 * An anonymous buyer from its own address: writes a cart of one place of `ticketId` on `cartBase`, then checks
 * out on `checkoutBase` (another process may answer: the cart lives in the database, not in a process).
 */
export async function buyOne(
  cartBase: string,
  checkoutBase: string,
  ticketId: number,
  n: number,
  opts: { busyRetries?: number } = {},
): Promise<CheckoutOutcome> {
  const localAddress = clientAddress(n);
  const t0 = performance.now();
  const ms = () => performance.now() - t0;
  let busy = 0;
  // A 503 evt_database_busy (a lock not granted in 3 s; nothing written) is sent again after its Retry-After, as a
  // shop's page would, up to `busyRetries` times; the outcome counts them.
  const send = async (base: string, path: string, o: Parameters<typeof requestFrom>[2]) => {
    for (;;) {
      const r = await requestFrom(base, path, o);
      if (r.status !== 503 || r.body?.code !== 'evt_database_busy' || busy >= (opts.busyRetries ?? 0)) return r;
      busy++;
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the server's Retry-After: 1
    }
  };
  const cart = await send(cartBase, '/wp-json/evt/tickets/v1/cart', {
    method: 'POST',
    localAddress,
    body: { provider: 'rsvp', tickets: [{ ticket_id: ticketId, quantity: 1 }] },
  });
  if (cart.status !== 200) return { status: cart.status, code: `cart: ${cart.body?.code ?? cart.status}`, ms: ms(), busy };
  const cookie = cart.cookies.find((c) => c.startsWith('evt_cart='));
  if (!cookie) return { status: 0, code: 'cart: no evt_cart cookie', ms: ms(), busy };
  const r = await send(checkoutBase, '/wp-json/evt/tickets/v1/cart/checkout', {
    method: 'POST',
    localAddress,
    cookie,
    body: { purchaser_name: `Buyer ${n}`, purchaser_email: `buyer${n}@example.test` },
  });
  return { status: r.status, code: r.body?.code ?? null, ms: ms(), busy };
}
