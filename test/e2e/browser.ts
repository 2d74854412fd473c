import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium with its background services (component updates, sync, background networking) off. */
export const HEADLESS_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Headless Chromium with a persistent profile (so IndexedDB survives a relaunch) and a fake camera that
 * plays `y4m`. Camera permission is granted up front, as the kiosk shell does for its own origin.
 */
export async function launchKiosk(userDataDir: string, y4m: string | null | 'no-camera'): Promise<BrowserContext> {
  const args = [...HEADLESS_ARGS, '--autoplay-policy=no-user-gesture-required'];
  // 'no-camera': a door PC with only a barcode scanner (and a quiet CPU for measurements).
  if (y4m !== 'no-camera') args.push('--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream');
  if (y4m && y4m !== 'no-camera') args.push(`--use-file-for-fake-video-capture=${y4m}`);
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args,
    permissions: ['camera'],
  });
}
