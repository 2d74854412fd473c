import './zod-setup.ts';
import { getDoorstep } from '../shared/ipc.ts';
import { ShellPins } from '../shared/ipc-pins.ts';
import { CheckinService } from './checkin/checkin-service.ts';
import { openKioskDb, type KioskDb } from './store/db.ts';
import { getDeviceId, getLanguage, getSettings } from './store/meta.ts';
import { SyncEngine } from './sync/engine.ts';
import { probeEarly } from './sync/pairing.ts';
import { readPairing } from '../shared/checkin/pairing.ts';
import { KioskApp } from './ui/app.ts';
import { registerKioskServiceWorker } from './sw-register.ts';
import type { Lang } from '../shared/lang.ts';
import { translator } from './ui/i18n.ts';
import type { KioskContext } from './ui/context.ts';

/** Inside the Electron shell the installation's device ID lives outside the page's storage; prefer it. */
async function resolveDeviceId(db: KioskDb): Promise<string> {
  const shell = getDoorstep();
  if (shell) {
    try {
      const info = await shell.getAppInfo();
      await db.meta.put({ key: 'device', value: info.deviceId });
      return info.deviceId;
    } catch (err) {
      console.warn('shell device ID unavailable', err);
    }
  }
  return getDeviceId(db);
}

/** A kiosk opened from a pairing link installs its app shell at the latest this long after it started. */
const SHELL_LATER_MS = 60_000;

async function main(): Promise<void> {
  // Opened from a pairing link: the target's event is read now, while storage opens and the screen is built, for
  // the pairing question to take (sync/pairing.ts probeEarly). Not in the Electron shell, which pins a candidate
  // server's certificate before the kiosk first connects to it (app.ts pair).
  const pairingLink = /[#&]pair=/.test(location.hash);
  if (getDoorstep() === null && pairingLink) {
    const read = readPairing(location.hash);
    if (read.kind === 'ok') probeEarly(read.payload);
  }
  // The app shell for offline reloads and cold starts; never waits on it. Opened from a pairing link, once the
  // first download is complete (or after SHELL_LATER_MS): installing fetches and stores the whole app again and,
  // once it controls the page, every request of the download would pass through it (issue 22).
  let shell = false;
  const registerShell = () => {
    if (shell) return;
    shell = true;
    void registerKioskServiceWorker(undefined, getDoorstep() !== null);
  };
  if (!pairingLink) registerShell();
  else setTimeout(registerShell, SHELL_LATER_MS);
  // Ask the browser not to evict the cache and the queue under storage pressure.
  void navigator.storage?.persist?.();
  const db = openKioskDb();
  const deviceId = await resolveDeviceId(db);
  let paired = await getSettings(db);
  // In the Electron shell: the paired server's certificate fingerprint is pinned before anything connects to
  // it, and follows every change of pairing (a new pairing, unpairing).
  const pins = new ShellPins(getDoorstep(), () => paired);
  await pins.apply(paired);
  const settings = {
    get current() {
      return paired;
    },
    set current(next) {
      paired = next;
      void pins.apply(next);
    },
  };
  const engine = new SyncEngine({ db, deviceId, settings: () => settings.current });
  engine.events.on((e) => {
    if (e.type === 'ready') registerShell();
  });
  const service = new CheckinService({ db, engine, deviceId, settings: () => settings.current });
  const lang: Lang = (await getLanguage(db)) ?? (navigator.language.toLowerCase().startsWith('et') ? 'et' : 'en');
  const ctx: KioskContext = { db, engine, service, deviceId, settings, lang, t: translator(lang) };
  const app = new KioskApp(ctx, pins);
  await app.start();
  window.addEventListener('online', () => void engine.syncNow());
  window.addEventListener('offline', () => engine.noteNetworkFailure('the browser reports no network'));
  await engine.start();
}

void main();
