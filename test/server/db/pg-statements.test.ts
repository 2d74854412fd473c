import assert from 'node:assert/strict';
import { afterAll, beforeAll, test } from 'vitest';
import { type Sql, sqlFor } from '../../../server/db/engine/sql.ts';
import { ensureTestCluster, type PrivateCluster } from '../../helpers/pg-cluster.ts';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

// Nothing rewrites a statement's SQL at run time (issue 20): each engine runs its own side of a statement as it
// is, PostgreSQL only numbering the parameters (engine/pg-params.ts). Every text a PostgreSQL server prepares
// while it serves a representative run of routes (each GET route of the REST index, with and without the common
// list filters, check-ins, a cart and checkout) is collected, and must hold none of the SQLite spellings the former
// SQLite -> PostgreSQL translator (deleted) rewrote: a text still in the SQLite dialect fails here, named, even where
// PostgreSQL happens to read it (a LIKE that SQLite reads without case and PostgreSQL with it). The check reads SQL
// text, so it lives here, in a test: nothing in the server recognises a statement by its text.

let cluster: PrivateCluster | undefined;
let s: TestServer;
/** PostgreSQL texts of the statements written per engine. */
const texts = new Set<string>();

beforeAll(async () => {
  cluster = await ensureTestCluster();
  const prev = process.env.EVT_TEST_DB;
  process.env.EVT_TEST_DB = 'postgres';
  s = await startTestServer();
  if (prev === undefined) delete process.env.EVT_TEST_DB;
  else process.env.EVT_TEST_DB = prev;
  assert.equal(s.db.engine, 'postgres');
  const db = s.db as unknown as Record<'prepare' | 'reader', (sql: Sql) => unknown>;
  for (const k of ['prepare', 'reader'] as const) {
    const f = db[k].bind(db);
    db[k] = (sql: Sql) => {
      texts.add(sqlFor('postgres', sql));
      return f(sql);
    };
  }
});

/** Index of the parenthesis closing the one at `open`. */
function closing(t: string, open: number): number {
  let depth = 0;
  for (let i = open; i < t.length; i++) {
    if (t[i] === '(') depth++;
    else if (t[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** The spellings the former translator rewrote: SQLite's, which PostgreSQL rejects or reads otherwise. */
const SQLITE_ONLY: [string, (t: string) => boolean][] = [
  ['json_each (engine/sql.ts inJson, jsonElements)', (t) => /\bjson_each\s*\(/i.test(t)],
  ['INSERT OR … / REPLACE INTO (ON CONFLICT)', (t) => /\b(?:INSERT\s+OR\s+\w+|REPLACE)\s+INTO\b/i.test(t)],
  ['COLLATE NOCASE (lower() on both sides)', (t) => /\bCOLLATE\s+NOCASE\b/i.test(t)],
  ['LIKE, which SQLite reads without case (LIKE_NOCASE)', (t) => /(?<![\w@:$])LIKE\b/i.test(t)],
  ['CAST AS INTEGER / REAL (BIGINT, DOUBLE PRECISION)', (t) => /\bAS\s+(?:INTEGER|REAL)\s*\)/i.test(t)],
  ['a = b written IS / IS NOT (IS [NOT] DISTINCT FROM)', (t) => /\bIS\s+(?:NOT\s+)?(?!NULL\b|DISTINCT\b|TRUE\b|FALSE\b|NOT\b)[\w$@:?(]/i.test(t)],
  ['an untyped parameter tested for NULL (CAST it)', (t) => /(?:\?\d*|(?<![:\w])[@:$][A-Za-z_]\w*)\s+IS\s+(?:NOT\s+)?NULL\b/i.test(t)],
  ['an integer truth value (TRUE, FALSE)', (t) => /\b(?:WHERE|AND|OR|ON|NOT)\s+[01](?=\s*(?:$|\)|AND\b|OR\b|ORDER\b|GROUP\b|LIMIT\b))/i.test(t)],
  ['an unquoted camelCase name (PostgreSQL folds it)', (t) => /(?<![\w$"@:])[a-z_][a-z0-9_]*[A-Z]\w*\b(?!\s*\()/.test(t)],
  [
    'scalar MAX / MIN of several arguments (GREATEST, LEAST)',
    (t) =>
      [...t.matchAll(/\b(?:MAX|MIN)\s*\(/gi)].some((m) => {
        const open = m.index + m[0].length - 1;
        const inner = t.slice(open + 1, closing(t, open));
        return inner.replace(/\([^()]*\)/g, '').includes(',');
      }),
  ],
  [
    'a subquery in FROM without an alias',
    (t) =>
      [...t.matchAll(/\b(?:FROM|JOIN)\s*\(\s*(?=SELECT\b|WITH\b|VALUES\b)/gi)].some((m) => {
        const close = closing(t, t.indexOf('(', m.index));
        const next = /^\s*(?:AS\s+)?([A-Za-z_]\w*)/i.exec(t.slice(close + 1));
        return !next || /^(?:WHERE|GROUP|ORDER|LIMIT|OFFSET|JOIN|LEFT|RIGHT|INNER|CROSS|ON|USING|HAVING|UNION|RETURNING)$/i.test(next[1] as string);
      }),
  ],
];

/** The SQLite spellings in `text` (string literals, quoted names and comments aside), or null if none. */
function sqliteSpellings(text: string): string | null {
  const t = text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, ' x ');
  const found = SQLITE_ONLY.filter(([, test]) => test(t)).map(([name]) => name);
  return found.length ? found.join('; ') : null;
}

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

test('every text PostgreSQL prepares on a representative run is written for it (no SQLite dialect left to rewrite)', async () => {
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
  const rewritten: string[] = [];
  for (const text of texts) {
    const t = sqliteSpellings(text);
    if (t !== null) rewritten.push(`${text.replace(/\s+/g, ' ').slice(0, 300)}\n    -> ${t}`);
  }
  assert.deepEqual(rewritten, [], `${rewritten.length} of ${texts.size} PostgreSQL texts are still in the SQLite dialect:\n${rewritten.join('\n')}`);
});

test('the check sees what it is for: SQLite-dialect texts count, texts written for PostgreSQL do not', () => {
  for (const t of [
    'SELECT value FROM json_each(?)',
    'INSERT OR IGNORE INTO options (name, value) VALUES (?, ?)',
    'SELECT * FROM users WHERE email = ? COLLATE NOCASE',
    "SELECT * FROM users WHERE login LIKE 'a%'",
    'SELECT MAX(a, b) FROM t',
    'SELECT COUNT(*) FROM (SELECT 1)',
    'SELECT 1 WHERE 0',
    'SELECT x AS camelCase FROM t',
    'SELECT 1 WHERE ? IS NULL',
    'SELECT CAST(x AS INTEGER) FROM t',
  ])
    assert.notEqual(sqliteSpellings(t), null, t);
  for (const t of [
    'SELECT id FROM posts WHERE id = ANY(ARRAY(SELECT json_array_elements_text(?::json)::bigint)) AND date > evt_now_utc()',
    'INSERT INTO options (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING',
    "SELECT * FROM users WHERE lower(email) = lower(?) AND login ILIKE 'a%' ESCAPE '\\'",
    'SELECT GREATEST(a, b) AS "camelCase", CAST(x AS BIGINT) FROM (SELECT 1) AS t WHERE CAST(? AS TEXT) IS NULL AND FALSE',
    "SELECT * FROM mail_log WHERE status = @status AND subject ILIKE @like ESCAPE '\\' LIMIT @limit",
  ])
    assert.equal(sqliteSpellings(t), null, t);
});
