import { defineConfig } from 'vite';

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
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
});
