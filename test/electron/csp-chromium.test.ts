import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { KIOSK_CSP } from '../../electron/csp.ts';
import { CHROMIUM, HEADLESS_ARGS } from '../e2e/browser.ts';

/*
 * The kiosk CSP in a real Chromium (the engine Electron embeds): what the renderer needs must work
 * (module scripts and module workers from its own origin, fetch to a door server on another origin,
 * IndexedDB, data: images, CSSOM styling) and what an injected script would need must not (inline
 * script, eval, scripts from elsewhere, inline style attributes).
 */

const PAGE = `<!doctype html><html><head><title>csp</title>
<script type="module" src="/main.js"></script>
<script>window.inlineRan = true;</script>
</head><body><div id="styled" style="color: rgb(255, 0, 0)">x</div><img id="img" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></body></html>`;

const MAIN = `
window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective));
const results = { module: true };
try { eval('1'); results.eval = true; } catch { results.eval = false; }
try { new Function('return 1')(); results.fn = true; } catch { results.fn = false; }
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
results.worker = await new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); worker.onerror = () => resolve('error'); setTimeout(() => resolve('silent'), 3000); });
try { results.fetch = (await (await fetch(window.DOOR_URL + '/api')).json()).ok; } catch (e) { results.fetch = String(e); }
results.idb = await new Promise((resolve) => { const r = indexedDB.open('csp-test'); r.onsuccess = () => resolve(true); r.onerror = () => resolve(false); });
const el = document.createElement('p'); el.style.color = 'rgb(0, 128, 0)'; document.body.append(el);
results.cssom = getComputedStyle(el).color;
results.styleAttribute = getComputedStyle(document.getElementById('styled')).color;
const foreign = document.createElement('script'); foreign.src = window.DOOR_URL + '/evil.js';
results.foreignScript = await new Promise((resolve) => { foreign.onload = () => resolve('loaded'); foreign.onerror = () => resolve('blocked'); document.head.append(foreign); });
results.inline = window.inlineRan === true;
window.results = results;
`;

function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

describe('kiosk CSP in headless Chromium', () => {
  test('lets the kiosk work and stops injected code', async (t) => {
    const door = await listen((req, res) => {
      res.setHeader('access-control-allow-origin', '*');
      if (req.url === '/evil.js') return void res.setHeader('content-type', 'text/javascript').end('window.evil = true');
      res.setHeader('content-type', 'application/json').end('{"ok":true}');
    });
    t.onTestFinished(async () => {
      await door.server.close();
    });
    const app = await listen((req, res) => {
      const send = (type: string, body: string) => {
        res.setHeader('content-type', type);
        res.setHeader('content-security-policy', KIOSK_CSP);
        res.end(body);
      };
      if (req.url === '/main.js') return send('text/javascript', `window.DOOR_URL = ${JSON.stringify(door.origin)};\n${MAIN}`);
      if (req.url === '/worker.js') return send('text/javascript', 'postMessage("worker-ok");');
      send('text/html', PAGE);
    });
    t.onTestFinished(async () => {
      await app.server.close();
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: HEADLESS_ARGS });
    t.onTestFinished(async () => {
      await browser.close();
    });
    const page = await browser.newPage();
    await page.goto(`${app.origin}/`);
    await page.waitForFunction(() => 'results' in window, undefined, { timeout: 15_000 });
    const results = await page.evaluate(() => (window as unknown as { results: Record<string, unknown> }).results);
    assert.deepEqual(results, {
      module: true,
      eval: false,
      fn: false,
      worker: 'worker-ok',
      fetch: true,
      idb: true,
      cssom: 'rgb(0, 128, 0)',
      styleAttribute: 'rgb(0, 0, 0)',
      foreignScript: 'blocked',
      inline: false,
    });
  });
});
