import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CliError, runCli } from '../../../server/cli.ts';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase, type Db } from '../../../server/db/connection.ts';
import { acquireServerLock } from '../../../server/ops/server-lock.ts';
import { PgDb } from '../../../server/db/engine/postgres.ts';
import { createApp } from '../../../server/app.ts';
import { createAppPassword } from '../../../server/auth/credentials.ts';
import { insertUser } from '../../../server/db/repos/users.ts';
import { call } from '../../helpers/server.ts';
import { startPrivateCluster, withDatabase, type PrivateCluster } from '../../helpers/pg-cluster.ts';

// `cli migrate-to-postgres` end to end: a site made through the interface on SQLite, copied into PostgreSQL, then
// served from PostgreSQL with the same answers. PostgreSQL: EVT_TEST_PG_URL when set (CI's run on PostgreSQL, the
// dev cluster), else a private cluster for this file (the PostgreSQL binaries must be installed, as CI does).

let cluster: PrivateCluster | undefined;
let admin: PgDb;
let base: string;
let dir: string;
const made: string[] = [];

/** A new empty database as the README says to make one (UTF8, C collation); returns its URL. */
async function createDatabase(label: string): Promise<string> {
  const name = `migpg_${label}_${process.pid}_${Date.now().toString(36)}`;
  await admin.native(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  made.push(name);
  return withDatabase(base, name);
}

/** One query on its own connection. */
async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new PgDb(url);
  try {
    return await c.native(sql);
  } finally {
    await c.close();
  }
}

beforeAll(async () => {
  if (!process.env.EVT_TEST_PG_URL) cluster = await startPrivateCluster();
  base = process.env.EVT_TEST_PG_URL ?? (cluster as PrivateCluster).url;
  admin = new PgDb(base);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-migpg-'));
});

afterAll(async () => {
  for (const name of made) {
    try {
      await admin.native(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } catch {
      // Gone with the cluster.
    }
  }
  await admin?.close();
  cluster?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Served {
  root: string;
  base: string;
  db: Db;
  close: () => Promise<void>;
}

/** The real app on `spec` (a SQLite file or a PostgreSQL URL) with the data folder `dataDir`, on a free port. */
async function serve(spec: string, dataDir: string): Promise<Served> {
  const db = await openDatabase(spec);
  const server = await new Promise<http.Server>((resolve) => {
    const s = http.createServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig({ EVT_DB: spec, PORT: String(port), HOST: '127.0.0.1', EVT_LOG: 'off', EVT_DATA_DIR: dataDir });
  const app = await createApp({ config, db });
  server.on('request', app.express);
  const b = `http://127.0.0.1:${port}`;
  return {
    base: b,
    root: `${b}/wp-json/`,
    db,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(async () => {
          await app.close();
          if (db.open) await db.close();
          resolve();
        });
      }),
  };
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const cli = (argv: string[], env: Record<string, string>) => {
  const lines: string[] = [];
  return runCli(argv, { EVT_LOG: 'off', ...env }, (l) => lines.push(l)).then(() => lines);
};

/** Every answer of the reads below, with the server's port taken out of its URLs. */
async function reads(s: Served, ids: Seeded, auth: { admin: string; organizer: string; door: string }) {
  const get = async (p: string, a?: string) => {
    const r = await call(`${s.root}${p}`, { auth: a });
    return { path: p, status: r.status, body: JSON.parse(r.text.replaceAll(new URL(s.base).host, 'HOST')) };
  };
  return [
    await get('evt/events/v1/events?per_page=50'),
    await get(`evt/events/v1/events/${ids.concert}`),
    await get(`evt/events/v1/events/${ids.festival}`),
    await get('evt/events/v1/venues'),
    await get('evt/events/v1/organizers'),
    await get('evt/events/v1/categories'),
    await get('evt/events/v1/tags'),
    await get(`evt/tickets/v1/tickets?post_id=${ids.concert}`),
    await get(`evt/tickets/v1/tickets/${ids.paid}`),
    await get(`evt/tickets/v1/attendees?post_id=${ids.concert}&per_page=50`, auth.admin),
    await get(`evt/tickets/v1/attendees/${ids.checkedIn}`, auth.door),
    await get(`evt/tickets/v1/orders/${ids.order}`, auth.admin),
    await get(`evt/tickets/v1/attendees?post_id=${ids.concert}&checkedin=1`, auth.organizer),
  ];
}

interface Seeded {
  concert: number;
  festival: number;
  paid: number;
  order: number;
  checkedIn: number;
  file: number;
  fileUrl: string;
}

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da6364f8ffbf1e000502027f3c6e2c0a0000000049454e44ae426082',
  'hex',
);

/** A small site made through the interface: two events with venue, organizers and terms, tickets, an order, attendees, a check-in, a file. */
async function seed(s: Served, auth: string, doorKey: (eventId: number) => Promise<string>): Promise<Seeded & { door: string }> {
  const post = async (p: string, body: unknown, a = auth, form = false) => {
    const r = await call(
      `${s.root}${p}`,
      form ? { method: 'POST', auth: a, form: body as Record<string, string> } : { method: 'POST', auth: a, body },
    );
    assert.ok(r.status >= 200 && r.status < 300, `${p}: ${r.status} ${r.text}`);
    return r.body;
  };
  const day = (d: number, time: string) => `${new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10)} ${time}`;
  const concert = await post('evt/events/v1/events', {
    title: 'Harbour concert',
    description: '<p>Strings & brass, "quoted", ünïcödé</p>',
    start_date: day(10, '19:00:00'),
    end_date: day(10, '22:00:00'),
    venue: { venue: 'Harbour Hall', city: 'Tallinn', geo_lat: 59.44, geo_lng: 24.75 },
    organizer: [{ organizer: 'Org One', email: 'one@org.example' }, { organizer: 'Org Two' }],
    categories: ['Music', 'Jazz'],
    tags: 'late,free',
    cost: '15',
  });
  const festival = await post('evt/events/v1/events', {
    title: 'Autumn festival',
    start_date: day(20, '12:00:00'),
    end_date: day(22, '23:00:00'),
    all_day: true,
    categories: ['Music'],
    featured: true,
  });
  const nonce = async (id: number) => (await call(`${s.root}evt/events/v1/events/${id}?context=edit`, { auth })).body.nonces.add_ticket_nonce;
  const rsvp = await post(
    'evt/tickets/v1/tickets',
    { post_id: String(concert.id), add_ticket_nonce: await nonce(concert.id), provider: 'rsvp', name: 'Free entry', capacity: '100' },
    auth,
    true,
  );
  const paid = await post(
    'evt/tickets/v1/tickets',
    { post_id: String(concert.id), add_ticket_nonce: await nonce(concert.id), provider: 'tc', name: 'Seat', price: '15.50', capacity: '40' },
    auth,
    true,
  );
  // A visitor's order (cart, checkout), then a box-office attendee.
  const cart = await call(`${s.root}evt/tickets/v1/cart`, {
    method: 'POST',
    body: { provider: 'rsvp', tickets: [{ ticket_id: rsvp.id, quantity: 2 }] },
  });
  assert.equal(cart.status, 200, cart.text);
  const cookie = /evt_cart=[^;]+/.exec(cart.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const order = await call(`${s.root}evt/tickets/v1/cart/checkout`, {
    method: 'POST',
    headers: { cookie },
    body: { purchaser_name: 'Mari Maasikas', purchaser_email: 'mari@example.test' },
  });
  assert.equal(order.status, 201, order.text);
  const boxOffice = await post('evt/tickets/v1/attendees', { ticket_id: paid.id, full_name: 'Jaan Tamm', email: 'jaan@example.test' });
  const door = await doorKey(concert.id);
  const checkedIn = order.body.attendees[0].id as number;
  const scan = await call(`${s.root}evt/tickets/v1/attendees/${checkedIn}`, {
    method: 'PATCH',
    auth: `Bearer ${door}`,
    body: { check_in: true, device_id: 'door-a', nonce: crypto.randomBytes(12).toString('hex') },
  });
  assert.equal(scan.status, 201, scan.text);
  assert.ok(boxOffice.id);
  const file = await post('protected-files/v1/files', { filename: 'logo.png', content: PNG.toString('base64') });
  return {
    concert: concert.id,
    festival: festival.id,
    paid: paid.id,
    order: order.body.id,
    checkedIn,
    file: file.file.id,
    fileUrl: file.file.url,
    door,
  };
}

describe('cli migrate-to-postgres', () => {
  test('a SQLite site copied into PostgreSQL answers the same reads, keeps its keys and passwords, and continues its IDs', async () => {
    const sqliteFile = path.join(dir, 'site', 'evt.sqlite');
    const dataDir = path.dirname(sqliteFile);
    const env = { EVT_DB: sqliteFile };
    const a = await serve(sqliteFile, dataDir);
    // The first administrator is made as `npm start` makes it (EVT_ADMIN_USER); the rest through the CLI and the interface.
    const first = await insertUser(a.db, { login: 'admin', email: 'admin@example.test', role: 'administrator' });
    const adminAuth = basic('admin', (await createAppPassword(a.db, first.id, 'setup')).password);
    await cli(['user', 'add', 'olga', '--role', 'organizer', '--email', 'olga@example.test'], env);
    const organizerAuth = basic('olga', (await cli(['app-password', 'create', 'olga'], env)).at(-1) as string);
    const ids = await seed(
      a,
      adminAuth,
      async (eventId) => (await cli(['api-key', 'create', '--label', 'Door 1', '--event', String(eventId)], env)).at(-1) as string,
    );
    const auth = { admin: adminAuth, organizer: organizerAuth, door: `Bearer ${ids.door}` };
    const before = await reads(a, ids, auth);
    for (const r of before) assert.equal(r.status, 200, `${r.path}: ${JSON.stringify(r.body)}`);
    assert.equal(before[9]?.body.attendees.length, 3, 'two ordered and one box-office attendee');
    const lastPostId = ((await a.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'posts'").pluck().get()) as number) ?? 0;
    await a.close();

    const url = await createDatabase('site');
    const out = await cli(['migrate-to-postgres', '--to', url], env);
    const header = out.findIndex((l) => l.startsWith('TABLE'));
    assert.ok(header > 0, out.join('\n'));
    const rows = out.slice(header + 1).filter((l) => /^\w+\s+\d+\s+\d+\s+/.test(l));
    assert.ok(rows.length >= 30, out.join('\n'));
    for (const l of rows) assert.match(l, /^(\w+)\s+(\d+)\s+\2\s+\S+\s+ok$/, l);
    assert.match(out.find((l) => l.startsWith('posts ')) ?? '', new RegExp(`^posts\\s+\\d+\\s+\\d+\\s+${lastPostId + 1}\\s+ok$`));
    assert.ok(out.some((l) => /^Skipped evt_change_log \(\d+ rows\): /.test(l)));
    // Statistics gathered at the end: reltuples is -1 for a table never analysed (autovacuum's first pass comes a
    // minute later), and PostgreSQL would plan every query as if the tables were empty.
    const stats = await query(
      url,
      "SELECT relname, reltuples FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace AND relname IN ('posts', 'users', 'attendees', 'tickets') ORDER BY relname",
    );
    assert.deepEqual(
      stats.map((r) => [r.relname, Number(r.reltuples) > 0]),
      [
        ['attendees', true],
        ['posts', true],
        ['tickets', true],
        ['users', true],
      ],
    );
    assert.match(out.at(-1) as string, new RegExp(`EVT_DATA_DIR=${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    const b = await serve(url, dataDir);
    try {
      const after = await reads(b, ids, auth);
      assert.deepEqual(after, before);
      // The uploaded file is served from the same data folder.
      const png = await fetch(ids.fileUrl.replace(new URL(ids.fileUrl).host, new URL(b.base).host));
      assert.equal(png.status, 200);
      assert.deepEqual(Buffer.from(await png.arrayBuffer()), PNG);
      // A new event continues the post IDs.
      const next = await call(`${b.root}evt/events/v1/events`, {
        method: 'POST',
        auth: organizerAuth,
        body: { title: 'After the move', start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 12:00:00' },
      });
      assert.equal(next.status, 201, next.text);
      assert.equal(next.body.id, lastPostId + 1);

      // A second run into the now non-empty database refuses and changes nothing.
      const census = () =>
        query(url, 'SELECT (SELECT count(*) FROM posts) AS posts, (SELECT max(id) FROM posts) AS max, (SELECT count(*) FROM checkins) AS checkins');
      const was = await census();
      await assert.rejects(
        cli(['migrate-to-postgres', '--to', url], env),
        (e: Error) => e instanceof CliError && /the PostgreSQL database is not empty: .*users \(2 rows\)/.test(e.message),
      );
      assert.deepEqual(await census(), was);
      assert.deepEqual(
        await reads(b, ids, auth).then((r) => r.map((x) => x.status)),
        before.map(() => 200),
      );
    } finally {
      await b.close();
    }
  });

  test('refuses a source a running server holds, and one that is not a Doorstep database, before touching the target', async () => {
    const file = path.join(dir, 'locked', 'evt.sqlite');
    await (await openDatabase(file)).close();
    const url = await createDatabase('locked');
    const lock = acquireServerLock(file);
    try {
      await assert.rejects(
        cli(['migrate-to-postgres', '--from', file, '--to', url], {}),
        (e: Error) => e instanceof CliError && /already running on this database.*Stop that server first/.test(e.message),
      );
    } finally {
      lock?.release();
    }
    const other = path.join(dir, 'other.sqlite');
    const o = new Database(other);
    o.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    o.close();
    await assert.rejects(
      cli(['migrate-to-postgres', '--from', other, '--to', url], {}),
      (e: Error) => e instanceof CliError && /is not a Doorstep database/.test(e.message),
    );
    await assert.rejects(
      cli(['migrate-to-postgres', '--from', path.join(dir, 'none.sqlite'), '--to', url], {}),
      (e: Error) => e instanceof CliError && /no SQLite database at/.test(e.message),
    );
    assert.deepEqual(await query(url, "SELECT to_regclass('evt_schema')::text AS t, to_regclass('posts')::text AS p"), [{ t: null, p: null }]);
    // Unlocked, the same source goes in.
    const out = await cli(['migrate-to-postgres', '--from', file, '--to', url], {});
    assert.match(out.at(-2) as string, /^Copied \d+ rows in \d+ tables, every table verified/);
  });

  test('a value that does not survive the trip fails the copy: the whole copy is rolled back (exit code 1), leaving an empty schema a later run accepts', async () => {
    const file = path.join(dir, 'nul', 'evt.sqlite');
    const db = await openDatabase(file);
    await insertUser(db, { login: 'fine', email: 'fine@example.test', role: 'organizer' });
    // SQLite keeps a NUL inside text; PostgreSQL's text cannot: the server refuses the value (a driver that ends
    // text parameters at the NUL would send 'a', which the read-back check then finds different).
    const bad = await insertUser(db, { login: 'nul', email: 'nul@example.test', role: 'door' });
    await db.prepare("UPDATE users SET display_name = 'a' || char(0) || 'b' WHERE id = ?").run(bad.id);
    await db.close();
    const url = await createDatabase('nul');
    await assert.rejects(
      cli(['migrate-to-postgres', '--from', file, '--to', url], {}),
      (e: Error) =>
        !(e instanceof CliError) &&
        /users read back different from SQLite; rolled back, nothing was committed|failed, nothing was committed: copying users: .*may not contain the NUL character/.test(
          e.message,
        ),
    );
    assert.deepEqual(await query(url, 'SELECT count(*)::int AS n FROM users'), [{ n: 0 }]);
    const fix = new Database(file);
    fix.prepare("UPDATE users SET display_name = 'ab' WHERE id = ?").run(bad.id);
    fix.close();
    await cli(['migrate-to-postgres', '--from', file, '--to', url], {});
    assert.deepEqual(await query(url, 'SELECT login FROM users ORDER BY id'), [{ login: 'fine' }, { login: 'nul' }]);
  });
});
