import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { KIOSK_CSP } from '../../electron/csp.ts';
import { CHROMIUM, HEADLESS_ARGS } from '../e2e/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/*
 * Finding 9 (kiosk CSP): the browser kiosk at /kiosk/ had only its <meta> CSP, which cannot forbid framing
 * (`frame-ancestors` is ignored in <meta>), so any site could frame the door screen. It is now served with the
 * Electron shell's policy as a header, plus `frame-ancestors 'none'`, X-Frame-Options DENY, nosniff and
 * Referrer-Policy no-referrer; the built kiosk must still start under it.
 */

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(repo, 'renderer/dist');

function directives(csp: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of csp.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), values.join(' '));
  }
  return out;
}

let s: TestServer;
beforeAll(async () => {
  // The server serves renderer/dist; build it once when it is missing (as `npm run build:kiosk` does).
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    await build({ configFile: path.join(repo, 'vite.config.ts'), root: path.join(repo, 'renderer'), logLevel: 'silent' });
  }
  s = await startTestServer();
});
afterAll(() => s.close());

describe('/kiosk/ headers', () => {
  test('the page and its assets carry the shell CSP, frame-ancestors none and the other headers', async () => {
    const page = await fetch(`${s.base}/kiosk/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.length >= 2, 'the built page links its script and style');
    for (const url of [
      `${s.base}/kiosk/`,
      `${s.base}/kiosk/index.html`,
      ...assets.map((a) => `${s.base}/kiosk/${a}`),
      `${s.base}/kiosk/missing.js`,
    ]) {
      const r = url === `${s.base}/kiosk/` ? page : await fetch(url);
      const csp = r.headers.get('content-security-policy');
      assert.ok(csp, `${url} has a CSP header`);
      const got = directives(csp);
      // As strict as the shell's: every directive of the shell's policy, with the same sources, and nothing more.
      assert.deepEqual(got, directives(KIOSK_CSP), url);
      assert.equal(got.get('frame-ancestors'), "'none'", url);
      assert.equal(got.get('default-src'), "'none'", url);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/, url);
      assert.equal(r.headers.get('x-frame-options'), 'DENY', url);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', url);
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer', url);
    }
  });
});

describe('/kiosk/ in headless Chromium', () => {
  let browser: Browser;
  let framer: Server;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: HEADLESS_ARGS });
  });
  afterAll(async () => {
    await browser.close();
    framer?.close();
  });

  test('the built kiosk starts under the header CSP without a violation', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        ((window as unknown as { violations: string[] }).violations ??= []).push(`${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    const r = await page.goto(`${s.base}/kiosk/`);
    assert.equal(r?.status(), 200);
    assert.ok(r?.headers()['content-security-policy']?.includes("frame-ancestors 'none'"));
    // Unpaired, the kiosk shows its pairing form, translated by its own script.
    await page.waitForSelector('#pairing-view:not([hidden])', { timeout: 20_000 });
    await page.waitForFunction(() => (document.querySelector('#pairing-view h1')?.textContent ?? '').trim().length > 0, undefined, {
      timeout: 20_000,
    });
    const violations = await page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []);
    assert.deepEqual(violations, []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('another site cannot frame the kiosk', async () => {
    framer = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><iframe id="k" src="${s.base}/kiosk/"></iframe>`);
    });
    const origin = await new Promise<string>((resolve) =>
      framer.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(framer.address() as AddressInfo).port}`)),
    );
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/frame-ancestors|X-Frame-Options/i.test(m.text())) refused.push(m.text());
    });
    await page.goto(`${origin}/`);
    // Blocked: Chromium reports the refusal on the framing page's console. Not blocked: the kiosk starts inside.
    let outcome = 'undecided';
    for (let i = 0; i < 150 && outcome === 'undecided'; i++) {
      if (refused.length) outcome = 'blocked';
      for (const f of page.frames()) {
        if (f !== page.mainFrame() && f.url().startsWith(`${s.base}/kiosk/`) && (await f.$('#pairing-view:not([hidden])').catch(() => null))) {
          outcome = 'kiosk started inside the frame';
        }
      }
      if (outcome === 'undecided') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(outcome, 'blocked');
    assert.ok(refused.length > 0, 'Chromium reports the refusal');
    await page.close();
  });
});
