import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { createAppProtocolHandler } from '../../electron/app-protocol.ts';
import { tempDir } from './shell-fixture.ts';
import { CHROMIUM, HEADLESS_ARGS } from '../e2e/browser.ts';

/*
 * The real renderer build, served by the shell's app:// handler and shown in headless Chromium. Chromium
 * cannot load a custom scheme, so a 127.0.0.1 bridge turns each GET into the app:// Request the shell would
 * see and sends the handler's Response back unchanged (status, content type, CSP header, body).
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the kiosk renderer served by the shell protocol under the shell CSP', () => {
  test('boots with no CSP violation and no page error', async (t) => {
    const outDir = tempDir(t, 'doorstep-renderer-build-');
    await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'silent', build: { outDir, emptyOutDir: true } });
    const handler = createAppProtocolHandler(outDir);
    const served: string[] = [];
    const server = createServer(async (req, res) => {
      const response = await handler(new Request(`app://kiosk${req.url ?? '/'}`, { method: req.method }));
      served.push(`${response.status} ${req.url} ${response.headers.get('content-type')}`);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.onTestFinished(async () => {
      await server.close();
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...HEADLESS_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
    });
    t.onTestFinished(async () => {
      await browser.close();
    });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        (window as unknown as { cspViolations: string[] }).cspViolations ??= [];
        (window as unknown as { cspViolations: string[] }).cspViolations.push(
          `${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
        );
      });
    });
    await page.goto(`${origin}/index.html`);
    // The UI fills its data-i18n labels once main.ts has run: proof the module script loaded and executed.
    await page.waitForFunction(() => (document.querySelector('[data-i18n]')?.textContent ?? '').trim().length > 0, undefined, { timeout: 15_000 });
    const violations = await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
    assert.deepEqual(
      [...violations, ...problems],
      [],
      "CSP violations or page errors in the renderer build. A 'script-src eval' one at load means Zod probed `new Function` " +
        'before z.config({ jitless: true }) ran: set it in a module imported before any module that builds schemas.',
    );
    assert.ok(
      served.some((line) => /^200 \/index\.html text\/html/.test(line)),
      served.join('\n'),
    );
    assert.ok(
      served.some((line) => /^200 \/assets\/index-[\w-]+\.js text\/javascript/.test(line)),
      served.join('\n'),
    );
    assert.ok(
      served.some((line) => /^200 \/assets\/index-[\w-]+\.css text\/css/.test(line)),
      served.join('\n'),
    );
  });
});
