import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { forgetDaySalt, insertHits } from '../../../server/db/repos/analytics.ts';
import { createEvent, createLinked } from '../site/fixtures.ts';
import { flushHits } from '../../../server/routes/analytics/record.ts';

let s: TestServer;
let ev: { id: number; url: string };
let venue: { id: number; url: string };
const today = () => new Date().toISOString().slice(0, 10);
const ROUTES = ['stats', 'totals', 'posts', 'referrers', 'realtime'];
const get = (path: string, auth: string | null = s.admin) => call(`${s.root}analytics/v1/${path}`, { auth: auth ?? undefined });
const visit = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers: { 'user-agent': 'Mozilla/5.0 test', ...headers } }).then((r) => r.text());

beforeAll(async () => {
  s = await startTestServer();
  venue = await createLinked(s, 'venue', { venue: 'Hall' });
  ev = await createEvent(s, { title: 'Concert', venue: { id: venue.id } });
  // Historic hits (the recorder always writes "now"; older days are inserted as the recorder would store them).
  const old = (day: string, post_id: number, visitor: string, referrer_host = '', kind: 'page' | 'api' = 'page') =>
    insertHits(s.db, [{ ts: `${day} 12:00:00`, day, kind, path: `/event/x/`, post_id, referrer_host, visitor }]);
  await old('2026-01-01', ev.id, 'a', 'news.example');
  await old('2026-01-01', ev.id, 'a', 'news.example');
  await old('2026-01-01', ev.id, 'b');
  await old('2026-01-03', venue.id, 'a', 'blog.example', 'api');
  await old('2025-12-31', ev.id, 'c');
  await old('2026-02-10', ev.id, 'a');
});
afterAll(() => s.close());

describe('analytics/v1 permissions', () => {
  test('anonymous 401, organizer and door keys 403, administrators 200 on every route', async () => {
    const key = await s.apiKey('Door');
    const organizer = await s.userAuth('organizer');
    for (const r of ROUTES) {
      const anon = await get(r, null);
      assert.equal(anon.status, 401, r);
      assert.deepEqual(anon.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to view analytics.', data: { status: 401 } });
      assert.equal((await get(r, organizer)).status, 403, r);
      assert.equal((await call(`${s.root}analytics/v1/${r}`, { headers: { authorization: `Bearer ${key.key}` } })).status, 403, r);
      assert.equal((await get(r)).status, 200, r);
      assert.equal((await call(`${s.root}analytics/v1/${r}`, { method: 'POST', auth: s.admin, body: {} })).status, 404, r);
    }
  });
});

describe('recording', () => {
  test('page views and anonymous event API reads are recorded, without the client address', async () => {
    // The last row's ID (on PostgreSQL an upsert that adds to a row still takes a sequence number).
    const before = Number(((await s.db.prepare('SELECT COALESCE(MAX(id), 0) AS n FROM analytics_hits').get()) as { n: number }).n);
    await visit(ev.url, { referer: 'https://www.search.example/q?private=1' });
    await visit(ev.url, { 'user-agent': 'Other browser', referer: `${s.base}/events/` });
    await visit(`${ev.url}embed/`);
    await visit(venue.url);
    await visit(`${s.base}/events/`);
    await call(`${s.root}evt/events/v1/events/${ev.id}`);
    await call(`${s.root}evt/events/v1/events`);
    // Not recorded: signed-in API reads, failures, other routes, bots, missing pages.
    await call(`${s.root}evt/events/v1/events/${ev.id}`, { auth: s.admin });
    await call(`${s.root}evt/events/v1/events/999999`);
    await call(`${s.root}evt/events/v1/venues`);
    await visit(ev.url, { 'user-agent': 'Googlebot/2.1' });
    await visit(`${s.base}/event/nothing/`);
    await flushHits(s.app.state);
    const rows = (await s.db
      .prepare('SELECT kind, path, post_id, referrer_host, visitor FROM analytics_hits WHERE id > ? ORDER BY id')
      .all(before)) as {
      kind: string;
      path: string;
      post_id: number;
      referrer_host: string;
      visitor: string;
    }[];
    assert.deepEqual(
      rows.map((r) => [r.kind, r.path, r.post_id, r.referrer_host]),
      [
        ['page', new URL(ev.url).pathname, ev.id, 'www.search.example'],
        ['page', new URL(ev.url).pathname, ev.id, ''],
        ['page', `${new URL(ev.url).pathname}embed/`, ev.id, ''],
        ['page', new URL(venue.url).pathname, venue.id, ''],
        ['page', '/events/', 0, ''],
        ['api', `/evt/events/v1/events/${ev.id}`, ev.id, ''],
        ['api', '/evt/events/v1/events', 0, ''],
      ],
    );
    assert.notEqual(rows[0].visitor, rows[1].visitor, 'another browser is another visitor');
    assert.equal(rows[0].visitor, rows[2].visitor);
    assert.match(rows[0].visitor, /^[0-9a-f]{32}$/);
    const everything = JSON.stringify([
      await s.db.prepare('SELECT * FROM analytics_hits').all(),
      await s.db.prepare('SELECT day, hex(salt) FROM analytics_salts').all(),
    ]);
    assert.ok(!everything.includes('127.0.0.1') && !everything.includes('::ffff'), 'no address stored');
  });

  test('buffered views reach the database by themselves, within a few seconds', async () => {
    await flushHits(s.app.state);
    const count = async () => Number(((await s.db.prepare('SELECT SUM(views) AS n FROM analytics_hits').get()) as { n: number }).n);
    const before = await count();
    await visit(ev.url);
    for (let i = 0; i < 50 && (await count()) === before; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await count(), before + 1);
  });

  test("only today's salt is kept", async () => {
    await s.db
      .prepare('INSERT INTO analytics_salts (day, salt) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET salt = excluded.salt')
      .run('2020-01-01', Buffer.alloc(32));
    await s.db.prepare('DELETE FROM analytics_salts WHERE day = ?').run(today());
    // The server holds the day's salt in memory once read: a new day (or process) finds none stored.
    forgetDaySalt(s.db);
    await visit(ev.url);
    assert.deepEqual(await s.db.prepare('SELECT day FROM analytics_salts').all(), [{ day: today() }]);
  });
});

describe('reports', () => {
  test('totals over the default range (the last 30 days) count today', async () => {
    const r = await get('totals');
    assert.equal(r.status, 200);
    assert.equal(r.body.end_date, today());
    const start = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    assert.equal(r.body.start_date, start);
    await flushHits(s.app.state);
    const n = Number(
      ((await s.db.prepare('SELECT SUM(views) AS n FROM analytics_hits WHERE day BETWEEN ? AND ?').get(start, today())) as { n: number }).n,
    );
    assert.equal(r.body.views, n);
    assert.ok(r.body.page_views >= 5 && r.body.api_reads >= 2);
  });

  test('stats: one zero-filled entry per day, or per month', async () => {
    const r = await get('stats?start_date=2025-12-31&end_date=2026-01-03');
    assert.deepEqual(r.body, {
      start_date: '2025-12-31',
      end_date: '2026-01-03',
      interval: 'day',
      totals: { views: 5, visitors: 4, page_views: 4, api_reads: 1 },
      data: [
        { date: '2025-12-31', views: 1, visitors: 1, page_views: 1, api_reads: 0 },
        { date: '2026-01-01', views: 3, visitors: 2, page_views: 3, api_reads: 0 },
        { date: '2026-01-02', views: 0, visitors: 0, page_views: 0, api_reads: 0 },
        { date: '2026-01-03', views: 1, visitors: 1, page_views: 0, api_reads: 1 },
      ],
    });
    const m = await get('stats?start_date=2025-12-15&end_date=2026-02-28&monthly=true');
    assert.equal(m.body.interval, 'month');
    assert.deepEqual(
      m.body.data.map((d: { date: string; views: number }) => [d.date, d.views]),
      [
        ['2025-12', 1],
        ['2026-01', 4],
        ['2026-02', 1],
      ],
    );
  });

  test('totals, posts and referrers for a range', async () => {
    const q = 'start_date=2026-01-01&end_date=2026-01-31';
    assert.deepEqual((await get(`totals?${q}`)).body, {
      start_date: '2026-01-01',
      end_date: '2026-01-31',
      views: 4,
      visitors: 3,
      page_views: 3,
      api_reads: 1,
      posts: 2,
      referrers: 2,
    });
    const p = await get(`posts?${q}`);
    assert.deepEqual(p.body.posts, [
      { id: ev.id, type: 'event', title: 'Concert', url: ev.url, views: 3, visitors: 2, page_views: 3, api_reads: 0 },
      { id: venue.id, type: 'venue', title: 'Hall', url: venue.url, views: 1, visitors: 1, page_views: 0, api_reads: 1 },
    ]);
    const et = await call(`${s.base}/et/wp-json/analytics/v1/posts?${q}`, { auth: s.admin });
    assert.equal(et.body.posts[0].url, ev.url.replace(s.base, `${s.base}/et`));
    const ref = await get(`referrers?${q}`);
    assert.deepEqual(ref.body, {
      start_date: '2026-01-01',
      end_date: '2026-01-31',
      referrers: [
        { host: 'news.example', views: 2, visitors: 1, page_views: 2, api_reads: 0 },
        { host: 'blog.example', views: 1, visitors: 1, page_views: 0, api_reads: 1 },
      ],
    });
  });

  test('realtime counts hits since a moment (default 30 minutes)', async () => {
    const r = await get('realtime');
    assert.equal(r.status, 200);
    assert.ok(r.body.views >= 7);
    assert.ok(r.body.paths.some((p: { path: string; post_id: number }) => p.path === new URL(ev.url).pathname && p.post_id === ev.id));
    const all = await get('realtime?since=2025-01-01T00:00:00Z');
    assert.equal(all.body.since, '2025-01-01T00:00:00.000Z');
    assert.equal(all.body.views, Number(((await s.db.prepare('SELECT SUM(views) AS n FROM analytics_hits').get()) as { n: number }).n));
    const part = await get('realtime?since=2026-01-02T00:00:00Z');
    assert.equal(
      part.body.views,
      Number(((await s.db.prepare("SELECT SUM(views) AS n FROM analytics_hits WHERE ts >= '2026-01-02 00:00:00'").get()) as { n: number }).n),
    );
    assert.ok(part.body.views < all.body.views);
  });

  test('bad dates and ranges are 400 rest_invalid_param', async () => {
    const cases: [string, string][] = [
      ['stats?start_date=2026-1-1', 'start_date'],
      ['stats?start_date=2026-02-30', 'start_date'],
      ['totals?end_date=yesterday', 'end_date'],
      ['posts?start_date=2026-01-10&end_date=2026-01-09', 'end_date'],
      ['referrers?start_date[]=2026-01-01', 'start_date'],
      ['stats?start_date=2020-01-01&end_date=2026-01-01', 'start_date'],
      ['stats?start_date=2000-01-01&end_date=2026-01-01&monthly=1', 'start_date'],
      ['stats?monthly=sometimes', 'monthly'],
      ['realtime?since=not%20a%20date', 'since'],
      [`realtime?since=${new Date(Date.now() + 3_600_000).toISOString()}`, 'since'],
    ];
    for (const [path, param] of cases) {
      const r = await get(path);
      assert.equal(r.status, 400, path);
      assert.equal(r.body.code, 'rest_invalid_param', path);
      assert.deepEqual(Object.keys(r.body.data.params), [param], path);
    }
    // The same six-year range is fine month by month.
    assert.equal((await get('stats?start_date=2020-01-01&end_date=2026-01-01&monthly=1')).status, 200);
    // Validation comes before permission.
    assert.equal((await get('stats?start_date=bad', null)).status, 400);
  });

  test('the namespace has its index and /doc', async () => {
    const idx = await call(`${s.root}analytics/v1`);
    assert.equal(idx.status, 200);
    assert.deepEqual(Object.keys(idx.body.routes), ['/analytics/v1', '/analytics/v1/doc', ...ROUTES.map((r) => `/analytics/v1/${r}`)]);
    const doc = await call(`${s.root}analytics/v1/doc`);
    assert.equal(doc.body.openapi, '3.0.0');
    assert.ok(doc.body.components.schemas.AnalyticsStats);
  });
});
