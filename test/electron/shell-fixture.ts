import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startShell, type ShellOptions } from '../../electron/shell.ts';
import { createFakeElectron, type FakeOptions } from './fake-electron.ts';

/** A temp userData directory removed after the test. */
export function tempDir(t: { onTestFinished(fn: () => unknown): void }, prefix = 'doorstep-shell-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function shellOptions(overrides: Partial<ShellOptions> = {}): ShellOptions & { logged: unknown[] } {
  const logged: unknown[] = [];
  return {
    rendererRoot: '/nonexistent/renderer/dist',
    preloadPath: '/app/dist/electron/preload.cjs',
    deviceName: 'door-1',
    platform: 'linux',
    arch: 'x64',
    versions: { electron: '41.7.1', chrome: '146.0.0.0' },
    devTools: false,
    log: (entry) => logged.push(entry),
    ...overrides,
    logged,
  };
}

/** Starts the real shell code against a fresh fake electron. */
export async function startFakeShell(
  t: { onTestFinished(fn: () => unknown): void },
  fake: Partial<FakeOptions> = {},
  options: Partial<ShellOptions> = {},
) {
  const fakeElectron = createFakeElectron({ userData: tempDir(t), ...fake });
  const opts = shellOptions(options);
  const started = await startShell(fakeElectron.electron, opts);
  return { ...fakeElectron, started, logged: opts.logged };
}
