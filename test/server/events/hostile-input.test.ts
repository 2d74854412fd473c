import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const junk = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant('99999999999999999999999999'),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.integer()), { maxKeys: 3 }),
);
const fields = [
  'title',
  'start_date',
  'end_date',
  'description',
  'venue',
  'organizer',
  'categories',
  'tags',
  'cost',
  'image',
  'website',
  'status',
  'author',
  'all_day',
  'timezone',
  'slug',
  'password',
  'featured',
];
const queryKeys = [
  'page',
  'per_page',
  'start_date',
  'end_date',
  'categories',
  'tags',
  'venue',
  'organizer',
  'include',
  'status',
  'geoloc_lat',
  'geoloc_lng',
  'search',
  'featured',
  'post_parent',
  'strict_dates',
  'hide_empty',
  'orderby',
  'event',
  'has_events',
];

function isEnvelope(status: number, body: unknown): boolean {
  const b = body as { code?: unknown; message?: unknown; data?: { status?: unknown } };
  return typeof b?.code === 'string' && typeof b.message === 'string' && b.data?.status === status;
}

describe('hostile input on the events namespace', () => {
  test('random write bodies: never a 5xx, every error in the envelope, failures leave nothing behind', async () => {
    const countPosts = async () => ((await s.db.prepare('SELECT COUNT(*) AS n FROM posts').get()) as { n: number }).n;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...fields), junk, { maxKeys: 6 }),
        fc.constantFrom('events', 'venues', 'organizers', 'categories', 'tags'),
        async (body, kind) => {
          const before = await countPosts();
          const r = await call(`${s.root}evt/events/v1/${kind}`, { method: 'POST', auth: s.admin, body });
          assert.ok(r.status < 500, `${r.status} ${r.text}`);
          if (r.status >= 400) {
            assert.ok(isEnvelope(r.status, r.body), r.text);
            assert.equal(await countPosts(), before);
          }
        },
      ),
      { numRuns: 150, seed: 20261122 },
    );
  });

  test('random query strings on every list route: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(...queryKeys),
          fc.oneof(fc.string(), fc.integer().map(String), fc.constant('-1'), fc.constant('1e9'), fc.constant('a,b,,1')),
          { maxKeys: 5 },
        ),
        fc.constantFrom('events', 'venues', 'organizers', 'categories', 'tags'),
        async (q, kind) => {
          const r = await call(`${s.root}evt/events/v1/${kind}?${new URLSearchParams(q).toString()}`);
          assert.ok(r.status < 500, `${r.status} ${r.text}`);
          if (r.status >= 400) assert.ok(isEnvelope(r.status, r.body), r.text);
        },
      ),
      { numRuns: 150, seed: 7 },
    );
  });

  test('garbage bodies and odd content types', async () => {
    for (const [body, type] of [
      ['\u0000\u0001', 'application/json'],
      ['[1,2,3]', 'application/json'],
      ['null', 'application/json'],
      ['a=1&a[b]=2&a[]=3', 'application/x-www-form-urlencoded'],
      ['<xml/>', 'text/xml'],
    ]) {
      const r = await call(`${s.root}evt/events/v1/events`, { method: 'POST', auth: s.admin, body, headers: { 'content-type': type } });
      assert.ok(r.status >= 400 && r.status < 500, `${type} ${body}: ${r.status}`);
      assert.ok(isEnvelope(r.status, r.body));
    }
  });
});
