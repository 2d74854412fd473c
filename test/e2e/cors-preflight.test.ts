import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, HEADLESS_ARGS } from './browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/*
 * A kiosk on its own origin (the Electron shell's app://) sends a CORS preflight before each signed request. Chromium
 * keeps a preflight's answer 5 s unless the server says longer, so a door scanning a guest every few seconds would
 * pay two round trips per online check-in. The server says two hours (Access-Control-Max-Age): in real Chromium,
 * a second signed request 6 s after the first goes without a preflight. Without the header this test sees two.
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
  /** The methods of the requests that reached the server, in order. */
  const methods: string[] = [];

  beforeAll(async () => {
    s = await startTestServer();
    const target = new URL(s.base);
    const agent = new http.Agent({ keepAlive: true });
    // In front of the server, to see every request the browser makes, preflights included.
    proxy = http.createServer((req, res) => {
      methods.push(req.method ?? '');
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

  test('a signed request 6 s after the first reuses its preflight (Access-Control-Max-Age), and both are answered', async () => {
    const { key } = await s.apiKey('Door 1');
    const tab = await browser.newPage();
    await tab.goto(`${pageBase}/`);
    const signedGet = (url: string) =>
      tab.evaluate(
        async ([u, k]) => {
          const r = await fetch(u, { headers: { Authorization: `Bearer ${k}` } });
          return { status: r.status, body: await r.json() };
        },
        [url, key] as const,
      );
    const url = `${proxyBase}/wp-json/evt/events/v1/events`;
    const first = await signedGet(url);
    assert.equal(first.status, 200);
    assert.ok(Array.isArray(first.body.events));
    assert.deepEqual(methods, ['OPTIONS', 'GET'], 'the first signed request is preflighted');
    // Past Chromium's 5 s default, well within the two hours the server allows.
    await new Promise((r) => setTimeout(r, 6_000));
    const second = await signedGet(url);
    assert.equal(second.status, 200);
    assert.deepEqual(methods, ['OPTIONS', 'GET', 'GET'], 'the second goes without a preflight');
    await tab.close();
  }, 60_000);
});
