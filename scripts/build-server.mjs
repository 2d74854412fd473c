#!/usr/bin/env node
// `npm run build:server`: bundles the server and the operators' CLI into dist/server/main.js and cli.js, so
// `npm start` runs plain `node` (no TypeScript loader, one process).
//
// - npm packages stay external (resolved from node_modules at run time): better-sqlite3 is a native addon, and the
//   others (pg, node-postgres in plain JavaScript, among them) are loaded as their authors ship them.
// - Source files that find files beside themselves through `import.meta.url` (the migrations folder, the
//   checkpoint thread's script, the kiosk's build in renderer/dist) keep finding them where they are in the
//   checkout: in each such module `import.meta.url` is replaced by that module's own source URL, relative to the
//   bundle. So nothing is copied, and a migration added to server/db/migrations is the one the bundle runs.
// - The entry points keep their own `import.meta.url` (the CLI compares it with argv[1]).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'server');
const entries = ['server/main.ts', 'server/cli.ts'].map((e) => path.join(root, e));

/** Each module's `import.meta.url` as its source file's URL, computed from the bundle's own location. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (entries.includes(args.path) || !text.includes('import.meta.url')) return undefined;
      const rel = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

const started = Date.now();
fs.rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: entries,
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  packages: 'external',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [sourceUrls],
});

// The checkpoint and mail threads' scripts (and the QR code's, which the bundle requires at run time) and the migrations must be where the bundle will look for them.
for (const file of ['server/ops/checkpoint-worker.cjs', 'server/mail/mail-worker.cjs', 'server/mail/qr-png.cjs', 'server/db/migrations']) {
  if (!fs.existsSync(path.join(root, file))) throw new Error(`build-server: ${file} is missing`);
}
const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.js'));
process.stdout.write(
  `built ${outputs.map(([f, o]) => `${path.relative(root, path.resolve(root, f))} (${(o.bytes / 1024).toFixed(0)} KB)`).join(', ')} in ${Date.now() - started} ms\n`,
);
