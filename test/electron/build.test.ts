import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { buildElectron } from '../../electron/build.ts';
import { ipcMethods } from '../../shared/ipc.ts';
import { tempDir } from './shell-fixture.ts';

describe('electron build (esbuild)', () => {
  test('produces CommonJS main and preload; the preload needs nothing but electron', async (t) => {
    const outDir = tempDir(t, 'doorstep-build-');
    const [main, preload] = await buildElectron(outDir);
    assert.equal(path.basename(main), 'main.cjs');
    assert.equal(path.basename(preload), 'preload.cjs');
    const requires = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
    assert.deepEqual([...requires(preload)], ['electron']);
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
});
