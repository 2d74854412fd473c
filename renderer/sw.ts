/*
 * The kiosk's service worker: serves the app shell (the built HTML, scripts, styles, decoder worker, manifest
 * and icons) from a versioned cache, so a reload or a cold start with no network still opens the kiosk.
 *
 * Only the files of the precache list are ever answered from the cache; every other request (above all the
 * door server's API under /wp-json/, on this origin or any other) is left to the network untouched: never
 * cached, never answered by this worker. The list and the version are written into this file at build time
 * (vite.config.ts, `kioskServiceWorker`), so a new build is a byte-different worker: the browser installs it,
 * it fills a new cache, and on activation every older cache of this scope is deleted.
 *
 * Self-contained on purpose (no imports): it is built on its own, outside the page's bundle.
 */

/** Paths relative to the worker's scope, e.g. `index.html`, `assets/index-abc123.js`. Injected at build. */
declare const __KIOSK_PRECACHE__: string[];
/** A hash of every precached file's name and bytes. Injected at build. */
declare const __KIOSK_VERSION__: string;

// The DOM and WebWorker libraries cannot share one program, so the few service-worker types used are
// spelled out here.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Response | Promise<Response>): void;
}
interface ServiceWorkerScope {
  readonly registration: { readonly scope: string };
  readonly location: Location;
  readonly clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
}

const sw = self as unknown as ServiceWorkerScope;
const PRECACHE: readonly string[] = __KIOSK_PRECACHE__;
const SCOPE = sw.registration.scope;
/** One cache family per scope (several kiosks may share an origin under different base paths). */
const FAMILY = `doorstep-kiosk:${SCOPE}:`;
const CACHE = `${FAMILY}${__KIOSK_VERSION__}`;
const SHELL = new Set(PRECACHE);

/** The precache entry a request maps to, or null when this worker must leave it to the network. */
function shellEntry(request: Request): string | null {
  if (request.method !== 'GET') return null;
  const url = new URL(request.url);
  const scope = new URL(SCOPE);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return null;
  // The door server's API is never the app shell, whatever the list says.
  if (url.pathname.includes('/wp-json/')) return null;
  const rel = url.pathname.slice(scope.pathname.length);
  // Opening the kiosk (`/kiosk/`, `/kiosk/index.html`, with a query or a #pair= link) is the shell's page.
  if (request.mode === 'navigate' && (rel === '' || rel === 'index.html')) return 'index.html';
  return SHELL.has(rel) ? rel : null;
}

sw.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // cache: 'reload' so the HTTP cache cannot hand an older build's file to the new cache.
      await cache.addAll(PRECACHE.map((rel) => new Request(new URL(rel, SCOPE).href, { cache: 'reload', credentials: 'same-origin' })));
      // A kiosk tab never closes: waiting for it to would mean the update never applies.
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(FAMILY) && name !== CACHE) await caches.delete(name);
      }
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('fetch', (event) => {
  const entry = shellEntry(event.request);
  if (entry === null) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(new URL(entry, SCOPE).href);
      // A miss (storage evicted under pressure) falls back to the network as if there were no worker.
      return hit ?? fetch(event.request);
    })(),
  );
});
