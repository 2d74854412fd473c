import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';

/*
 * Finding 4: a POST with `X-HTTP-Method-Override: GET` (or `?_method=GET`) and body parameters was answered from
 * its body and stored in the anonymous response cache under its URL alone, so every later visitor of that URL got
 * the attacker's answer. Only a real GET (or HEAD) without a body may be served from or stored into the cache.
 * And CONTRACT D6: `_method` and the override header act only on POST; a GET never writes.
 */

let s: TestServer;
const ids: number[] = [];
beforeAll(async () => {
  s = await startTestServer();
  for (const title of ['Alpha concert', 'Beta lecture']) {
    const r = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: s.admin,
      body: { title, status: 'publish', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' },
    });
    assert.equal(r.status, 201);
    ids.push(r.body.id);
  }
});
afterAll(() => s.close());

const cache = () => s.app.state.services.responseCache;
const list = (q: string) => `${s.root}evt/events/v1/events?start_date=2031-01-01&end_date=2032-01-01&${q}`;

describe('response cache poisoning', () => {
  test('an overridden POST with body parameters is never stored under the URL', async () => {
    for (const [i, variant] of [{ headers: { 'x-http-method-override': 'GET' } }, { query: '_method=GET' }].entries()) {
      const url = list(`per_page=${10 + i}${variant.query ? `&${variant.query}` : ''}`);
      const poisoned = await call(url, { method: 'POST', form: { search: 'Beta' }, headers: variant.headers });
      // The override itself still works (WordPress semantics): the POST is answered as a GET of its parameters.
      assert.equal(poisoned.status, 200);
      assert.deepEqual(
        poisoned.body.events.map((e: { title: string }) => e.title),
        ['Beta lecture'],
      );
      const plain = await call(url);
      assert.equal(plain.status, 200);
      assert.deepEqual(
        plain.body.events.map((e: { title: string }) => e.title),
        ['Alpha concert', 'Beta lecture'],
        'a real GET gets the real answer',
      );
    }
  });

  test('an overridden POST is never answered from the cache', async () => {
    const url = list('per_page=20');
    assert.equal((await call(url)).body.total, 2);
    assert.equal((await call(url)).body.total, 2); // now cached
    const r = await call(url, { method: 'POST', headers: { 'x-http-method-override': 'GET' }, form: { search: 'Alpha' } });
    assert.deepEqual(
      r.body.events.map((e: { title: string }) => e.title),
      ['Alpha concert'],
      'the body parameters are honoured, not a cached answer',
    );
  });

  test('a real GET is still cached, and a query in another order shares its entry', async () => {
    const before = cache().size;
    const a = await call(list('per_page=30&page=1'));
    assert.equal(a.status, 200);
    assert.equal(cache().size, before + 1);
    const b = await call(`${s.root}evt/events/v1/events?page=1&per_page=30&end_date=2032-01-01&start_date=2031-01-01`);
    assert.deepEqual(b.body, a.body);
    assert.equal(cache().size, before + 1, 'the same parameters in another order are one entry');
  });
});

describe('D6: only a POST can be overridden; a GET never writes', () => {
  test('GET with _method=DELETE or the override header reads and changes nothing', async () => {
    const id = ids[0];
    const viaQuery = await call(`${s.root}evt/events/v1/events/${id}?_method=DELETE`, { auth: s.admin });
    assert.equal(viaQuery.status, 200);
    assert.equal(viaQuery.body.status, 'publish');
    const viaHeader = await call(`${s.root}evt/events/v1/events/${id}`, { auth: s.admin, headers: { 'x-http-method-override': 'DELETE' } });
    assert.equal(viaHeader.status, 200);
    assert.equal(viaHeader.body.status, 'publish');
    const head = await call(`${s.root}evt/events/v1/events/${id}?_method=DELETE`, { method: 'HEAD', auth: s.admin });
    assert.equal(head.status, 200);
    const stored = (await s.db.prepare('SELECT status FROM posts WHERE id = ?').get(id)) as { status: string };
    assert.equal(stored.status, 'publish', 'the event was not trashed');
  });

  test('GET with _method=POST and parameters does not create or update', async () => {
    const count = async () => ((await s.db.prepare("SELECT COUNT(*) AS n FROM posts WHERE type = 'event'").get()) as { n: number }).n;
    const n = await count();
    const r = await call(`${s.root}evt/events/v1/events?_method=POST&title=Sneaky&start_date=2031-05-01&end_date=2031-05-01`, { auth: s.admin });
    assert.equal(r.status, 200);
    assert.equal(await count(), n);
    const u = await call(`${s.root}evt/events/v1/events/${ids[1]}?title=Renamed`, { auth: s.admin, headers: { 'x-http-method-override': 'PATCH' } });
    assert.equal(u.status, 200);
    assert.equal(u.body.title, 'Beta lecture');
  });

  test('batch items are never overridden either', async () => {
    const id = ids[1];
    const r = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: s.admin,
      body: {
        requests: [
          {
            method: 'POST',
            path: `/evt/events/v1/events/${id}?_method=DELETE`,
            headers: { 'X-HTTP-Method-Override': 'DELETE' },
            body: { description: 'kept' },
          },
        ],
      },
    });
    assert.equal(r.status, 207);
    assert.equal(r.body.responses[0].status, 200);
    assert.equal(r.body.responses[0].body.status, 'publish');
  });

  test('a POST can still be overridden', async () => {
    const r = await call(`${s.root}evt/events/v1/events/${ids[1]}`, {
      method: 'POST',
      auth: s.admin,
      headers: { 'x-http-method-override': 'PATCH' },
      body: { title: 'Beta talk' },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.title, 'Beta talk');
  });
});
