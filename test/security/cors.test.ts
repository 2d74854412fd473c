import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';

/*
 * Finding 9 (CORS), CONTRACT D9: the original echoes any `Origin` with `Access-Control-Allow-Credentials: true`,
 * so any web page could make a signed-in browser's credentialed requests and read the answers. Credentials go
 * only to the origins in `EVT_CORS_ORIGINS`; any other origin gets `Access-Control-Allow-Origin: *` without them.
 */

const TRUSTED = 'https://door.example.org';
const EVIL = 'https://evil.example';

function assertNoCredentials(h: Headers, what: string): void {
  assert.equal(h.get('access-control-allow-origin'), '*', what);
  assert.equal(h.get('access-control-allow-credentials'), null, what);
  assert.match(h.get('vary') ?? '', /Origin/, what);
}

function assertCredentials(h: Headers, origin: string, what: string): void {
  assert.equal(h.get('access-control-allow-origin'), origin, what);
  assert.equal(h.get('access-control-allow-credentials'), 'true', what);
  assert.match(h.get('vary') ?? '', /Origin/, what);
}

describe('CORS with configured origins', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ EVT_CORS_ORIGINS: `${TRUSTED}, http://127.0.0.1:5173/` });
  });
  afterAll(() => s.close());

  test('an unlisted origin gets * without credentials, on reads, signed-in reads, errors and preflights', async () => {
    const answers = {
      'anonymous read': await call(`${s.root}evt/events/v1/events`, { headers: { origin: EVIL } }),
      'signed-in read': await call(`${s.root}evt/events/v1/events`, { auth: s.admin, headers: { origin: EVIL } }),
      'failed sign-in': await call(`${s.root}evt/events/v1/events`, {
        auth: `Basic ${Buffer.from('admin:wrong').toString('base64')}`,
        headers: { origin: EVIL },
      }),
      'unknown route': await call(`${s.root}evt/nowhere`, { headers: { origin: EVIL } }),
      write: await call(`${s.root}evt/events/v1/events`, {
        method: 'POST',
        auth: s.admin,
        headers: { origin: EVIL },
        body: { title: 'x', start_date: '2031-01-01', end_date: '2031-01-01' },
      }),
      preflight: await call(`${s.root}evt/events/v1/events`, {
        method: 'OPTIONS',
        headers: { origin: EVIL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      }),
      'null origin': await call(`${s.root}evt/events/v1/events`, { headers: { origin: 'null' } }),
      'look-alike origin': await call(`${s.root}evt/events/v1/events`, { headers: { origin: `${TRUSTED}.evil.example` } }),
    };
    for (const [what, r] of Object.entries(answers)) assertNoCredentials(r.headers, what);
    assert.match(answers.preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(answers.preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    // A preflight may be kept two hours (test/e2e/cors-preflight.test.ts: a door's next scan then needs none);
    // nothing else says how long to keep a preflight.
    assert.equal(answers.preflight.headers.get('access-control-max-age'), '7200');
    for (const [what, r] of Object.entries(answers)) if (what !== 'preflight') assert.equal(r.headers.get('access-control-max-age'), null, what);
  });

  test('a listed origin is echoed with credentials, preflight included', async () => {
    assertCredentials((await call(`${s.root}evt/events/v1/events`, { auth: s.admin, headers: { origin: TRUSTED } })).headers, TRUSTED, 'read');
    assertCredentials(
      (await call(`${s.root}evt/events/v1/events`, { method: 'OPTIONS', headers: { origin: TRUSTED, 'access-control-request-method': 'POST' } }))
        .headers,
      TRUSTED,
      'preflight',
    );
    // Listed with a trailing slash in the configuration; browsers send origins without one.
    assertCredentials(
      (await call(`${s.root}`, { headers: { origin: 'http://127.0.0.1:5173' } })).headers,
      'http://127.0.0.1:5173',
      'second listed origin',
    );
  });

  test('no Origin, no CORS headers (as the original)', async () => {
    const r = await call(`${s.root}evt/events/v1/events`);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
    assert.equal(r.headers.get('access-control-allow-credentials'), null);
  });
});

describe('CORS by default (no EVT_CORS_ORIGINS)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  test('no origin is given credentials', async () => {
    for (const origin of [EVIL, TRUSTED, `http://127.0.0.1:${new URL(s.base).port}`]) {
      assertNoCredentials((await call(`${s.root}evt/events/v1/events`, { auth: s.admin, headers: { origin } })).headers, origin);
      assertNoCredentials(
        (await call(`${s.root}evt/events/v1/events`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'DELETE' } })).headers,
        `${origin} preflight`,
      );
    }
  });
});
