import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

// The last events-namespace differences the compat harness found (issue 11): each answered as the original does.
let s: TestServer;
let root: string;
beforeAll(async () => {
  s = await startTestServer();
  root = `${s.root}evt/events/v1`;
});
afterAll(() => s.close());

describe('events namespace as the original', () => {
  test("a duplicate term create carries core's additional_data (the clashing term ID twice) after data", async () => {
    const first = await call(`${root}/tags`, { method: 'POST', auth: s.admin, body: { name: 'Dup' } });
    const dup = await call(`${root}/tags`, { method: 'POST', auth: s.admin, body: { name: 'Dup' } });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.code, 'term_exists');
    assert.deepEqual(Object.keys(dup.body), ['code', 'message', 'data', 'additional_data']);
    assert.deepEqual(dup.body.additional_data, [first.body.id, first.body.id]);
    assert.equal(dup.body.data.term_id, first.body.id);
    // Other errors keep the plain envelope.
    assert.deepEqual(Object.keys((await call(`${root}/tags/987654`)).body), ['code', 'message', 'data']);
  });

  test('context=embed on a single term leaves out count, description, parent and meta', async () => {
    const c = await call(`${root}/categories`, { method: 'POST', auth: s.admin, body: { name: 'Embedded', description: 'd' } });
    const view = await call(`${root}/categories/${c.body.id}`);
    assert.ok('description' in view.body && 'count' in view.body);
    const embed = await call(`${root}/categories/${c.body.id}?context=embed`);
    assert.equal(embed.status, 200);
    assert.deepEqual(Object.keys(embed.body), ['id', 'name', 'slug', 'taxonomy', 'url', 'urls', '_links']);
  });

  test('Allow on a venue or organizer ID that names no post is GET alone; another post type keeps the methods', async () => {
    for (const kind of ['venues', 'organizers']) {
      const unknown = await call(`${root}/${kind}/987654`, { auth: s.admin });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.headers.get('allow'), 'GET');
      const put = await call(`${root}/${kind}/987654`, { method: 'PUT', auth: s.admin, body: { venue: 'x', organizer: 'x' } });
      assert.equal(put.status, 400);
      assert.equal(put.headers.get('allow'), 'GET');
      const e = await call(`${root}/events`, {
        method: 'POST',
        auth: s.admin,
        body: { title: 'E', start_date: '2031-01-01', end_date: '2031-01-01' },
      });
      const other = await call(`${root}/${kind}/${e.body.id}`, { auth: s.admin });
      assert.equal(other.status, 400);
      assert.equal(other.headers.get('allow'), 'GET, DELETE, POST, PUT, PATCH');
    }
  });

  test('OPTIONS /events shows geoloc_lat and geoloc_lng with format double', async () => {
    const o = await call(`${root}/events`, { method: 'OPTIONS' });
    const get = o.body.endpoints.find((e: { methods: string[] }) => e.methods.includes('GET'));
    assert.equal(get.args.geoloc_lat.format, 'double');
    assert.equal(get.args.geoloc_lng.format, 'double');
  });
});
