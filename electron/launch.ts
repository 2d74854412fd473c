import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Everything launchKiosk touches outside itself, so tests can drive each branch. */
export interface LaunchDeps {
  /** What `require('electron')` returns in Node: the binary's path. Throws when path.txt is missing. */
  resolveElectron(): string;
  exists(file: string): boolean;
  /** Runs `node node_modules/electron/install.js`; resolves with its exit status and captured stderr. */
  runInstaller(): Promise<{ status: number | null; stderr: string }>;
  /** Starts Electron on the project and resolves with its exit code. */
  runElectron(binary: string): Promise<number>;
  print(text: string): void;
  env: Record<string, string | undefined>;
  electronVersion: string;
  platform: string;
  arch: string;
  isRoot: boolean;
}

function findBinary(deps: LaunchDeps): { binary: string } | { missing: string } {
  let binary: string;
  try {
    binary = deps.resolveElectron();
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    // electron/index.js says "failed to install correctly, please delete node_modules/electron": in fact
    // its path.txt is missing because the binary was never downloaded (npm skips its install script here).
    return {
      missing: /failed to install correctly/.test(message) ? 'node_modules/electron/path.txt is missing: the binary was never downloaded' : message,
    };
  }
  return deps.exists(binary) ? { binary } : { missing: `no file at ${binary}` };
}

/** The first line of the installer's error output: its stack trace tells a door manager nothing. */
export function installerReason(result: { status: number | null; stderr: string }, env: LaunchDeps['env']): string {
  if (env.ELECTRON_SKIP_BINARY_DOWNLOAD) return 'ELECTRON_SKIP_BINARY_DOWNLOAD is set, so the installer did not download anything';
  const line = result.stderr
    .split('\n')
    .map((text) => text.trim())
    .find((text) => text.length > 0);
  if (line) return line;
  return result.status === 0 ? 'the installer finished but left no binary' : `the installer exited with status ${result.status ?? 'unknown'}`;
}

function executableInZip(platform: string): string {
  if (platform === 'win32') return 'electron.exe';
  if (platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  return 'electron';
}

/** The exact steps that get a binary onto a machine where the download failed. */
export function missingBinaryHelp(deps: Pick<LaunchDeps, 'electronVersion' | 'platform' | 'arch'>, reason: string): string {
  const { electronVersion: version, platform, arch } = deps;
  const zip = `electron-v${version}-${platform}-${arch}.zip`;
  return [
    `Doorstep Kiosk: the Electron ${version} binary (${platform}-${arch}) is not installed, and fetching it failed:`,
    `  ${reason}`,
    '',
    "The kiosk is built and also runs in any Chromium browser: `npm start`, then open the server's /kiosk/ page.",
    'To run it in the Electron shell, do one of these, then run `npm run kiosk` again:',
    '  1. On a network that reaches github.com:',
    '       node node_modules/electron/install.js',
    '  2. Through a mirror of the Electron releases (ELECTRON_CUSTOM_DIR and ELECTRON_CUSTOM_FILENAME',
    '     adjust the directory and file name on the mirror):',
    '       ELECTRON_MIRROR=https://npmmirror.com/mirrors/electron/ node node_modules/electron/install.js',
    `  3. From ${zip}, downloaded on another machine from`,
    `     https://github.com/electron/electron/releases/tag/v${version} and copied here:`,
    `       unzip -o ${zip} -d node_modules/electron/dist && printf '%s' '${executableInZip(platform)}' > node_modules/electron/path.txt`,
    `  4. With Electron ${version} already unpacked in a directory DIR:`,
    '       ELECTRON_OVERRIDE_DIST_PATH=DIR npm run kiosk',
  ].join('\n');
}

/** Finds (or fetches, once) the Electron binary and runs the shell. Resolves with the exit code. */
export async function launchKiosk(deps: LaunchDeps): Promise<number> {
  let found = findBinary(deps);
  if ('missing' in found) {
    deps.print(`Electron binary not found (${found.missing}); trying to download it once: node node_modules/electron/install.js`);
    const result = await deps.runInstaller();
    found = findBinary(deps);
    if ('missing' in found) {
      deps.print(missingBinaryHelp(deps, installerReason(result, deps.env)));
      return 1;
    }
  }
  if (deps.isRoot && deps.platform === 'linux') {
    deps.print('Note: Electron refuses to start as root with its sandbox on; run the kiosk as a normal user.');
  }
  return deps.runElectron(found.binary);
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function realDeps(): LaunchDeps {
  const require = createRequire(import.meta.url);
  const electronDir = path.dirname(require.resolve('electron/package.json'));
  const pkg = JSON.parse(readFileSync(path.join(electronDir, 'package.json'), 'utf8')) as { version: string };
  return {
    resolveElectron() {
      // electron/index.js computes the path when first loaded; drop the cache so a fresh install is seen.
      const entry = require.resolve('electron');
      delete require.cache[entry];
      const binary: unknown = require('electron');
      if (typeof binary !== 'string') throw new Error('require("electron") did not return a path');
      return binary;
    },
    exists: existsSync,
    runInstaller: () =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [path.join(electronDir, 'install.js')], { stdio: ['ignore', 'inherit', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('error', (error) => resolve({ status: null, stderr: error.message }));
        child.on('close', (status) => resolve({ status, stderr }));
      }),
    runElectron: (binary) =>
      new Promise((resolve) => {
        const env = { ...process.env };
        delete env.ELECTRON_RUN_AS_NODE;
        const child = spawn(binary, [projectRoot], { stdio: 'inherit', env });
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
        child.on('error', (error) => {
          process.stderr.write(`Could not start Electron: ${error.message}\n`);
          resolve(1);
        });
        child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
      }),
    print: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    electronVersion: pkg.version,
    platform: process.platform,
    arch: process.arch,
    isRoot: process.getuid?.() === 0,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await launchKiosk(realDeps());
}
