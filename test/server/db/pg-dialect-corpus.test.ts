import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { openDatabase } from '../../../server/db/connection.ts';
import type { PgDb } from '../../../server/db/engine/postgres.ts';
import { freshTestDatabase, ensureTestCluster, type PrivateCluster } from '../../helpers/pg-cluster.ts';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

// Every SQL text the server prepares while it serves a representative run of routes (each GET route of the REST
// index, with and without the common list filters, check-ins, a cart and checkout) is collected on a SQLite
// server, then prepared on PostgreSQL through the dialect seam: each PREPARE must succeed. A text the seam cannot
// translate fails here with the text and PostgreSQL's error.

let cluster: PrivateCluster | undefined;
let s: TestServer;
const texts = new Set<string>();

beforeAll(async () => {
  cluster = await ensureTestCluster();
  const prev = process.env.EVT_TEST_DB;
  process.env.EVT_TEST_DB = 'sqlite';
  s = await startTestServer();
  if (prev === undefined) delete process.env.EVT_TEST_DB;
  else process.env.EVT_TEST_DB = prev;
  const db = s.db as unknown as { prepare: (sql: string) => unknown };
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => {
    texts.add(sql);
    return prepare(sql);
  };
});

afterAll(async () => {
  await s?.close();
  cluster?.stop();
});

const LIST_QUERIES = [
  '',
  '?per_page=2&page=2',
  '?search=Jazz%25_x&orderby=title&order=asc',
  '?orderby=date&order=desc&status=publish',
  '?include=1,2,3&orderby=include',
  '?exclude=1&slug=a,b&hide_empty=false',
  '?start_date=2020-01-01&end_date=2040-01-01&featured=true&categories=1&tags=1&venue=1&organizer=1',
  '?geoloc=1&geoloc_lat=59.4&geoloc_lng=24.7&geoloc_radius=10',
  '?event=1&ticket_id=1&order=1&checkedin=true&attendee_information_available=true&search=a',
];

test('every SQL text the server prepares on a representative run prepares on PostgreSQL', async () => {
  const f = await seedTicketsFixture(s.db, { attendees: 5, provider: 'tc', priceMinor: 2500, capacity: 50 });
  const door = await s.apiKey('Door', f.eventId);
  for (const [kind, body] of [
    ['venues', { venue: 'Hall', city: 'Tallinn', geo_lat: 59.43, geo_lng: 24.75 }],
    ['organizers', { organizer: 'Org', email: 'org@example.test' }],
    ['categories', { name: 'Jazz' }],
    ['tags', { name: 'Free' }],
    ['events', { title: 'Jazz night', start_date: '2031-01-01 20:00:00', end_date: '2031-01-01 22:00:00', categories: [1], tags: [2] }],
  ] as const) {
    await call(`${s.root}evt/events/v1/${kind}`, { method: 'POST', auth: s.admin, body });
  }
  const code = f.codes.get(f.attendeeIds[0] as number);
  await call(`${s.root}evt/tickets/v1/checkins`, {
    method: 'POST',
    headers: { 'x-api-key': door.key },
    body: { checkins: [{ code, nonce: 'n-1', event_id: f.eventId }] },
  });
  // A cart write (the provider's lines replaced) and its checkout: the buyer's path, run on every sale.
  const cart = await fetch(`${s.root}evt/tickets/v1/cart`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'tc', tickets: [{ ticket_id: f.ticketId, quantity: 2 }] }),
  });
  assert.equal(cart.status, 200, await cart.text());
  const cookie = cart.headers
    .getSetCookie()
    .find((c) => c.startsWith('evt_cart='))
    ?.split(';')[0];
  assert.ok(cookie, 'the cart write sets its cookie');
  const checkout = await call(`${s.root}evt/tickets/v1/cart/checkout`, {
    method: 'POST',
    headers: { cookie },
    body: { purchaser_name: 'Buyer', purchaser_email: 'buyer@example.test' },
  });
  assert.equal(checkout.status, 201, checkout.text);
  const index = await call(s.root, { auth: s.admin });
  const routes = Object.keys(index.body.routes as Record<string, unknown>);
  const ids = [f.eventId, f.ticketId, f.orderId, f.attendeeIds[0], 1];
  for (const route of routes) {
    const paths = route.includes('(?P<id>')
      ? ids.map((id) => route.replace(/\(\?P<id>[^)]+\)/, String(id)))
      : route.includes('(?P<')
        ? [route.replace(/\(\?P<\w+>[^)]+\)/g, 'jazz-night')]
        : [route];
    for (const p of paths) {
      for (const q of route.includes('(?P<') ? [''] : LIST_QUERIES) {
        await call(`${s.root}${p.slice(1)}${q}`, { auth: s.admin });
      }
    }
  }
  assert.ok(texts.size > 100, `only ${texts.size} texts collected`);
  const fresh = await freshTestDatabase();
  const pg = (await openDatabase(fresh.url)) as PgDb;
  const failures: string[] = [];
  try {
    for (const sql of texts) {
      try {
        pg.prepare(sql);
      } catch (e) {
        failures.push(`${(e as Error).message.split('\n')[0]}\n    ${sql.replace(/\s+/g, ' ').slice(0, 300)}`);
      }
    }
    // Each text PostgreSQL cannot type costs a failed round trip per connection: none may need the retry.
    assert.deepEqual(
      pg.untypedRetries.map((sql) => sql.replace(/\s+/g, ' ').slice(0, 300)),
      [],
      'texts with a parameter PostgreSQL could not type (translated with a retry)',
    );
  } finally {
    await pg.close();
    fresh.drop();
  }
  assert.deepEqual(failures, [], `${failures.length} of ${texts.size} texts do not prepare on PostgreSQL:\n${failures.join('\n')}`);
});
