import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installerReason, launchKiosk, missingBinaryHelp, type LaunchDeps } from '../../electron/launch.ts';
import { tempDir } from './shell-fixture.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const BINARY = '/work/node_modules/electron/dist/electron';
const STACK =
  'RequestError: getaddrinfo ENOTFOUND github.com\n    at ClientRequest.<anonymous> (/work/node_modules/got/dist/source/core/index.js:970:111)\n    at Object.onceWrapper (node:events:639:26)\n';

/** A scripted machine: whether the binary is there, and what the installer does. */
function machine(opts: { installed: boolean; installerInstalls?: boolean; installerStderr?: string; env?: Record<string, string> }) {
  let installed = opts.installed;
  const printed: string[] = [];
  const ran: string[] = [];
  let installerRuns = 0;
  const deps: LaunchDeps = {
    resolveElectron() {
      if (!installed) throw new Error('Electron failed to install correctly, please delete node_modules/electron and try installing again');
      return BINARY;
    },
    exists: (file) => installed && file === BINARY,
    async runInstaller() {
      installerRuns += 1;
      if (opts.installerInstalls) {
        installed = true;
        return { status: 0, stderr: '' };
      }
      return { status: 1, stderr: opts.installerStderr ?? STACK };
    },
    async runElectron(binary) {
      ran.push(binary);
      return 0;
    },
    print: (text) => printed.push(text),
    env: opts.env ?? {},
    electronVersion: '41.7.1',
    platform: 'linux',
    arch: 'x64',
    isRoot: false,
  };
  return { deps, printed, ran, installerRuns: () => installerRuns };
}

describe('npm run kiosk launcher', () => {
  test('with the binary installed it starts Electron and downloads nothing', async () => {
    const m = machine({ installed: true });
    assert.equal(await launchKiosk(m.deps), 0);
    assert.deepEqual(m.ran, [BINARY]);
    assert.equal(m.installerRuns(), 0);
    assert.deepEqual(m.printed, []);
  });

  test('without it, the installer runs once and Electron starts when it succeeds', async () => {
    const m = machine({ installed: false, installerInstalls: true });
    assert.equal(await launchKiosk(m.deps), 0);
    assert.equal(m.installerRuns(), 1);
    assert.deepEqual(m.ran, [BINARY]);
  });

  test('when the download fails it prints the steps, the reason without a stack, and exits 1', async () => {
    const m = machine({ installed: false });
    assert.equal(await launchKiosk(m.deps), 1);
    assert.equal(m.installerRuns(), 1);
    assert.deepEqual(m.ran, []);
    const text = m.printed.join('\n');
    assert.match(text, /RequestError: getaddrinfo ENOTFOUND github\.com/);
    assert.doesNotMatch(text, /^\s+at /m, 'no stack frames');
    assert.match(text, /ELECTRON_MIRROR=/);
    assert.match(text, /ELECTRON_OVERRIDE_DIST_PATH=DIR npm run kiosk/);
    assert.match(text, /unzip -o electron-v41\.7\.1-linux-x64\.zip -d node_modules\/electron\/dist/);
  });

  test('a path that points at no file counts as missing', async () => {
    const m = machine({ installed: true });
    m.deps.exists = () => false;
    assert.equal(await launchKiosk(m.deps), 1);
    assert.equal(m.installerRuns(), 1);
    assert.match(m.printed[0], /no file at \/work\/node_modules\/electron\/dist\/electron/);
  });

  test('the reason names ELECTRON_SKIP_BINARY_DOWNLOAD when that is why nothing was fetched', () => {
    assert.match(installerReason({ status: 0, stderr: '' }, { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }), /ELECTRON_SKIP_BINARY_DOWNLOAD/);
    assert.equal(installerReason({ status: 3, stderr: '\n\n' }, {}), 'the installer exited with status 3');
  });

  test('the help names the right executable per platform', () => {
    assert.match(missingBinaryHelp({ electronVersion: '41.7.1', platform: 'win32', arch: 'x64' }, 'r'), /'electron\.exe'/);
    assert.match(
      missingBinaryHelp({ electronVersion: '41.7.1', platform: 'darwin', arch: 'arm64' }, 'r'),
      /Electron\.app\/Contents\/MacOS\/Electron/,
    );
  });

  test('the real script runs a binary found through require("electron") on the project and passes its exit code on', (t) => {
    const dist = tempDir(t, 'doorstep-electron-dist-');
    // ELECTRON_OVERRIDE_DIST_PATH is honoured by electron/index.js itself, so this exercises the real lookup.
    const fake = path.join(dist, 'electron');
    writeFileSync(fake, `#!/bin/sh\nprintf '%s' "$*" > '${dist}/args'\nexit 7\n`);
    chmodSync(fake, 0o755);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'electron/launch.ts'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist, ELECTRON_RUN_AS_NODE: '1' },
    });
    assert.equal(run.status, 7, run.stderr);
    assert.equal(readFileSync(path.join(dist, 'args'), 'utf8'), root);
  });

  test('the real script, with no binary and downloads switched off, explains and exits 1 without a stack trace', (t) => {
    // An empty override directory: no binary, whether or not this machine has Electron installed.
    const empty = tempDir(t, 'doorstep-electron-empty-');
    const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', ELECTRON_OVERRIDE_DIST_PATH: empty };
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'electron/launch.ts'], { cwd: root, encoding: 'utf8', env });
    assert.equal(run.status, 1);
    assert.match(run.stderr, new RegExp(`Electron binary not found \\(no file at ${empty}`));
    assert.match(run.stderr, /ELECTRON_SKIP_BINARY_DOWNLOAD is set/);
    assert.match(run.stderr, /npm run kiosk/);
    assert.doesNotMatch(run.stderr, /^\s+at /m);
  });
});
