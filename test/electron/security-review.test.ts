import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellSources } from './audit.ts';
import { hasHigh, type Finding } from './findings.ts';
import { reviewPreload, reviewRuntime, startRealShell, type ShellStarter } from './runtime-review.ts';
import { reviewSources } from './static-review.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const highIds = (findings: Finding[]) => new Set(findings.filter((f) => f.severity === 'HIGH').map((f) => f.id));

/** A source that has every required guard, so a snippet appended to it is judged on its own. */
const GUARDED = `
session.setPermissionRequestHandler(h); session.setPermissionCheckHandler(c);
contents.on('will-navigate', n); contents.on('will-attach-webview', w); contents.setWindowOpenHandler(o);
session.webRequest.onHeadersReceived(l);
`;

describe('security review of the real shell (issue 6 item 5)', () => {
  test('the sources have no HIGH finding', () => {
    const findings = reviewSources(shellSources());
    assert.deepEqual(
      findings.filter((f) => f.severity === 'HIGH'),
      [],
    );
  });

  test('the running shell has no HIGH finding', async () => {
    const findings = await reviewRuntime(startRealShell);
    assert.deepEqual(
      findings.filter((f) => f.severity === 'HIGH'),
      [],
    );
  });

  test('npm run audit:electron passes and prints findings by severity', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/electron/audit.ts'], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^HIGH \(0\)$/m);
    assert.match(run.stdout, /PASS: no HIGH findings/);
  });
});

describe('the source review catches what it must', () => {
  const cases: [string, string][] = [
    ['new BrowserWindow({ webPreferences: { nodeIntegration: true } })', 'NODEINTEGRATION'],
    ['new BrowserWindow({ webPreferences: { nodeIntegrationInWorker: true } })', 'NODEINTEGRATIONINWORKER'],
    ['new BrowserWindow({ webPreferences: { contextIsolation: false } })', 'CONTEXTISOLATION'],
    ['new BrowserWindow({ webPreferences: { sandbox: false } })', 'SANDBOX'],
    ['new BrowserWindow({ webPreferences: { webSecurity: false } })', 'WEBSECURITY'],
    ['new BrowserWindow({ webPreferences: { allowRunningInsecureContent: true } })', 'ALLOWRUNNINGINSECURECONTENT'],
    ['new BrowserWindow({ webPreferences: { experimentalFeatures: true } })', 'EXPERIMENTALFEATURES'],
    ['new BrowserWindow({ webPreferences: { webviewTag: true } })', 'WEBVIEWTAG'],
    ["new BrowserWindow({ webPreferences: { 'enableRemoteModule': false } })", 'REMOTE_MODULE'],
    ["import remote from '@electron/remote/main';", 'REMOTE_MODULE'],
    ['ipcMain.handle("open", (_e, url) => shell.openExternal(url));', 'OPEN_EXTERNAL'],
    ['shell?.openExternal(`http://${host}`);', 'OPEN_EXTERNAL'],
    ['session.setPermissionRequestHandler(null);', 'PERMISSION_HANDLER_RESET'],
    ["app.commandLine.appendSwitch('ignore-certificate-errors');", 'DANGEROUS_SWITCH'],
    ["const CSP = \"default-src 'self'; script-src 'self' 'unsafe-eval'\";", 'CSP_UNSAFE_SCRIPT'],
    ["const CSP = `script-src 'self' 'unsafe-inline'`;", 'CSP_UNSAFE_SCRIPT'],
    ["protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { bypassCSP: true } }]);", 'BYPASSCSP'],
    ["contextBridge.exposeInMainWorld('ipc', ipcRenderer);", 'IPC_RENDERER_EXPOSED'],
    ["contextBridge.exposeInMainWorld('ipc', { send: ipcRenderer.send });", 'IPC_RENDERER_EXPOSED'],
  ];
  for (const [snippet, id] of cases) {
    test(`${id}: ${snippet}`, () => {
      const findings = reviewSources([{ path: 'electron/x.ts', text: GUARDED + snippet }]);
      assert.ok(highIds(findings).has(id), JSON.stringify(findings));
    });
  }

  test('the guarded baseline itself is clean, so each case above fails on its snippet alone', () => {
    assert.equal(hasHigh(reviewSources([{ path: 'electron/x.ts', text: GUARDED }])), false);
  });

  test('missing guards are HIGH findings', () => {
    const ids = highIds(
      reviewSources([{ path: 'electron/main.ts', text: "new BrowserWindow({ webPreferences: { sandbox: true } }); win.loadURL('app://kiosk/');" }]),
    );
    for (const id of ['PERMISSION_REQUEST_HANDLER', 'NAVIGATION_HANDLER', 'NEW_WINDOW_HANDLER', 'CSP_HEADER']) assert.ok(ids.has(id), id);
  });

  test('IPC handlers outside the choke point and plain-http pages are flagged', () => {
    const findings = reviewSources([{ path: 'electron/other.ts', text: `${GUARDED} ipcMain.handle('x', f); win.loadURL('http://example.test/');` }]);
    const ids = new Set(findings.map((f) => f.id));
    assert.ok(ids.has('IPC_OUTSIDE_CHOKE_POINT'));
    assert.ok(ids.has('INSECURE_CONTENT'));
  });
});

describe('the runtime review catches what it must', () => {
  test('an insecure window with no guards fails on every count', async () => {
    const insecure: ShellStarter = async (fake) => {
      await fake.electron.app.whenReady();
      new fake.electron.BrowserWindow({
        webPreferences: { nodeIntegration: true, contextIsolation: false, sandbox: false, webSecurity: false, webviewTag: true },
      }).loadURL('http://example.test/');
    };
    const ids = highIds(await reviewRuntime(insecure));
    for (const id of [
      'NODEINTEGRATION',
      'CONTEXTISOLATION',
      'SANDBOX',
      'WEBSECURITY',
      'WEBVIEWTAG',
      'NAVIGATION_HANDLER',
      'NEW_WINDOW_HANDLER',
      'PERMISSION_REQUEST_HANDLER',
      'CSP_HEADER',
    ]) {
      assert.ok(ids.has(id), id);
    }
  });

  test('a permission handler that grants everything, and an IPC handler without a sender check, are HIGH', async () => {
    const permissive: ShellStarter = async (fake, rendererRoot) => {
      await startRealShell(fake, rendererRoot);
      fake.electron.session.defaultSession.setPermissionRequestHandler((_c, _p, callback) => callback(true));
      fake.electron.ipcMain.handle('doorstep:debug', () => ({ ok: true, value: 'secrets' }));
    };
    const ids = highIds(await reviewRuntime(permissive));
    assert.ok(ids.has('PERMISSION_GRANTED'));
    assert.ok(ids.has('IPC_SENDER_CHECK'));
  });

  test('a CSP with unsafe-eval on the pages is HIGH', async () => {
    const weakCsp: ShellStarter = async (fake, rendererRoot) => {
      await startRealShell(fake, rendererRoot);
      fake.electron.session.defaultSession.webRequest.onHeadersReceived((details, callback) =>
        callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': ["script-src 'self' 'unsafe-eval'"] } }),
      );
    };
    assert.ok(highIds(await reviewRuntime(weakCsp)).has('CSP_UNSAFE_SCRIPT'));
  });

  test('a preload that hands the page a generic invoke is HIGH', () => {
    const ids = highIds(
      reviewPreload((fake) => {
        const { contextBridge, ipcRenderer } = fake.preload();
        contextBridge.exposeInMainWorld('doorstep', { invoke: (channel: string, ...args: unknown[]) => ipcRenderer.invoke(channel, ...args) });
      }),
    );
    assert.ok(ids.has('PRELOAD_GENERIC_IPC'));
    assert.deepEqual(reviewPreload(), []);
  });
});
