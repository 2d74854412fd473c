import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Builds the kiosk into a private temporary directory, so tests running in parallel never race on
 * renderer/dist. Returns the directory.
 */
export async function buildKioskTo(): Promise<string> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-dist-'));
  await build({
    configFile: path.join(repo, 'vite.config.ts'),
    root: path.join(repo, 'renderer'),
    logLevel: 'silent',
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}
