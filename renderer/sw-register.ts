/**
 * Registers the kiosk's service worker (renderer/sw.ts, built to `sw.js` beside index.html), which keeps the
 * app shell so the kiosk opens with no network. Not inside the Electron shell (it loads the same files from
 * disk through app://, and its scheme has no service workers), nor in the dev server (there is no sw.js).
 * Browsers offer service workers only in secure contexts (https, localhost): on plain http to a LAN address
 * `navigator.serviceWorker` is missing and the kiosk needs the network to open (the camera-blocked panel
 * says how to move to https).
 *
 * When a newer build's worker takes over a page the previous worker served, the page reloads once so
 * it runs the new build: this happens right after a reload or start-up, when the browser checks for an update.
 */
export interface ServiceWorkerHost {
  readonly location: { protocol: string };
  readonly navigator: { serviceWorker?: ServiceWorkerContainer };
  reload(): void;
}

export async function registerKioskServiceWorker(
  host: ServiceWorkerHost = { location, navigator, reload: () => location.reload() },
  inShell = false,
): Promise<ServiceWorkerRegistration | null> {
  const container = host.navigator.serviceWorker;
  if (inShell || !container || (host.location.protocol !== 'https:' && host.location.protocol !== 'http:')) return null;
  const hadController = container.controller !== null;
  let reloaded = false;
  container.addEventListener('controllerchange', () => {
    // First install (the page was not controlled): the running page already is the newest build.
    if (!hadController || reloaded) return;
    reloaded = true;
    host.reload();
  });
  try {
    // updateViaCache 'none': the browser checks sw.js itself on every start, never an HTTP-cached copy.
    return await container.register('./sw.js', { scope: './', updateViaCache: 'none' });
  } catch (err) {
    console.warn('service worker not registered: the kiosk will need the network to open', err);
    return null;
  }
}
