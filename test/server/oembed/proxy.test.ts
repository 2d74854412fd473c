import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { DEFAULT_POLICY, pinnedTransport, type ResolvedAddress, type Transport } from '../../../server/net/guarded-fetch.ts';
import { isPublicAddress } from '../../../server/net/public-address.ts';
import { DEFAULT_PROVIDERS } from '../../../server/routes/oembed/providers.ts';
import { setProxyDeps } from '../../../server/routes/oembed/proxy-deps.ts';
import { createEvent } from '../site/fixtures.ts';

/*
 * The proxy never leaves 127.0.0.1 in these tests: name resolution is a fake table, and the transport wrapper
 * refuses (and records) any connection to another address. A "provider" is a local server reached under an
 * allow-listed name that the fake resolver maps to 127.0.0.1.
 */

let s: TestServer;
let provider: http.Server;
let port: number;
let hits: { path: string; host: string }[] = [];
let connections: { host: string; address: string }[] = [];
let lookups: string[] = [];
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;

function resolver(table: Record<string, string[]>) {
  return async (host: string): Promise<ResolvedAddress[]> => {
    lookups.push(host);
    const found = table[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** The real pinned transport, allowed to reach the local provider only. */
const loopbackOnly: Transport = (req) => {
  connections.push({ host: req.url.hostname, address: req.address.address });
  if (req.address.address !== '127.0.0.1') throw new Error(`test transport: refusing ${req.address.address}`);
  return pinnedTransport(req);
};

/** A transport that must never be used. */
const noConnection: Transport = async (req) => {
  connections.push({ host: req.url.hostname, address: req.address.address });
  throw new Error('no connection may be made');
};

const testProvider = () => ({
  name: 'Test video',
  patterns: [/^http:\/\/video\.test:\d+\/watch\//],
  endpoint: `http://video.test:${port}/oembed`,
  hosts: ['video.test', 'internal.test'],
});

/** Local provider reachable as video.test (and internal.test, mapped to a private address). */
function useLocalProvider(extra: Record<string, string[]> = {}) {
  setProxyDeps(s.app.state, {
    providers: [testProvider(), ...DEFAULT_PROVIDERS],
    policy: {
      resolve: resolver({ 'video.test': ['127.0.0.1'], 'internal.test': ['10.0.0.1'], ...extra }),
      // Exactly the test server's address is let through; everything else is judged for real.
      isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
      allowedPorts: [80, 443, port],
      transport: loopbackOnly,
      timeoutMs: 2000,
      maxBytes: 64 * 1024,
    },
  });
}

const proxy = (params: Record<string, string>, auth = s.admin) => call(`${s.root}oembed/1.0/proxy?${new URLSearchParams(params)}`, { auth });
const NOT_FOUND = { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } };

beforeAll(async () => {
  s = await startTestServer();
  provider = http.createServer((req, res) => {
    hits.push({ path: req.url ?? '', host: req.headers.host ?? '' });
    handler(req, res);
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  port = (provider.address() as AddressInfo).port;
});
afterAll(async () => {
  provider.closeAllConnections();
  await new Promise((r) => provider.close(r));
  await s.close();
});
afterEach(() => {
  hits = [];
  connections = [];
  lookups = [];
  setProxyDeps(s.app.state, { providers: DEFAULT_PROVIDERS, policy: { ...DEFAULT_POLICY, transport: noConnection } });
});

const json =
  (body: unknown, status = 200) =>
  (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

describe('GET /oembed/1.0/proxy: permission and input', () => {
  test("anonymous 401, a door user 403, with core's message", async () => {
    const url = { url: 'https://www.youtube.com/watch?v=x' };
    const anon = await call(`${s.root}oembed/1.0/proxy?${new URLSearchParams(url)}`);
    assert.equal(anon.status, 401);
    assert.deepEqual(anon.body, {
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to make proxied oEmbed requests.',
      data: { status: 401 },
    });
    const door = await proxy(url, await s.userAuth('door'));
    assert.equal(door.status, 403);
    assert.equal(door.body.message, 'Sorry, you are not allowed to make proxied oEmbed requests.');
  });

  test('bad input is 400 before the permission check', async () => {
    const missing = await call(`${s.root}oembed/1.0/proxy`);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const bad = await call(`${s.root}oembed/1.0/proxy?url=x&format=yaml&discover=maybe`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.deepEqual(Object.keys(bad.body.data.params).sort(), ['discover', 'format']);
  });

  test("this site's URLs answer like embed, for an organizer too", async () => {
    const ev = await createEvent(s, { title: 'Proxy <Night>' });
    const r = await proxy({ url: ev.url, maxwidth: '300' }, await s.userAuth('organizer'));
    const e = await call(`${s.root}oembed/1.0/embed?${new URLSearchParams({ url: ev.url, maxwidth: '300' })}`);
    assert.equal(r.status, 200);
    const strip = (b: { html: string }) => ({
      ...b,
      html: b.html.replace(/[A-Za-z0-9]{10}(?=")/g, 'S').replace(/secret=[A-Za-z0-9]{10}/, 'secret=S'),
    });
    assert.deepEqual(strip(r.body), strip(e.body));
    // format=xml on proxy stays JSON, as in core.
    const x = await proxy({ url: ev.url, format: 'xml' });
    assert.equal(x.headers.get('content-type'), 'application/json; charset=UTF-8');
    assert.equal(connections.length + lookups.length, 0);
  });

  test('a draft of this site is not proxied to anywhere: 404 with no lookup and no connection', async () => {
    const draft = await createEvent(s, { title: 'Hidden', status: 'draft' });
    const r = await proxy({ url: `${s.base}/?p=${draft.id}` });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, NOT_FOUND);
    assert.deepEqual([lookups, connections], [[], []]);
  });
});

describe('GET /oembed/1.0/proxy: SSRF', () => {
  for (const [label, addresses] of [
    ['127.0.0.1', ['127.0.0.1']],
    ['169.254.169.254 (cloud metadata)', ['169.254.169.254']],
    ['::1', ['::1']],
    ['10.0.0.1', ['10.0.0.1']],
    ['a public and a private address together', ['93.184.215.14', '192.168.1.10']],
    ['an IPv4-mapped loopback', ['::ffff:127.0.0.1']],
  ] as const) {
    test(`an allow-listed provider name resolving to ${label} is refused without connecting`, async () => {
      setProxyDeps(s.app.state, { policy: { resolve: resolver({ 'www.youtube.com': [...addresses] }), transport: noConnection } });
      const r = await proxy({ url: 'https://www.youtube.com/watch?v=abc' });
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, NOT_FOUND);
      assert.deepEqual(lookups, ['www.youtube.com']);
      assert.deepEqual(connections, []);
    });
  }

  test('addresses and hosts off the allow-list are refused before any lookup', async () => {
    setProxyDeps(s.app.state, { policy: { resolve: resolver({}), transport: noConnection } });
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:8080/',
      'http://[::1]/',
      'http://10.0.0.1/',
      'http://0x7f000001/',
      'file:///etc/passwd',
      'http://evil.example/watch',
    ]) {
      const r = await proxy({ url });
      assert.equal(r.status, 404, url);
      assert.deepEqual(r.body, NOT_FOUND, url);
    }
    assert.deepEqual([lookups, connections], [[], []]);
  });

  test('a redirect to a private address is refused at that hop', async () => {
    useLocalProvider();
    handler = (_req, res) => {
      res.writeHead(302, { location: `http://internal.test:${port}/oembed?x=1` });
      res.end();
    };
    const r = await proxy({ url: `http://video.test:${port}/watch/1` });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, NOT_FOUND);
    assert.deepEqual(connections, [{ host: 'video.test', address: '127.0.0.1' }]);
    assert.deepEqual(lookups, ['video.test', 'internal.test']);
  });

  test('a redirect to an IP literal or a host off the allow-list is refused', async () => {
    useLocalProvider();
    for (const location of ['http://169.254.169.254/latest/meta-data/', 'http://evil.example/', `http://[::1]:${port}/`]) {
      connections = [];
      handler = (_req, res) => {
        res.writeHead(301, { location });
        res.end();
      };
      const r = await proxy({ url: `http://video.test:${port}/watch/${encodeURIComponent(location)}` });
      assert.equal(r.status, 404, location);
      assert.deepEqual(connections, [{ host: 'video.test', address: '127.0.0.1' }], location);
    }
  });

  test('a port outside the allowed ports is refused', async () => {
    useLocalProvider();
    setProxyDeps(s.app.state, { policy: { allowedPorts: [80, 443] } });
    handler = json({ type: 'link', title: 'x' });
    const r = await proxy({ url: `http://video.test:${port}/watch/1` });
    assert.equal(r.status, 404);
    assert.deepEqual(connections, []);
  });
});

describe('GET /oembed/1.0/proxy: allow-listed providers', () => {
  test('a name is resolved once per hop and the connection goes to that address (no DNS rebinding)', async () => {
    useLocalProvider();
    let answers = 0;
    // First answer passes the check; any later lookup would point inside the network.
    setProxyDeps(s.app.state, {
      policy: {
        resolve: async (host) => {
          lookups.push(host);
          return [{ address: answers++ === 0 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
        },
      },
    });
    handler = json({ type: 'link', title: 'Pinned' });
    const r = await proxy({ url: `http://video.test:${port}/watch/pinned` });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(lookups, ['video.test']);
    assert.deepEqual(connections, [{ host: 'video.test', address: '127.0.0.1' }]);
  });

  test('asks the provider for JSON at the vetted address and rebuilds its HTML safely', async () => {
    useLocalProvider();
    handler = json({
      version: '1.0',
      type: 'video',
      title: 'A <clip>',
      provider_name: 'Test video',
      author_url: 'javascript:alert(1)',
      width: 640,
      height: 360,
      html: '<iframe src="https://player.video.test/embed/1?a=1&amp;b=2" width="640" height="360" onload="alert(1)" allowfullscreen></iframe><script>alert(1)</script>',
      evil: 'dropped',
    });
    const r = await proxy({ url: `http://video.test:${port}/watch/1`, maxwidth: '480', maxheight: '270' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      version: '1.0',
      type: 'video',
      title: 'A <clip>',
      provider_name: 'Test video',
      width: 640,
      height: 360,
      html: '<iframe src="https://player.video.test/embed/1?a=1&amp;b=2" width="640" height="360" allowfullscreen></iframe>',
    });
    assert.equal(hits.length, 1);
    const asked = new URL(hits[0].path, 'http://x');
    assert.equal(asked.pathname, '/oembed');
    assert.deepEqual(Object.fromEntries(asked.searchParams), {
      maxwidth: '480',
      maxheight: '270',
      url: `http://video.test:${port}/watch/1`,
      dnt: '1',
      format: 'json',
    });
    // Connected to the vetted address while the Host header still names the provider (DNS pinning).
    assert.equal(hits[0].host, `video.test:${port}`);
    assert.deepEqual(connections, [{ host: 'video.test', address: '127.0.0.1' }]);
  });

  test('answers are cached per argument set for a day', async () => {
    useLocalProvider();
    handler = json({ type: 'link', title: 'Cached' });
    const url = `http://video.test:${port}/watch/cache`;
    assert.equal((await proxy({ url })).body.html, `<a href="${url}">Cached</a>`);
    handler = json({ type: 'link', title: 'Changed' });
    assert.equal((await proxy({ url })).body.html, `<a href="${url}">Cached</a>`);
    assert.equal(hits.length, 1);
    assert.equal((await proxy({ url, maxwidth: '320' })).body.title, 'Changed');
    assert.equal(hits.length, 2);
    const row = (await s.db.prepare("SELECT expires, datetime('now', '+1 day') AS day FROM oembed_cache LIMIT 1").get()) as {
      expires: string;
      day: string;
    };
    assert.ok(Math.abs(Date.parse(`${row.expires}Z`) - Date.parse(`${row.day}Z`)) < 120_000);
  });

  test('provider failures are 404: error status, bad JSON, unsafe markup, oversized or slow answers', async () => {
    useLocalProvider();
    const cases: [string, (req: http.IncomingMessage, res: http.ServerResponse) => void][] = [
      ['status', json({ type: 'link', title: 'x' }, 500)],
      ['json', (_q, res) => res.end('{nope')],
      ['script only', json({ type: 'rich', html: '<script>alert(1)</script>' })],
      ['javascript iframe', json({ type: 'video', html: '<iframe src="javascript:alert(1)"></iframe>' })],
      ['photo without url', json({ type: 'photo', title: 'x' })],
      ['oversized', (_q, res) => res.end(JSON.stringify({ type: 'link', title: 'x'.repeat(100_000) }))],
      [
        'oversized without a length',
        (_q, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          for (let i = 0; i < 100; i++) res.write('x'.repeat(1024));
          res.end();
        },
      ],
      ['slow', () => undefined],
    ];
    setProxyDeps(s.app.state, { policy: { timeoutMs: 300 } });
    const cachedBefore = ((await s.db.prepare('SELECT COUNT(*) AS n FROM oembed_cache').get()) as { n: number }).n;
    for (const [label, h] of cases) {
      handler = h;
      const r = await proxy({ url: `http://video.test:${port}/watch/${label}` });
      assert.equal(r.status, 404, label);
      assert.deepEqual(r.body, NOT_FOUND, label);
    }
    // Failures are not cached.
    assert.equal(((await s.db.prepare('SELECT COUNT(*) AS n FROM oembed_cache').get()) as { n: number }).n, cachedBefore);
  });

  test("discover follows the page's oEmbed link on an allow-listed host; discover=false does not", async () => {
    useLocalProvider();
    handler = (req, res) => {
      if (req.url!.startsWith('/page')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<html><head><link rel="alternate" type="application/json+oembed" href="/discovered?id=7&amp;x=y"></head></html>`);
      } else json({ type: 'photo', url: 'https://img.video.test/7.jpg', title: 'Seven', width: 100, height: 50 })(req, res);
    };
    const page = `http://video.test:${port}/page/7`;
    const off = await proxy({ url: page, discover: 'false' });
    assert.equal(off.status, 404);
    assert.equal(hits.length, 0);
    const r = await proxy({ url: page });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.html, `<a href="${page}"><img src="https://img.video.test/7.jpg" alt="Seven" width="100" height="50" /></a>`);
    assert.deepEqual(
      hits.map((h) => new URL(h.path, 'http://x').pathname),
      ['/page/7', '/discovered'],
    );
    assert.equal(new URL(hits[1].path, 'http://x').searchParams.get('id'), '7');
  });

  test('a discovered endpoint off the allow-list is never contacted', async () => {
    useLocalProvider({ 'evil.example': ['127.0.0.1'] });
    handler = (_req, res) => res.end(`<link type="application/json+oembed" href="http://evil.example:${port}/steal">`);
    const r = await proxy({ url: `http://video.test:${port}/page/evil` });
    assert.equal(r.status, 404);
    assert.deepEqual(
      hits.map((h) => h.path),
      ['/page/evil'],
    );
    assert.ok(!lookups.includes('evil.example'));
  });
});
