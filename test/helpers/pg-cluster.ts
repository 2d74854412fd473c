import { PsqlAdmin } from './psql.ts';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PgDb } from '../../server/db/engine/postgres.ts';
import { migrate } from '../../server/db/migrate.ts';
import { freePort } from './net.ts';

/**
 * PostgreSQL for the tests. `EVT_TEST_PG_URL` (any database on the cluster; the tests make their own) is used
 * when set; otherwise `startPrivateCluster` makes one: initdb into a temporary folder (as the `postgres` OS user
 * when running as root: PostgreSQL refuses to run as root), fsync off, on a free port, its unix socket in that
 * folder. vitest's globalSetup (test/helpers/pg-global-setup.ts) starts it once per run when EVT_TEST_DB=postgres.
 *
 * Each test server gets its own database, `CREATE DATABASE … TEMPLATE` of a migrated template made once per
 * process (a few milliseconds instead of a migration run), dropped when the server closes.
 */

const BIN = process.env.EVT_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const PREFIX = 'pgengine_';

export function testDbWanted(): boolean {
  return process.env.EVT_TEST_DB === 'postgres';
}

export interface PrivateCluster {
  url: string;
  stop: () => void;
}

/** initdb + pg_ctl start of a throwaway cluster; `stop` stops it and removes its folder. */
export async function startPrivateCluster(): Promise<PrivateCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(BIN, cmd), ...args], { stdio: 'pipe' })
      : execFileSync(path.join(BIN, cmd), args, { stdio: 'pipe' });
  if (asRoot) execFileSync('chown', ['postgres:', dir]);
  fs.chmodSync(dir, 0o700);
  const user = asRoot ? 'postgres' : os.userInfo().username;
  run('initdb', ['-D', data, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    path.join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
    'start',
  ]);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  // A run that ends without its teardown (a failed hook, an interrupted worker) leaves no cluster behind.
  process.once('exit', stop);
  return { url: `postgresql://${user}@${encodeURIComponent(dir)}:${port}/postgres`, stop };
}

/** `url` with its database name replaced. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

type Admin = PsqlAdmin;
let admin: Admin | undefined;
let template: string | undefined;
let n = 0;
const made = new Set<string>();

function adminClient(): Admin {
  if (admin) return admin;
  const url = process.env.EVT_TEST_PG_URL;
  if (!url) throw new Error('EVT_TEST_DB=postgres needs EVT_TEST_PG_URL (set by the vitest globalSetup, or by hand)');
  const c = new PsqlAdmin(url);
  admin = c;
  process.once('exit', () => {
    for (const name of made) dropNow(name);
    if (template) dropNow(template);
  });
  return c;
}

function dropNow(name: string): void {
  try {
    admin?.querySync(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch {
    // Gone with the cluster.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Drops the test databases of processes that are gone (a worker killed before its exit handler ran). */
function sweepStale(a: Admin): void {
  const rows = a.querySync(`SELECT datname FROM pg_database WHERE datname LIKE '${PREFIX}%'`);
  for (const { datname } of rows) {
    const pid = Number(/^[a-z]+_(?:tpl|t)_(\d+)_/.exec(datname)?.[1]);
    if (pid && !alive(pid)) dropNow(datname);
  }
}

const CREATE = "TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'";

/** A fresh, migrated database of its own; returns its URL and a drop function. */
export async function freshTestDatabase(): Promise<{ url: string; drop: () => void }> {
  const a = adminClient();
  const base = process.env.EVT_TEST_PG_URL as string;
  if (!template) {
    sweepStale(a);
    const name = `${PREFIX}tpl_${process.pid}_${Date.now().toString(36)}`;
    a.querySync(`CREATE DATABASE ${name} ${CREATE}`);
    template = name;
    const db = new PgDb(withDatabase(base, name));
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  }
  const name = `${PREFIX}t_${process.pid}_${Date.now().toString(36)}_${++n}`;
  a.querySync(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  made.add(name);
  return {
    url: withDatabase(base, name),
    drop: () => {
      made.delete(name);
      dropNow(name);
    },
  };
}

/**
 * For tests that talk to PostgreSQL directly: the cluster EVT_TEST_PG_URL names (the run's, CI's or a developer's),
 * else a private one started for this process and recorded in EVT_TEST_PG_URL. Returns the private cluster, if any,
 * for the caller to stop.
 */
export async function ensureTestCluster(): Promise<PrivateCluster | undefined> {
  if (process.env.EVT_TEST_PG_URL) return undefined;
  const cluster = await startPrivateCluster();
  process.env.EVT_TEST_PG_URL = cluster.url;
  return cluster;
}
