import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { buildElectron } from '../../electron/build.ts';
import { ipcMethods } from '../../shared/ipc.ts';
import { createFakeElectron } from './fake-electron.ts';
import { tempDir } from './shell-fixture.ts';

describe('electron build (esbuild)', () => {
  test('produces CommonJS main and preload; the preload needs nothing but electron', async (t) => {
    const outDir = tempDir(t, 'doorstep-build-');
    const [main, preload] = await buildElectron(outDir);
    assert.equal(path.basename(main), 'main.cjs');
    assert.equal(path.basename(preload), 'preload.cjs');
    const requires = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
    assert.deepEqual([...requires(preload)], ['electron']);
    // shared/ipc.ts uses zod/mini so the preload stays small (the classic Zod build made it ~750 kB).
    assert.ok(statSync(preload).size < 100_000, `preload is ${statSync(preload).size} bytes`);
    for (const name of requires(main)) assert.ok(name === 'electron' || name.startsWith('node:'), `main requires ${name}`);
  });

  test('the built preload, run like a sandboxed preload, exposes the bridge', async (t) => {
    const outDir = tempDir(t, 'doorstep-build-');
    const [, preload] = await buildElectron(outDir);
    const exposed: Record<string, unknown> = {};
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
      ipcRenderer: { invoke: async () => ({ ok: true, value: { quitting: false } }) },
    };
    // A sandboxed preload gets a require() that knows 'electron' and little else; this one knows only it.
    const sandboxRequire = (name: string) => {
      if (name === 'electron') return electron;
      throw new Error(`module not available in a sandboxed preload: ${name}`);
    };
    const module = { exports: {} };
    // The page CSP forbids eval; the preload must not even probe for it (Chromium reports the probe).
    const codeGeneration: string[] = [];
    // A function, not an arrow: Zod calls it with `new`.
    function spyFunction(...args: unknown[]): never {
      codeGeneration.push(`Function(${args.join(', ')})`);
      throw new EvalError('Code generation from strings disallowed for this context');
    }
    vm.runInNewContext(readFileSync(preload, 'utf8'), { require: sandboxRequire, module, exports: module.exports, console, Function: spyFunction });
    assert.deepEqual(codeGeneration, []);
    const api = exposed.doorstep as Record<string, () => Promise<unknown>>;
    assert.deepEqual(Object.keys(api).sort(), [...ipcMethods].sort());
    assert.deepEqual(await api.quit(), { quitting: false });
  });

  test('the built main wires the real shell to the electron module it is given', async (t) => {
    const outDir = tempDir(t, 'doorstep-build-');
    const [main] = await buildElectron(outDir);
    const appPath = tempDir(t, 'doorstep-app-');
    mkdirSync(path.join(appPath, 'renderer', 'dist'), { recursive: true });
    writeFileSync(path.join(appPath, 'renderer', 'dist', 'index.html'), '<!doctype html><title>built</title>');
    const fake = createFakeElectron({ userData: tempDir(t, 'doorstep-userdata-'), appPath, isPackaged: true });
    const nodeRequire = createRequire(import.meta.url);
    const bundleRequire = (name: string): unknown => (name === 'electron' ? fake.electron : nodeRequire(name));
    const module = { exports: {} };
    vm.runInThisContext(`(function (require, module, exports) {${readFileSync(main, 'utf8')}\n})`)(bundleRequire, module, module.exports);
    // startShell runs asynchronously after whenReady; give the microtask queue a bounded number of turns.
    for (let turn = 0; turn < 100 && fake.state.windows.length === 0; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(fake.state.windows.length, 1);
    const [window] = fake.state.windows;
    assert.equal(window.options.webPreferences?.preload, path.join(appPath, 'dist', 'electron', 'preload.cjs'));
    assert.equal(window.options.webPreferences?.devTools, false, 'packaged builds have no dev tools');
    assert.deepEqual(window.loadedUrls, ['app://kiosk/index.html']);
    const page = await fake.state.protocolHandlers.get('app')?.(new Request('app://kiosk/'));
    assert.match((await page?.text()) ?? '', /<title>built<\/title>/);
    assert.equal(fake.state.ipcHandlers.size, ipcMethods.length);
  });
});
