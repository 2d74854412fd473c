import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

/** `batch/v1` item envelopes and the batch route's data as WordPress core writes them (issue 11). */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const batch = (body: unknown, auth?: string) => call(`${s.root}batch/v1`, { method: 'POST', auth, body });

describe('batch/v1 item envelopes', () => {
  test("a matched route's item carries its Allow for the caller; an unknown route's item has headers []", async () => {
    const r = await batch(
      {
        requests: [
          { path: '/evt/events/v1/tags', body: { name: 'Batch wire' } },
          { path: '/nosuch/v1/thing', body: {} },
          { method: 'DELETE', path: '/evt/events/v1/tags' },
          { path: '/evt/events/v1/tags', body: {} },
        ],
      },
      s.admin,
    );
    assert.equal(r.status, 207);
    const [made, unknown, method, invalid] = r.body.responses;
    assert.equal(made.status, 201);
    assert.deepEqual(made.headers, { Location: `${s.root}evt/events/v1/tags/${made.body.id}`, Allow: 'GET, POST' });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.headers, []);
    // No handler takes the method: core runs no rest_post_dispatch for it.
    assert.equal(method.status, 404);
    assert.deepEqual(method.headers, []);
    // A handler was matched and refused the parameters: still its Allow.
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.headers, { Allow: 'GET, POST' });
  });

  test('an anonymous caller gets the Allow of what it may do', async () => {
    const r = await batch({ requests: [{ path: '/evt/events/v1/tags', body: { name: 'Anon' } }] });
    assert.equal(r.body.responses[0].status, 401);
    assert.deepEqual(r.body.responses[0].headers, { Allow: 'GET' });
  });

  test('require-all-validate failing: the failures are bare errors with headers [], the rest null', async () => {
    const r = await batch(
      {
        validation: 'require-all-validate',
        requests: [
          { path: '/evt/events/v1/tags', body: { name: 'Kept out' } },
          { path: '/evt/events/v1/tags', body: {} },
        ],
      },
      s.admin,
    );
    assert.equal(r.status, 207);
    assert.equal(r.body.failed, 'validation');
    assert.equal(r.body.responses[0], null);
    assert.equal(r.body.responses[1].status, 400);
    assert.deepEqual(r.body.responses[1].headers, []);
  });

  test('_envelope on the batch: its Allow inside, not on the HTTP answer', async () => {
    const r = await call(`${s.root}batch/v1?_envelope=1`, {
      method: 'POST',
      auth: s.admin,
      body: { requests: [{ path: '/evt/events/v1/tags', body: { name: 'Env batch' } }] },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 207);
    assert.deepEqual(r.body.headers, { Allow: 'POST' });
    assert.equal(r.headers.get('allow'), null);
  });
});

describe('batch/v1 route data', () => {
  test("the requests item schema is core's (path required, body and headers with properties [])", async () => {
    const expected = {
      type: 'object',
      properties: {
        method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
        path: { type: 'string', required: true },
        body: { type: 'object', properties: [], additionalProperties: true },
        headers: { type: 'object', properties: [], additionalProperties: { type: ['string', 'array'], items: { type: 'string' } } },
      },
    };
    const idx = await call(s.root);
    assert.deepEqual(idx.body.routes['/batch/v1'].endpoints[0].args.requests.items, expected);
    const opt = await call(`${s.root}batch/v1`, { method: 'OPTIONS' });
    assert.deepEqual(opt.body.endpoints[0].args.requests.items, expected);
    assert.equal(opt.body.endpoints[0].args.requests.maxItems, 25);
  });
});
