import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, HEADLESS_ARGS } from './browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { cacheMode } from '../../renderer/sync/api-client.ts';

/*
 * A kiosk on its own origin (the Electron shell's app://) sends a CORS preflight before each signed request. Chromium
 * keeps a preflight's answer 5 s unless the server says longer, so a door scanning a guest every few seconds would
 * pay two round trips per online check-in. The server says two hours (Access-Control-Max-Age): in real Chromium,
 * a second signed request 6 s after the first goes without a preflight. Without the header this test sees two.
 * Chromium reads its preflight cache only for a request in the default cache mode (`no-store`, which the kiosk's
 * client sent with every request, skips it): the kiosk's writes (its check-ins' batch) go in the mode its client
 * picks for them (renderer/sync/api-client.ts cacheMode); with `no-store` this test sees a preflight per batch.
 */

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('CORS preflights in Chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let proxy: http.Server;
  let page: http.Server;
  let proxyBase = '';
  let pageBase = '';
  /** The method and path of each request that reached the server, in order. */
  const seen: string[] = [];

  beforeAll(async () => {
    s = await startTestServer();
    const target = new URL(s.base);
    const agent = new http.Agent({ keepAlive: true });
    // In front of the server, to see every request the browser makes, preflights included.
    proxy = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url?.split('?')[0]}`);
      const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    proxyBase = `http://127.0.0.1:${await listen(proxy)}`;
    // The kiosk's own origin: another port is another origin.
    page = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>door</title>');
    });
    pageBase = `http://127.0.0.1:${await listen(page)}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: HEADLESS_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    proxy?.closeAllConnections();
    proxy?.close();
    page?.close();
    await s?.close();
  });

  test("a signed read and the kiosk's batch, each sent again 6 s later, reuse their preflights (Access-Control-Max-Age), and all are answered", async () => {
    const { key } = await s.apiKey('Door 1');
    const tab = await browser.newPage();
    await tab.goto(`${pageBase}/`);
    const send = (url: string, method: 'GET' | 'POST', cache: RequestCache) =>
      tab.evaluate(
        async ([u, k, m, c]) => {
          const r = await fetch(u, {
            method: m,
            headers: { Authorization: `Bearer ${k}`, ...(m === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
            body: m === 'POST' ? JSON.stringify({ requests: [{ method: 'POST', path: '/evt/events/v1/events', body: {} }] }) : undefined,
            cache: c,
          });
          return { status: r.status, body: await r.json() };
        },
        [url, key, method, cache] as const,
      );
    const read = `${proxyBase}/wp-json/evt/events/v1/events`;
    const batch = `${proxyBase}/wp-json/batch/v1`;
    const both = async () => {
      const r = await send(read, 'GET', 'default');
      assert.equal(r.status, 200);
      assert.ok(Array.isArray(r.body.events));
      const b = await send(batch, 'POST', cacheMode('POST'));
      // Answered; its one item (an event without a title, which a door key may not create anyway) refused inside it.
      assert.equal(b.status, 207);
      assert.equal(b.body.responses[0].status, 400);
    };
    await both();
    assert.deepEqual(seen, [
      'OPTIONS /wp-json/evt/events/v1/events',
      'GET /wp-json/evt/events/v1/events',
      'OPTIONS /wp-json/batch/v1',
      'POST /wp-json/batch/v1',
    ]);
    // Past Chromium's 5 s default, well within the two hours the server allows.
    await new Promise((r) => setTimeout(r, 6_000));
    await both();
    assert.deepEqual(seen.slice(4), ['GET /wp-json/evt/events/v1/events', 'POST /wp-json/batch/v1'], 'the second of each goes without a preflight');
    await tab.close();
  }, 60_000);
});
