import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const noRoute = { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } };

describe('routing', () => {
  test('unknown route is rest_no_route 404', async () => {
    const r = await call(`${s.root}evt/events/v1/nothing-here`);
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, noRoute);
  });

  test('wrong method on an existing route is 404 rest_no_route, never 405', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, { method: 'DELETE', auth: s.admin });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, noRoute);
  });

  test('Allow only when a handler was matched and the caller may use one of its methods', async () => {
    // No handler for the method (core's rest_send_allow_header runs after a match only).
    for (const [method, path] of [
      ['DELETE', 'evt/events/v1/events'],
      ['GET', 'batch/v1'],
      ['HEAD', 'batch/v1'],
    ] as const) {
      const r = await call(`${s.root}${path}`, { method, auth: s.admin });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.headers.get('allow'), null, `${method} ${path}`);
    }
    // A matched handler the caller may not use, and no other method it may: no empty Allow.
    const proxy = await call(`${s.root}oembed/1.0/proxy?url=${encodeURIComponent(`${s.base}/event/x/`)}`);
    assert.equal(proxy.status, 401);
    assert.equal(proxy.headers.get('allow'), null);
    // A matched handler that refused the request still lists the methods.
    const refused = await call(`${s.root}evt/events/v1/events`, { method: 'POST', body: {} });
    assert.equal(refused.headers.get('allow'), 'GET');
    assert.equal((await call(`${s.root}batch/v1`, { method: 'OPTIONS' })).headers.get('allow'), 'POST');
  });

  test('non-digit IDs do not match the ID route', async () => {
    const r = await call(`${s.root}evt/events/v1/events/abc`);
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'rest_no_route');
  });

  test('trailing slash and case are ignored', async () => {
    const a = await call(`${s.root}evt/events/v1/events/`);
    const b = await call(`${s.root}EVT/Events/v1/EVENTS`);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.deepEqual(a.body.events, b.body.events);
  });

  test('the same routes answer at /{lang}/wp-json/, /wp-json/ and ?rest_route=', async () => {
    for (const url of [
      `${s.base}/en/wp-json/evt/events/v1/events`,
      `${s.base}/et/wp-json/evt/events/v1/events`,
      `${s.base}/?rest_route=/evt/events/v1/events`,
      `${s.base}/index.php?rest_route=/evt/events/v1/events`,
    ]) {
      const r = await call(url);
      assert.equal(r.status, 200, url);
      assert.ok(Array.isArray(r.body.events), url);
    }
  });

  test('URLs in answers keep the request language segment', async () => {
    const r = await call(`${s.base}/et/wp-json/evt/events/v1/events`);
    assert.match(r.body.rest_url, /\/et\/wp-json\/evt\/events\/v1\/events\//);
    assert.equal(r.headers.get('link'), `<${s.base}/et/wp-json/>; rel="https://api.w.org/"`);
  });

  test('an unknown language segment is not a REST URL', async () => {
    const r = await call(`${s.base}/fr/wp-json/evt/events/v1/events`);
    assert.equal(r.status, 404);
    assert.equal(r.body, undefined);
  });

  test('HEAD answers like GET without a body', async () => {
    const res = await fetch(`${s.root}evt/events/v1/events`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-tec-total'), '0');
    assert.equal(await res.text(), '');
  });

  test('OPTIONS returns the route data with Allow', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, { method: 'OPTIONS' });
    assert.equal(r.status, 200);
    assert.equal(r.body.namespace, 'evt/events/v1');
    assert.deepEqual(r.body.methods, ['GET', 'POST']);
    assert.equal(r.headers.get('allow'), 'GET');
    const none = await call(`${s.root}evt/nowhere`, { method: 'OPTIONS' });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body, []);
  });
});

describe('common headers', () => {
  test('every REST answer carries the WordPress headers', async () => {
    const r = await call(`${s.root}evt/events/v1/events`);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=UTF-8');
    assert.equal(r.headers.get('x-robots-tag'), 'noindex');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.match(r.headers.get('access-control-expose-headers')!, /X-WP-Total, X-WP-TotalPages, Link/);
    assert.match(r.headers.get('access-control-allow-headers')!, /Authorization, X-WP-Nonce/);
    assert.equal(r.headers.get('cache-control'), null);
  });

  test('signed-in answers are not cacheable; Allow lists what the caller may do', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, { auth: s.admin });
    assert.match(r.headers.get('cache-control')!, /no-cache/);
    assert.equal(r.headers.get('allow'), 'GET, POST');
  });

  test('CORS: an origin not in EVT_CORS_ORIGINS gets * without credentials (D9; test/security/cors.test.ts)', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, { headers: { origin: 'app://kiosk' } });
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.equal(r.headers.get('access-control-allow-credentials'), null);
    assert.equal(r.headers.get('vary'), 'Origin');
  });
});

describe('global parameters', () => {
  test('_envelope wraps status and headers with HTTP 200', async () => {
    const r = await call(`${s.root}evt/events/v1/events/424242?_envelope`);
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 404);
    assert.equal(r.body.body.code, 'rest-event-not-found');
    assert.deepEqual(r.body.headers, { Allow: 'GET' });
    const ok = await call(`${s.root}evt/events/v1/events?_envelope=1`);
    assert.equal(ok.body.status, 200);
  });

  test('_envelope: the handler headers and Allow go inside (totals as numbers), none on the HTTP answer', async () => {
    const r = await call(`${s.root}evt/events/v1/categories?_envelope=1&hide_empty=false`, { auth: s.admin });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.headers, { 'X-TEC-Total': 0, 'X-TEC-TotalPages': 0, Allow: 'GET, POST' });
    assert.deepEqual(Object.keys(r.body.headers), ['X-TEC-Total', 'X-TEC-TotalPages', 'Allow']);
    for (const h of ['allow', 'x-tec-total', 'x-tec-totalpages']) assert.equal(r.headers.get(h), null, h);
    assert.match(r.headers.get('link') ?? '', /rel="https:\/\/api\.w\.org\/"/);
    const created = await call(`${s.root}evt/events/v1/tags?_envelope=1`, { method: 'POST', auth: s.admin, body: { name: 'Enveloped' } });
    assert.equal(created.body.status, 201);
    assert.equal(created.body.headers.Location, `${s.root}evt/events/v1/tags/${created.body.body.id}`);
    assert.equal(created.headers.get('location'), null);
    // No handler, no headers: PHP's empty array.
    const none = await call(`${s.root}evt/events/v1/nosuch?_envelope=1`);
    assert.equal(none.body.status, 404);
    assert.deepEqual(none.body.headers, []);
  });

  test('_fields keeps only the named keys, dotted for nested ones, and never filters errors', async () => {
    const r = await call(`${s.root}evt/events/v1/events?_fields=total,rest_url`);
    assert.deepEqual(Object.keys(r.body).sort(), ['rest_url', 'total']);
    const err = await call(`${s.root}evt/events/v1/events/424242?_fields=id`);
    assert.equal(err.body.code, 'rest-event-not-found');
  });

  test('_fields as WordPress 7.0: a sub-key of a nested list keeps nothing of it, an unknown key leaves []', async () => {
    const made = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: s.admin,
      body: {
        title: 'Fields',
        status: 'publish',
        start_date: '2027-06-01 10:00:00',
        end_date: '2027-06-01 11:00:00',
        venue: { venue: 'Fields hall' },
      },
    });
    assert.equal(made.status, 201);
    try {
      const whole = await call(`${s.root}evt/events/v1/events?_fields=events,total`);
      assert.ok(
        whole.body.total >= 1 && whole.body.events.some((e: { id: number }) => e.id === made.body.id),
        JSON.stringify(whole.body).slice(0, 300),
      );
      const nested = await call(`${s.root}evt/events/v1/events?_fields=events.id,total`);
      assert.deepEqual(nested.body, { events: [], total: whole.body.total });
      const unknown = await call(`${s.root}evt/events/v1/events/${made.body.id}?_fields=nosuch`);
      assert.equal(unknown.text, '[]');
      const sub = await call(`${s.root}evt/events/v1/events/${made.body.id}?_fields=id,venue.venue,venue.nosuch`);
      assert.deepEqual(sub.body, { id: made.body.id, venue: { venue: 'Fields hall' } });
      const emptied = await call(`${s.root}evt/events/v1/events/${made.body.id}?_fields=id,venue.nosuch`);
      assert.equal(emptied.text, `{"id":${made.body.id},"venue":[]}`);
    } finally {
      // The other tests here expect no upcoming events.
      assert.equal((await call(`${s.root}evt/events/v1/events/${made.body.id}`, { method: 'DELETE', auth: s.admin })).status, 200);
    }
  });

  test('_jsonp wraps the JSON; a bad callback is rest_callback_invalid', async () => {
    const r = await call(`${s.root}evt/events/v1/events?_jsonp=my.cb_1`);
    assert.equal(r.headers.get('content-type'), 'application/javascript; charset=UTF-8');
    assert.match(r.text, /^\/\*\*\/my\.cb_1\(\{"events":\[\]/);
    const bad = await call(`${s.root}evt/events/v1/events?_jsonp=alert(1)`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.' });
    // As core, with the headers it sends before checking the callback.
    assert.equal(bad.headers.get('content-type'), 'application/javascript; charset=UTF-8');
    assert.equal(bad.headers.get('link'), `<${s.root}>; rel="https://api.w.org/"`);
  });

  test('_pretty indents with four spaces', async () => {
    const r = await call(`${s.root}evt/events/v1/events?_pretty`);
    assert.match(r.text, /^\{\n {4}"events": \[\],/);
  });

  test('_method and X-HTTP-Method-Override change the method used for matching', async () => {
    const viaQuery = await call(`${s.root}evt/events/v1/events?_method=POST`, {
      auth: s.admin,
      method: 'POST',
      body: { title: 'Via override', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' },
    });
    assert.equal(viaQuery.status, 201);
    const del = await call(`${s.root}evt/events/v1/events/${viaQuery.body.id}`, {
      method: 'POST',
      auth: s.admin,
      headers: { 'x-http-method-override': 'DELETE' },
    });
    assert.equal(del.status, 200);
    assert.equal(del.body.status, 'trash');
  });
});

describe('bodies', () => {
  test('malformed JSON is rest_invalid_json after routing', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, { method: 'POST', auth: s.admin, body: '{"title": ' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400, json_error_code: 4, json_error_message: 'Syntax error' },
    });
    const unknown = await call(`${s.root}evt/nowhere`, { method: 'POST', body: '{' });
    assert.equal(unknown.status, 404);
  });

  test('a body over 1 MiB is 413 rest_payload_too_large', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: s.admin,
      body: JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10) }),
    });
    assert.equal(r.status, 413);
    assert.equal(r.body.code, 'rest_payload_too_large');
    assert.equal(r.body.data.status, 413);
  });

  test('a text/plain body carries no parameters (core parses only urlencoded and untyped bodies as forms)', async () => {
    const r = await call(`${s.root}evt/events/v1/categories`, {
      method: 'POST',
      auth: s.admin,
      headers: { 'content-type': 'text/plain' },
      body: 'name=Plain',
    });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): name', data: { status: 400, params: ['name'] } });
    const untyped = await fetch(`${s.root}evt/events/v1/categories`, {
      method: 'POST',
      headers: { authorization: s.admin, 'content-type': '' },
      body: 'name=Untyped',
    });
    assert.equal(untyped.status, 201);
  });

  test('form-encoded bodies work like JSON', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: s.admin,
      form: { title: 'Form event', start_date: '2030-02-01 10:00:00', end_date: '2030-02-01 12:00:00', 'categories[]': 'Forms' },
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.title, 'Form event');
    assert.equal(r.body.categories[0].name, 'Forms');
  });
});

describe('authentication', () => {
  test('wrong application password and unknown login get one answer, 401 incorrect_password (D5)', async () => {
    const wrong = await call(`${s.root}evt/events/v1/events`, { auth: `Basic ${Buffer.from('admin:nope nope nope').toString('base64')}` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'incorrect_password');
    const unknown = await call(`${s.root}evt/events/v1/events`, { auth: `Basic ${Buffer.from('ghost:x').toString('base64')}` });
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown.body, wrong.body);
  });

  test('spaces inside an application password are ignored', async () => {
    const raw = Buffer.from(s.admin.slice(6), 'base64').toString();
    const [login, pass] = [raw.slice(0, raw.indexOf(':')), raw.slice(raw.indexOf(':') + 1)];
    const squashed = `Basic ${Buffer.from(`${login}:${pass.replace(/ /g, '')}`).toString('base64')}`;
    const r = await call(`${s.root}evt/events/v1/events`, {
      auth: squashed,
      method: 'POST',
      body: { title: 'Spaces', start_date: '2030-01-01', end_date: '2030-01-01' },
    });
    assert.equal(r.status, 201);
  });

  test('a revoked or unknown Bearer key is 401 rest_forbidden; a door key may not create events (403)', async () => {
    const { key, id } = await s.apiKey('Door A');
    const ok = await call(`${s.root}evt/events/v1/events`, {
      auth: `Bearer ${key}`,
      method: 'POST',
      body: { title: 'No', start_date: '2030-01-01', end_date: '2030-01-01' },
    });
    assert.equal(ok.status, 403);
    assert.equal(ok.body.code, 'rest_forbidden');
    await s.db.prepare("UPDATE api_keys SET revoked_at = datetime('now') WHERE id = ?").run(id);
    const revoked = await call(`${s.root}evt/events/v1/events`, { auth: `Bearer ${key}` });
    assert.equal(revoked.status, 401);
    assert.equal(revoked.body.code, 'rest_forbidden');
    const viaParam = await call(`${s.root}evt/events/v1/events?api_key=${encodeURIComponent(key)}`);
    assert.equal(viaParam.status, 401);
    const unknown = await call(`${s.root}evt/events/v1/events`, { auth: 'Bearer dsk_999_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(unknown.status, 401);
  });

  test('anonymous writes are 401, signed-in without the capability 403, and parameter errors come first', async () => {
    const anon = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      body: { title: 'x', start_date: '2030-01-01', end_date: '2030-01-01' },
    });
    assert.equal(anon.status, 401);
    assert.deepEqual(anon.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
    const door = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: await s.userAuth('door'),
      body: { title: 'x', start_date: '2030-01-01', end_date: '2030-01-01' },
    });
    assert.equal(door.status, 403);
    const missing = await call(`${s.root}evt/events/v1/events`, { method: 'POST', body: {} });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, {
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): title, start_date, end_date',
      data: { status: 400, params: ['title', 'start_date', 'end_date'] },
    });
  });
});
