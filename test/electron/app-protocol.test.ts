import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KIOSK_CSP } from '../../electron/csp.ts';
import { resolveAppPath } from '../../electron/app-protocol.ts';
import { startFakeShell, tempDir } from './shell-fixture.ts';

const SECRET = 'TOP-SECRET-api-key';

/** A renderer build in <tmp>/dist and a secret next to it that must never be served. */
async function served(t: { onTestFinished(fn: () => unknown): void }) {
  const dir = tempDir(t, 'doorstep-protocol-');
  const root = path.join(dir, 'dist');
  mkdirSync(path.join(root, 'assets'), { recursive: true });
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>kiosk</title><script type="module" src="./assets/app.js"></script>');
  writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log("kiosk");');
  writeFileSync(path.join(root, 'assets', 'beep.wav'), 'RIFF');
  writeFileSync(path.join(dir, 'secret.txt'), SECRET);
  writeFileSync(path.join(dir, 'dist-secret.txt'), SECRET);
  const { state } = await startFakeShell(t, {}, { rendererRoot: root });
  const handler = state.protocolHandlers.get('app');
  assert.ok(handler, 'protocol.handle("app") was registered');
  return { root, fetch: async (url: string, init?: RequestInit) => handler(new Request(url, init)) };
}

describe('app:// protocol', () => {
  test('serves the renderer build with content types and the CSP', async (t) => {
    const { fetch } = await served(t);
    const index = await fetch('app://kiosk/index.html');
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(index.headers.get('content-security-policy'), KIOSK_CSP);
    assert.match(await index.text(), /<title>kiosk<\/title>/);
    const script = await fetch('app://kiosk/assets/app.js');
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(await script.text(), 'console.log("kiosk");');
    assert.equal((await fetch('app://kiosk/assets/beep.wav')).headers.get('content-type'), 'audio/wav');
  });

  test('the root and directories serve index.html', async (t) => {
    const { fetch } = await served(t);
    assert.match(await (await fetch('app://kiosk/')).text(), /<title>kiosk/);
    assert.match(await (await fetch('app://kiosk')).text(), /<title>kiosk/);
  });

  test('missing files are 404, other methods 405, other hosts 403', async (t) => {
    const { fetch } = await served(t);
    assert.equal((await fetch('app://kiosk/nope.js')).status, 404);
    assert.equal((await fetch('app://kiosk/assets')).status, 404);
    assert.equal((await fetch('app://kiosk/index.html', { method: 'POST', body: 'x' })).status, 405);
    assert.equal((await fetch('app://other/index.html')).status, 403);
  });

  test('HEAD answers the headers without a body', async (t) => {
    const { fetch } = await served(t);
    const head = await fetch('app://kiosk/assets/app.js', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(await head.text(), '');
  });

  test('path traversal never reaches a file outside the build', async (t) => {
    const { fetch } = await served(t);
    const attempts = [
      'app://kiosk/../secret.txt',
      'app://kiosk/assets/../../secret.txt',
      'app://kiosk/%2e%2e/secret.txt',
      'app://kiosk/..%2fsecret.txt',
      'app://kiosk/assets/..%2f..%2fsecret.txt',
      'app://kiosk/%2e%2e%2f%2e%2e%2fsecret.txt',
      'app://kiosk/..%5csecret.txt',
      'app://kiosk/assets%5c..%5c..%5csecret.txt',
      'app://kiosk/%2e%2e%2fdist-secret.txt',
      'app://kiosk/index.html%00.js',
      'app://kiosk/%E0%A4%A',
      `app://kiosk/${encodeURIComponent('/etc/passwd')}`,
    ];
    for (const url of attempts) {
      const response = await fetch(url);
      assert.ok(response.status === 403 || response.status === 404, `${url} answered ${response.status}`);
      assert.doesNotMatch(await response.text(), new RegExp(SECRET), url);
    }
  });

  test('resolveAppPath refuses encoded climbs instead of clamping them', (t) => {
    const root = tempDir(t);
    assert.equal(resolveAppPath(root, 'app://kiosk/..%2fsecret.txt'), null);
    assert.equal(resolveAppPath(root, 'app://kiosk/a/..%2f..%2fb'), null);
    assert.equal(resolveAppPath(root, 'app://kiosk/assets/app.js'), path.join(root, 'assets', 'app.js'));
    assert.equal(resolveAppPath(root, 'app://kiosk/a%20b.js'), path.join(root, 'a b.js'));
  });
});
