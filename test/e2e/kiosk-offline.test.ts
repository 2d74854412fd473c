import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { pairingLink, type PairingPayload } from '../../shared/checkin/pairing.ts';
import { KIOSK_HEADERS } from '../../server/site.ts';
import { FakeDoorServer } from '../renderer/fake-door-server.ts';
import { startFakeHttpServer, type FakeHttpServer } from './fake-http-server.ts';
import { confirmPairing, openStaff, waitFor, waitReady, wedgeScan as burstScan } from './kiosk-page.ts';
import { kioskSuite, launchDoorPc } from './kiosk-suite.ts';

/**
 * Issue 12 item 8 in headless Chromium.
 * - The browser kiosk is a PWA: after the first visit its service worker holds the app shell, so a reload and a
 *   cold start with the kiosk's server gone (and the browser offline) still open the kiosk, which admits a cached
 *   ticket from the barcode scanner. The worker caches the shell only, never an API answer, and a new build
 *   replaces its cache.
 * - On plain http to a LAN-like address (not a secure context: no camera API at all) the kiosk says so in a
 *   visible panel with the fix, in English and Estonian, and the barcode scanner still checks guests in.
 *
 * The kiosk is served as the server serves it (server/site.ts's headers, CSP included) from a private build.
 */

const LAN_HOST = 'door-pc.venue-lan.test';
const s = kioskSuite('kiosk-offline-e2e-', { serve: false });

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The kiosk at /kiosk/ with the server's headers; `dir` can be swapped (a new build) and the server taken down. */
interface KioskHost {
  base: string;
  dir: string;
  down: boolean;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

async function hostKiosk(dir: string): Promise<KioskHost> {
  const host: KioskHost = { base: '', dir, down: false, requests: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    host.requests.push(url.pathname);
    if (host.down) return void req.socket.destroy();
    if (!url.pathname.startsWith('/kiosk/')) return void res.writeHead(404).end();
    const rel = url.pathname.slice('/kiosk/'.length) || 'index.html';
    const file = path.join(host.dir, path.normalize(rel));
    if (!file.startsWith(host.dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return void res.writeHead(404).end();
    res.writeHead(200, { ...KIOSK_HEADERS, 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host.close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return host;
}

async function launch(profile: string, args: string[] = []): Promise<{ ctx: BrowserContext; page: Page }> {
  return launchDoorPc(s, profile, args);
}

async function venue(): Promise<{ api: FakeHttpServer; pairing: PairingPayload; tickets: string[] }> {
  const api = await startFakeHttpServer(new FakeDoorServer(10));
  const people = api.model.seed(4);
  return { api, pairing: { url: api.root, api_key: 'door-key', event_id: 10 }, tickets: people.map((p) => api.model.ticketUrl(p)) };
}

/** Opens the pairing link, confirms, waits for the attendee list. */
async function pair(page: Page, base: string, pairing: PairingPayload): Promise<void> {
  await page.goto(pairingLink(base, pairing));
  await page.locator('#pair-confirm[data-state="ask"]').waitFor({ timeout: 30_000 });
  await confirmPairing(page);
  await waitReady(page, 30_000);
  await waitFor('the event title', async () => (await page.locator('#event-title').innerText()) === 'Door test event');
}

/** A barcode scanner types the code and Enter; the verdict shown for it. */
async function wedgeScan(page: Page, code: string): Promise<string | null> {
  await page.locator('#verdict').evaluate((el) => (((el as HTMLElement).hidden = true), delete (el as HTMLElement).dataset.verdict));
  // The keys arrive in one burst, as from a real scanner: typed one by one over the DevTools protocol on a loaded
  // machine, they could straddle the wedge's 150 ms idle gap and arrive as two partial codes.
  await burstScan(page, code);
  await page.locator('#verdict:not([hidden])').waitFor({ timeout: 15_000 });
  return page.locator('#verdict').getAttribute('data-verdict');
}

const controlled = (page: Page) => page.evaluate(() => navigator.serviceWorker?.controller?.scriptURL ?? null);

/** Every cache of the page's origin with the URLs it holds. */
const cacheContents = (page: Page) =>
  page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const name of await caches.keys()) out[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
    return out;
  });

describe('the browser kiosk as a PWA (headless Chromium)', () => {
  test('manifest and service worker; a reload and a cold start with no network open the kiosk and admit a cached ticket; a new build replaces the cache', {
    timeout: 180_000,
  }, async () => {
    const kiosk = await hostKiosk(s.distDir);
    const { api, pairing, tickets } = await venue();
    try {
      let { ctx, page } = await launch('pwa');
      await pair(page, kiosk.base, pairing);

      // The web app manifest: installable, full screen, starts at /kiosk/.
      const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
      assert.ok(manifestHref, 'index.html links a manifest');
      const manifest = (await (await fetch(new URL(manifestHref, `${kiosk.base}/kiosk/`))).json()) as {
        name: string;
        display: string;
        start_url: string;
        icons: Array<{ src: string; sizes: string; type: string }>;
      };
      const manifestUrl = new URL(manifestHref, `${kiosk.base}/kiosk/`);
      assert.equal(new URL(manifest.start_url, manifestUrl).pathname, '/kiosk/');
      assert.ok(['fullscreen', 'standalone'].includes(manifest.display));
      assert.ok(manifest.name.length > 0);
      for (const size of ['192x192', '512x512']) {
        const icon = manifest.icons.find((i) => i.sizes === size && i.type === 'image/png');
        assert.ok(icon, `a ${size} PNG icon`);
        const res = await fetch(new URL(icon.src, manifestUrl));
        assert.equal(res.status, 200);
        assert.deepEqual([...new Uint8Array(await res.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
      }

      // The worker takes control of the page once it has cached the shell.
      await waitFor('the service worker to control the kiosk', () => controlled(page));
      assert.equal(await controlled(page), `${kiosk.base}/kiosk/sw.js`);

      // The kiosk's server is gone and the browser is offline: a reload still opens the kiosk, and a ticket
      // from the downloaded list is admitted from the barcode scanner.
      kiosk.down = true;
      await ctx.setOffline(true);
      const before = kiosk.requests.length;
      await page.reload();
      await waitReady(page, 30_000);
      assert.equal(await page.locator('#event-title').innerText(), 'Door test event');
      assert.equal(await wedgeScan(page, tickets[0]), 'admitted');
      assert.equal(await page.locator('#verdict').getAttribute('data-mode'), 'offline');
      assert.deepEqual(
        kiosk.requests.slice(before).filter((p) => p !== '/kiosk/sw.js'),
        [],
        'the shell came from the cache',
      );
      await ctx.close();

      // Cold start: a new browser, no network, the kiosk's server still down.
      ({ ctx, page } = await launch('pwa'));
      await ctx.setOffline(true);
      await page.goto(`${kiosk.base}/kiosk/`);
      await waitReady(page, 30_000);
      assert.equal(await wedgeScan(page, tickets[1]), 'admitted');
      // The first scan was not lost over the restart: the same ticket again is already in.
      assert.notEqual(await wedgeScan(page, tickets[0]), 'admitted');

      // The API is never cached: only the shell's files are, all under /kiosk/, in one cache.
      const caches1 = await cacheContents(page);
      assert.equal(Object.keys(caches1).length, 1, JSON.stringify(caches1));
      const [oldCache] = Object.keys(caches1);
      const cached = Object.values(caches1)[0];
      assert.ok(cached.includes('/kiosk/index.html'), JSON.stringify(cached));
      assert.ok(
        cached.every((p) => p.startsWith('/kiosk/') && !p.includes('wp-json')),
        JSON.stringify(cached),
      );

      // Network back: the offline scans reach the server.
      await ctx.setOffline(false);
      kiosk.down = false;
      await openStaff(page);
      await page.locator('#sync-now').click();
      await waitFor('the offline scans on the server', async () => api.model.log.filter((e) => e.result === 'accepted').length >= 2);

      // A new build is deployed (here: the same files with a changed page and a new worker version). A reload
      // installs it; the kiosk then runs the new page and only the new cache is left.
      const next = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-dist-next-'));
      fs.cpSync(s.distDir, next, { recursive: true });
      const index = path.join(next, 'index.html');
      fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace('</body>', '<p id="build-marker" hidden>next</p></body>'));
      const swFile = path.join(next, 'sw.js');
      const sw = fs.readFileSync(swFile, 'utf8');
      const version = /\$\{FAMILY\}\$\{"([0-9a-f]{16})"\}/.exec(sw)?.[1];
      assert.ok(version, 'the built worker carries its version');
      fs.writeFileSync(swFile, sw.replace(`"${version}"`, '"0000000000000000"'));
      kiosk.dir = next;
      try {
        await page.reload();
        await waitFor('the new build in the page', async () => (await page.locator('#build-marker').count()) === 1);
        const caches2 = await waitFor('the old cache dropped', async () => {
          const now = await cacheContents(page);
          return Object.keys(now).length === 1 && !(oldCache in now) ? now : null;
        });
        assert.match(Object.keys(caches2)[0], /:0000000000000000$/);
        await waitReady(page, 30_000);
        assert.equal(await wedgeScan(page, tickets[2]), 'admitted');
      } finally {
        fs.rmSync(next, { recursive: true, force: true });
      }
      await ctx.close();
    } finally {
      await kiosk.close();
      await api.close();
    }
  });
});

describe('the camera blocked by the browser (headless Chromium)', () => {
  test('plain http to a LAN address: a visible panel says why and how to fix it (English, Estonian); the barcode scanner checks guests in', {
    timeout: 120_000,
  }, async () => {
    const kiosk = await hostKiosk(s.distDir);
    const { api, pairing, tickets } = await venue();
    try {
      // A fake camera that would work, were the page allowed to ask for it.
      const { ctx, page } = await launch('lan', [
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`,
      ]);
      const lanBase = `http://${LAN_HOST}:${new URL(kiosk.base).port}`;
      await pair(page, lanBase, pairing);
      assert.equal(await page.evaluate(() => window.isSecureContext), false, 'a LAN-like address over http is not a secure context');

      const panel = page.locator('#camera-blocked');
      await panel.waitFor({ state: 'visible' });
      assert.equal(await panel.getAttribute('data-reason'), 'insecure');
      assert.equal(await panel.getAttribute('role'), 'alert');
      const text = await panel.innerText();
      assert.match(text, /camera is blocked: this connection is not secure/);
      assert.match(text, /npm run cli -- tls-selfsigned/);
      assert.match(text, /EVT_TLS_CERT/);
      assert.match(text, /Doorstep Kiosk app/);
      assert.match(text, /localhost/);
      assert.match(text, /barcode scanner still works/);
      assert.ok(text.includes(`${lanBase}/kiosk/`), 'the page address is shown');
      // Not small grey text: a large box, body text at least 18 px, the title larger, light on dark.
      const box = await panel.boundingBox();
      assert.ok(box && box.height >= 200 && box.width >= 400, JSON.stringify(box));
      const style = await panel.evaluate((el) => {
        const p = getComputedStyle(el.querySelector('p')!);
        return { size: parseFloat(p.fontSize), title: parseFloat(getComputedStyle(el.querySelector('h2')!).fontSize), color: p.color };
      });
      assert.ok(style.size >= 18 && style.title >= 24, JSON.stringify(style));
      assert.equal(style.color, 'rgb(255, 255, 255)');
      await page.screenshot({ path: path.join(os.tmpdir(), 'kiosk-camera-blocked-en.png') });

      await page.selectOption('#lang', 'et');
      await waitFor('the Estonian panel', async () => /Kaamera on blokeeritud: ühendus pole turvaline/.test(await panel.innerText()));
      assert.match(await panel.innerText(), /Vöötkoodilugeja töötab edasi/);
      assert.match(await panel.innerText(), /tls-selfsigned/);
      await page.screenshot({ path: path.join(os.tmpdir(), 'kiosk-camera-blocked-et.png') });

      // The barcode scanner is unaffected.
      assert.equal(await wedgeScan(page, tickets[0]), 'admitted');
      await waitFor('the check-in on the server', async () => api.model.log.some((e) => e.result === 'accepted'));
      await ctx.close();
    } finally {
      await kiosk.close();
      await api.close();
    }
  });

  test('a secure page whose camera permission is refused says so; no panel where the camera works', { timeout: 120_000 }, async () => {
    const kiosk = await hostKiosk(s.distDir);
    const { api, pairing, tickets } = await venue();
    try {
      // A camera, but the permission prompt is never granted (headless: refused).
      let { ctx, page } = await launch('denied', ['--use-fake-device-for-media-stream']);
      await pair(page, kiosk.base, pairing);
      const panel = page.locator('#camera-blocked');
      await panel.waitFor({ state: 'visible' });
      assert.equal(await panel.getAttribute('data-reason'), 'denied');
      assert.match(await panel.innerText(), /permission was refused/);
      assert.match(await panel.innerText(), /barcode scanner still works/);
      assert.equal(await wedgeScan(page, tickets[1]), 'admitted');
      await ctx.close();

      // The same kiosk with the camera allowed: the picture, no panel.
      ({ ctx, page } = await launch('allowed', ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']));
      await page.goto(`${kiosk.base}/kiosk/`);
      await page.waitForFunction(() => (document.getElementById('camera') as HTMLVideoElement | null)?.srcObject != null, null, { timeout: 30_000 });
      assert.equal(await page.locator('#camera-blocked').isVisible(), false);
      await ctx.close();
    } finally {
      await kiosk.close();
      await api.close();
    }
  });
});
