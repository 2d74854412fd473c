import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Issue 21, findings 7 and 8 (CONTRACT section 3): an ID-list parameter holds at most 1,000 IDs and a search text
 * at most 1,000 characters; past them the answer is 400 rest_invalid_param, never a 5xx, and nothing is searched.
 * On main 738fe83 (checked with the shared/ and server/ changes stashed) 1,001 and 330,000 IDs were taken, and a
 * 60,000-character search answered 500 rest_internal_error on SQLite (`LIKE or GLOB pattern too complex`).
 */

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');

describe('finding 7: ID lists are bounded', () => {
  test('1,000 IDs are taken; 1,001 are 400 rest_invalid_param, in the query and through a POST method override', async () => {
    const events = `${s.root}evt/events/v1/events`;
    assert.equal((await call(`${events}?include=${ids(1000)}`)).status, 200);
    const r = await call(`${events}?include=${ids(1001)}`);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'rest_invalid_param');
    assert.ok(r.body.data.params.include, JSON.stringify(r.body));
    const big = await call(events, { method: 'POST', headers: { 'x-http-method-override': 'GET' }, form: { include: '7 '.repeat(330_000) } });
    assert.equal(big.status, 400);
    assert.equal(big.body.code, 'rest_invalid_param');
    for (const [route, param] of [
      ['evt/tickets/v1/attendees', 'include'],
      ['evt/tickets/v1/tickets', 'include'],
      ['evt/events/v1/events', 'venue'],
      ['evt/events/v1/categories', 'include'],
      ['evt/tickets/v1/attendees', 'post_status'],
    ]) {
      const x = await call(`${s.root}${route}`, {
        method: 'POST',
        headers: { 'x-http-method-override': 'GET' },
        form: { [param]: ids(5000) },
        auth: s.admin,
      });
      assert.equal(x.status, 400, `${route} ${param}`);
      assert.equal(x.body.code, 'rest_invalid_param', `${route} ${param}`);
    }
  });
});

describe('finding 8: search texts are bounded', () => {
  test('a 60,000-character search is 400 rest_invalid_param everywhere; 1,000 characters are searched', async () => {
    const long = 'a%_'.repeat(20_000);
    const short = 'a%_'.repeat(333);
    const cases: [string, string][] = [
      ['evt/events/v1/events', 'search'],
      ['evt/events/v1/venues', 'search'],
      ['evt/events/v1/organizers', 'search'],
      ['evt/events/v1/categories', 'search'],
      ['evt/events/v1/tags', 'search'],
      ['evt/tickets/v1/tickets', 'search'],
      ['evt/tickets/v1/attendees', 'search'],
      ['evt/tickets/v1/attendees', 'name'],
      ['evt/tickets/v1/attendees', 'email'],
    ];
    for (const [route, param] of cases) {
      for (const auth of [undefined, s.admin]) {
        const r = await call(`${s.root}${route}`, { method: 'POST', headers: { 'x-http-method-override': 'GET' }, form: { [param]: long }, auth });
        assert.equal(r.status, 400, `${route} ${param} ${r.text.slice(0, 200)}`);
        assert.equal(r.body.code, 'rest_invalid_param', `${route} ${param}`);
        const ok = await call(`${s.root}${route}?${param}=${encodeURIComponent(short)}`, { auth });
        assert.ok(ok.status < 500, `${route} ${param}: ${ok.status}`);
      }
    }
  });
});
