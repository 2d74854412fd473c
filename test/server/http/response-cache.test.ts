import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { writeAsAnotherProcess } from '../../helpers/other-process.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const ev = () => `${s.root}evt/events/v1/events?per_page=50&start_date=2030-01-01&end_date=2040-01-01`;

describe('response cache', () => {
  test('a cached public read is dropped by the next write through the API', async () => {
    assert.equal((await call(ev())).body.total, 0);
    assert.equal((await call(ev())).body.total, 0);
    const c = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'New', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00' },
    });
    assert.equal(c.status, 201);
    assert.equal((await call(ev())).body.total, 1);
    await call(`${s.root}evt/events/v1/events/${c.body.id}`, { method: 'PATCH', auth: s.admin, body: { title: 'Renamed' } });
    assert.equal((await call(ev())).body.events[0].title, 'Renamed');
  });

  test('a write by another process (another connection) is seen at once', async () => {
    const before = (await call(ev())).body.total;
    await writeAsAnotherProcess(s, async (other) => {
      await other.prepare("UPDATE posts SET status = 'draft' WHERE type = 'event'").run();
    });
    assert.equal((await call(ev())).body.total, before - 1);
  });

  test('signed-in callers are never served a cached anonymous answer', async () => {
    const anon = await call(ev());
    const admin = await call(ev(), { auth: s.admin });
    assert.equal(anon.body.total, 0);
    assert.equal(admin.body.total, 1);
    assert.equal(admin.body.events[0].status, 'draft');
  });

  test('global parameters still apply to cached answers', async () => {
    await call(ev());
    const fields = await call(`${ev()}&_fields=total`);
    assert.deepEqual(fields.body, { total: 0 });
    const env = await call(`${ev()}&_envelope`);
    assert.equal(env.body.status, 200);
    assert.equal(env.body.headers['X-TEC-Total'], 0);
  });
});

describe('a cache hit is sent as stored', () => {
  test('the stored JSON of an archive and of a single read is not parsed again to answer a hit', async () => {
    const c = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'Parsed once', status: 'publish', start_date: '2032-01-01 10:00', end_date: '2032-01-01 11:00' },
    });
    assert.equal(c.status, 201);
    const urls = [ev(), `${s.root}evt/events/v1/events/${c.body.id}`];
    // The first read fills the cache; the second is a hit.
    const first = await Promise.all(urls.map((u) => fetch(u).then((r) => r.text())));
    const parse = JSON.parse;
    const parsed: string[] = [];
    JSON.parse = ((text: string, reviver?: (k: string, v: unknown) => unknown) => {
      if (typeof text === 'string' && first.includes(text)) parsed.push(text.slice(0, 40));
      return parse(text, reviver);
    }) as typeof JSON.parse;
    let again: string[];
    try {
      again = await Promise.all(urls.map((u) => fetch(u).then((r) => r.text())));
    } finally {
      JSON.parse = parse;
    }
    assert.deepEqual(again, first);
    assert.deepEqual(parsed, []);
  });
});
