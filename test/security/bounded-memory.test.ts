import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { DEFAULT_CACHE_BYTES, ResponseCache } from '../../server/http/response-cache.ts';
import { WindowLimiter } from '../../server/security/window-limiter.ts';
import { heldKeys, hit, MAX_KEYS } from '../../server/routes/forms/rate-limit.ts';
import type { AppState } from '../../server/kernel/context.ts';

/*
 * Finding 5 (bounded memory): the response cache held up to 2,000 entries of up to 4 MiB each (8 GiB), keyed by
 * the raw URL (so `?a=1&b=2` and `?b=2&a=1`, or any junk parameter, made new entries), dropping expired entries
 * only when asked for again. It is now bounded in bytes with LRU eviction, drops dead entries on its own, and
 * normalises keys. Per-client tables (form-submit limits, the shared window limiter) are bounded too.
 */

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  const r = await call(`${s.root}evt/events/v1/events`, {
    method: 'POST',
    auth: s.admin,
    body: { title: 'Cached', status: 'publish', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' },
  });
  assert.equal(r.status, 201);
});
afterAll(() => s.close());

/** Installs a cache of its own on the running app (the app reads it from its services on every request). */
function install(cache: ResponseCache): ResponseCache {
  s.app.state.services.responseCache = cache;
  return cache;
}

const url = (q: string) => `${s.root}evt/events/v1/events?start_date=2031-01-01&end_date=2032-01-01&${q}`;

describe('response cache bounds', () => {
  test('the app cache is bounded in bytes by default', () => {
    const cache = s.app.state.services.responseCache;
    assert.equal(cache.maxBytes, DEFAULT_CACHE_BYTES);
    assert.ok(cache.maxEntryBytes <= cache.maxBytes / 8);
  });

  test('2,000 unique URLs: the byte count stays within the bound and the least recently used go first', async () => {
    const cache = install(new ResponseCache(true, { maxBytes: 256 * 1024 }));
    const hot = url('junk=hot');
    const cold = url('junk=cold');
    await call(hot);
    await call(cold);
    let peak = 0;
    for (let i = 0; i < 2000; i++) {
      const r = await call(url(`junk=${i}`));
      assert.equal(r.status, 200);
      if (i % 50 === 0) await call(hot); // keeps "hot" recently used
      peak = Math.max(peak, cache.bytes);
      assert.ok(cache.bytes <= cache.maxBytes, `after ${i + 1} URLs the cache holds ${cache.bytes} bytes`);
    }
    assert.ok(peak > cache.maxBytes / 2, `the bound was reached (peak ${peak})`);
    assert.ok(cache.size < 2000, `entries were evicted (${cache.size} held)`);
    const keys = cache.keys();
    assert.ok(
      keys.some((k) => k.includes('"junk":"hot"')),
      'the recently used entry stays',
    );
    assert.ok(!keys.some((k) => k.includes('"junk":"cold"')), 'the least recently used entry went first');
    assert.ok(
      keys.some((k) => k.includes('"junk":"1999"')),
      'the newest entry is held',
    );
    assert.ok(!keys.some((k) => k.includes('"junk":"0"')), 'the oldest entries are gone');
    // The count is the cache's own: the sum of what it holds.
    const perEntry = cache.bytes / cache.size;
    assert.ok(perEntry > 200 && perEntry < 16 * 1024, `about ${Math.round(perEntry)} bytes an entry`);
  });

  test('one answer is one entry however its query is spelt', async () => {
    const cache = install(new ResponseCache(true));
    const a = await call(url('per_page=5&page=1'));
    const b = await call(`${s.root}evt/events/v1/events?page=1&per_page=5&end_date=2032-01-01&start_date=2031-01-01`);
    const c = await call(`${s.base}/?rest_route=/evt/events/v1/events&start_date=2031-01-01&per_page=5&end_date=2032-01-01&page=1`);
    assert.deepEqual(b.body, a.body);
    assert.deepEqual(c.body, a.body);
    assert.equal(cache.size, 1);
    await call(`${s.root}EVT/Events/V1/events?per_page=5&page=1&start_date=2031-01-01&end_date=2032-01-01`);
    assert.equal(cache.size, 1, 'routes match case-insensitively, so their keys do too');
  });

  test('an answer larger than the per-entry cap is served but not kept', async () => {
    const cache = install(new ResponseCache(true, { maxBytes: 64 * 1024 }));
    const index = await call(s.root);
    assert.equal(index.status, 200);
    assert.ok(index.text.length > cache.maxEntryBytes, 'the site index is larger than the cap');
    assert.equal(cache.size, 0);
    assert.equal(cache.bytes, 0);
  });

  test('expired entries are dropped without being asked for again, and a write empties the cache', async () => {
    let now = 1_000_000;
    const cache = install(new ResponseCache(true, { ttlMs: 60_000, now: () => now }));
    for (let i = 0; i < 20; i++) await call(url(`old=${i}`));
    assert.equal(cache.size, 20);
    now += 61_000;
    await call(url('fresh=1'));
    assert.equal(cache.size, 1, 'the 20 expired entries went when the next one was stored');
    assert.ok(cache.bytes > 0 && cache.bytes < 16 * 1024);
    const w = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'A write', start_date: '2031-04-01', end_date: '2031-04-01' },
    });
    assert.equal(w.status, 201);
    await call(url('after=write'));
    assert.equal(cache.size, 1, 'entries of the older content version are gone');
  });
});

describe('per-client tables', () => {
  test('form-submit limits hold at most MAX_KEYS client keys', async () => {
    const app = { services: {} } as unknown as AppState;
    for (let i = 0; i < MAX_KEYS + 5_000; i++) await hit(app, 'forms-submit', `client-${i}`, 5, 60_000, 1_000);
    assert.equal(heldKeys(app, 'forms-submit'), MAX_KEYS);
    // The limit itself still works for a busy client.
    for (let i = 0; i < 5; i++) assert.equal(await hit(app, 'forms-submit', 'busy', 5, 60_000, 2_000), 0);
    assert.equal(await hit(app, 'forms-submit', 'busy', 5, 60_000, 2_000), 60);
  });

  test('window-limiter keys cost little however long they are', () => {
    const limiter = new WindowLimiter({ max: 10, windowMs: 60_000, maxKeys: 100 });
    const long = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 300; i++) limiter.record([`${long}${i}`]);
    assert.equal(limiter.size, 100);
    const held = (limiter as unknown as { hits: Map<string, number[]> }).hits;
    for (const k of held.keys()) assert.ok(k.length <= 64, `a held key of ${k.length} characters`);
    // A long key is still counted as itself.
    for (let i = 0; i < 10; i++) limiter.record([`${long}-same`]);
    assert.ok(limiter.retryAfter([`${long}-same`]) > 0);
    assert.equal(limiter.retryAfter([`${long}-other`]), 0);
    limiter.clear(`${long}-same`);
    assert.equal(limiter.retryAfter([`${long}-same`]), 0);
  });
});
