import { build, type BuildOptions } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Electron 41 embeds Node 24 and Chromium 146; the bundles need nothing older. */
const common: BuildOptions = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  external: ['electron'],
  logLevel: 'warning',
  legalComments: 'none',
};

/**
 * Compiles the main process and the preload into CommonJS bundles (`.cjs`, since package.json says
 * "type": "module"). The preload must be one self-contained file: a sandboxed preload can require
 * nothing but 'electron' and a few browser-safe modules.
 */
export async function buildElectron(outDir = path.join(projectRoot, 'dist', 'electron')): Promise<string[]> {
  const outputs = [
    { entry: 'electron/main.ts', out: 'main.cjs' },
    { entry: 'electron/preload.ts', out: 'preload.cjs' },
  ];
  for (const { entry, out } of outputs) {
    await build({ ...common, entryPoints: [path.join(projectRoot, entry)], outfile: path.join(outDir, out) });
  }
  return outputs.map(({ out }) => path.join(outDir, out));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildElectron(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  process.stdout.write(`built ${files.map((file) => path.relative(projectRoot, file)).join(', ')}\n`);
}
