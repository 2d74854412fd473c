import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, transformWithOxc, type Plugin } from 'vite';

/**
 * Builds renderer/sw.ts into `sw.js` beside index.html, with the precache list (every file of the build but
 * the worker itself: index.html, hashed scripts and styles, the decoder worker, the manifest and icons from
 * renderer/public) and a version (SHA-256 over each file's name and bytes) written in. A new build with any
 * changed byte is a new worker with a new cache; an unchanged build is the same worker, so nothing
 * reinstalls. Hand-written rather than vite-plugin-pwa/Workbox: the shell is a handful of files, the rule
 * "never cache the API" is easiest to audit in ~80 lines, the worker needs no inline registration script
 * (which the CSP refuses), and it adds no dependency tree to a kiosk build.
 */
function kioskServiceWorker(): Plugin {
  let root = '';
  let publicDir = '';
  return {
    name: 'doorstep-kiosk-service-worker',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      root = config.root;
      publicDir = config.publicDir;
    },
    async generateBundle(_options, bundle) {
      const files = new Map<string, Uint8Array | string>();
      for (const [name, item] of Object.entries(bundle)) {
        if (name.endsWith('.map')) continue;
        files.set(name, item.type === 'chunk' ? item.code : item.source);
      }
      const walk = (dir: string, prefix: string): void => {
        if (!publicDir || !fs.existsSync(dir)) return;
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          if (entry.name.startsWith('.')) continue;
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`);
          else files.set(`${prefix}${entry.name}`, fs.readFileSync(full));
        }
      };
      walk(publicDir, '');
      files.delete('sw.js');
      const names = [...files.keys()].sort();
      const hash = createHash('sha256');
      for (const name of names) hash.update(name).update('\0').update(files.get(name)!).update('\0');
      const version = hash.digest('hex').slice(0, 16);
      const source = fs.readFileSync(path.join(root, 'sw.ts'), 'utf8');
      const { code } = await transformWithOxc(source, 'sw.ts', { lang: 'ts', target: 'es2022' });
      const out = code.replace('__KIOSK_PRECACHE__', JSON.stringify(names)).replace('__KIOSK_VERSION__', JSON.stringify(version));
      if (out.includes('__KIOSK_')) throw new Error('sw.ts: a build-time placeholder was not replaced');
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: out });
    },
  };
}

/**
 * The kiosk renderer. `base: './'` makes every asset URL relative, so one build works at `{base}/kiosk/` on
 * the server and at `app://kiosk/` inside the Electron shell.
 */
export default defineConfig({
  root: 'renderer',
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Source maps stay out of the kiosk build: nothing to fetch at the door, nothing to leak.
    sourcemap: false,
    // No inline modulepreload polyfill: the CSP allows no inline script.
    modulePreload: { polyfill: false },
  },
  worker: { format: 'es' },
  plugins: [kioskServiceWorker()],
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
});
