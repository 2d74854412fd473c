import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { openDatabase } from '../../../server/db/connection.ts';
import type { Db } from '../../../server/db/connection.ts';

/**
 * The per-term listing the filtered archive reads its count and page from (015-event-term-listing.sql) is a copy
 * kept by triggers: after every kind of write (API, another process), it holds exactly what the base tables say,
 * and the archive's total and page agree with it.
 */
let s: TestServer;
let ev: string;
let db: Db;
beforeAll(async () => {
  s = await startTestServer({ EVT_CACHE: 'off' });
  ev = `${s.root}evt/events/v1/events`;
  // A connection of its own (another process's writes), to the test server's database (SQLite or PostgreSQL).
  db = await openDatabase(s.app.state.config.dbFile);
});
afterAll(async () => {
  await db.close();
  await s.close();
});

const DERIVED = `SELECT tr.term_id, e.start_utc, e.post_id, e.end_utc, p.status, e.hide_from_listings
  FROM term_relationships tr JOIN events e ON e.post_id = tr.post_id JOIN posts p ON p.id = e.post_id`;
const KEPT = 'SELECT term_id, start_utc, post_id, end_utc, status, hide_from_listings FROM event_term_listing';

/** The listing equals what the base tables derive, row for row; returns its row count. */
async function assertListingExact(when: string): Promise<number> {
  const missing = await db.prepare(`${DERIVED} EXCEPT ${KEPT}`).all();
  const extra = await db.prepare(`${KEPT} EXCEPT ${DERIVED}`).all();
  assert.deepEqual(missing, [], `${when}: rows missing from the listing`);
  assert.deepEqual(extra, [], `${when}: stale rows in the listing`);
  return ((await db.prepare('SELECT COUNT(*) AS n FROM event_term_listing').get()) as { n: number }).n;
}

const window = 'start_date=2032-01-01&end_date=2032-12-31';

async function archive(category: string): Promise<{ total: number; ids: number[] }> {
  const r = await call(`${ev}?${window}&categories=${category}&per_page=50`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-tec-total'), String(r.body.total));
  return { total: r.body.total, ids: r.body.events.map((e: { id: number }) => e.id) };
}

async function create(title: string, start: string, categories: string[]): Promise<number> {
  const c = await call(ev, {
    method: 'POST',
    auth: s.admin,
    body: { title, status: 'publish', start_date: `${start} 19:00`, end_date: `${start} 21:00`, categories },
  });
  assert.equal(c.status, 201);
  return c.body.id;
}

describe('event term listing', () => {
  test('kept exact through API writes and another process writes; the archive total and page follow', async () => {
    const a = await create('A', '2032-03-01', ['Jazz']);
    const b = await create('B', '2032-02-01', ['Jazz', 'Blues']);
    const c = await create('C', '2032-04-01', ['Blues']);
    assert.equal(await assertListingExact('created'), 4);
    assert.deepEqual(await archive('jazz'), { total: 2, ids: [b, a] });

    // Dates moved: the order follows.
    const moved = await call(`${ev}/${a}`, { method: 'POST', auth: s.admin, body: { start_date: '2032-01-15 19:00', end_date: '2032-01-15 21:00' } });
    assert.equal(moved.status, 200);
    await assertListingExact('dates moved');
    assert.deepEqual(await archive('jazz'), { total: 2, ids: [a, b] });

    // Categories changed: C joins Jazz, B leaves it.
    await call(`${ev}/${c}`, { method: 'POST', auth: s.admin, body: { categories: ['Jazz', 'Blues'] } });
    await call(`${ev}/${b}`, { method: 'POST', auth: s.admin, body: { categories: ['Blues'] } });
    await assertListingExact('categories changed');
    assert.deepEqual(await archive('jazz'), { total: 2, ids: [a, c] });

    // Hidden from listings, then shown again.
    await call(`${ev}/${a}`, { method: 'POST', auth: s.admin, body: { hide_from_listings: true } });
    await assertListingExact('hidden');
    assert.deepEqual(await archive('jazz'), { total: 1, ids: [c] });
    await call(`${ev}/${a}`, { method: 'POST', auth: s.admin, body: { hide_from_listings: false } });
    assert.deepEqual(await archive('jazz'), { total: 2, ids: [a, c] });

    // Trashed, restored, made a draft.
    assert.equal((await call(`${ev}/${c}`, { method: 'DELETE', auth: s.admin })).status, 200);
    await assertListingExact('trashed');
    assert.deepEqual(await archive('jazz'), { total: 1, ids: [a] });
    await call(`${ev}/${c}`, { method: 'POST', auth: s.admin, body: { status: 'publish' } });
    await assertListingExact('restored');
    assert.deepEqual(await archive('jazz'), { total: 2, ids: [a, c] });
    await call(`${ev}/${a}`, { method: 'POST', auth: s.admin, body: { status: 'draft' } });
    await assertListingExact('draft');
    assert.deepEqual(await archive('jazz'), { total: 1, ids: [c] });

    // Another process: a date change, a status change, a term link removed and one added, a post deleted.
    const jazz = ((await db.prepare("SELECT id FROM terms WHERE slug = 'jazz'").get()) as { id: number }).id;
    await db.prepare("UPDATE events SET start_utc = '2032-05-01 19:00:00', end_utc = '2032-05-01 21:00:00' WHERE post_id = ?").run(c);
    await db.prepare("UPDATE posts SET status = 'publish' WHERE id = ?").run(a);
    await db.prepare('INSERT INTO term_relationships (post_id, term_id) VALUES (?, ?)').run(b, jazz);
    await assertListingExact('another process');
    assert.deepEqual(await archive('jazz'), { total: 3, ids: [a, b, c] });
    await db.prepare('DELETE FROM term_relationships WHERE post_id = ? AND term_id = ?').run(a, jazz);
    await db.prepare('DELETE FROM posts WHERE id = ?').run(c);
    await assertListingExact('unlinked and deleted');
    assert.deepEqual(await archive('jazz'), { total: 1, ids: [b] });
  });

  test('an event that ends before it starts is counted as the base tables count it', async () => {
    const id = await create('Inverted', '2032-06-01', ['Odd']);
    // Starts after the window, ends inside it: matches end_date, and start_date (it starts after the window's start).
    await db.prepare("UPDATE events SET start_utc = '2033-02-01 19:00:00', end_utc = '2032-06-01 21:00:00' WHERE post_id = ?").run(id);
    await assertListingExact('inverted');
    assert.deepEqual(await archive('odd'), { total: 1, ids: [id] });
  });
});
