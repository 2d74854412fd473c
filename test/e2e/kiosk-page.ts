import type { BrowserContext, Page } from 'playwright-core';

/** The supervisor PIN the e2e tests set when they pair a kiosk. */
export const TEST_PIN = '2468';

/**
 * Confirms the open pairing question the way a supervisor does: where it asks for a supervisor PIN (a first
 * pairing, another server or event), types it twice, then presses the confirm button.
 */
export async function confirmPairing(page: Page, pin = TEST_PIN): Promise<void> {
  await page.locator('#pair-confirm[data-state="ask"]').waitFor();
  if ((await page.locator('#pair-confirm').getAttribute('data-pin')) === 'set') {
    await page.locator('#pc-pin-1').fill(pin);
    await page.locator('#pc-pin-2').fill(pin);
  }
  await page.locator('#pc-ok').click();
}

/** Opens the staff tools with the supervisor PIN. */
export async function openStaff(page: Page, pin = TEST_PIN): Promise<void> {
  await page.locator('#staff-toggle').click();
  await page.locator('#pin-input').waitFor({ state: 'visible' });
  await page.locator('#pin-input').fill(pin);
  await page.locator('#modal-ok').click();
  await page.locator('#staff-panel').waitFor({ state: 'visible' });
}

/**
 * A barcode scanner (keyboard wedge) reading `code`: every key and the final Enter dispatched in one go, as a
 * scanner sends them, so a busy test machine cannot split the code with a pause between keys.
 */
export async function wedgeScan(page: Page, code: string): Promise<void> {
  await page.evaluate((text) => {
    (document.activeElement as HTMLElement | null)?.blur();
    for (const key of [...text, 'Enter']) document.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  }, code);
}

/** Polls `probe` until it answers something truthy (returned), or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | false | null | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Waits until the kiosk has the whole attendee list (the status bar says ready). */
export async function waitReady(page: Page, timeout: number): Promise<void> {
  await page.waitForFunction(() => document.getElementById('status-bar')?.dataset.ready === 'true', null, { timeout });
}

/** The browser's requests to `base` fail as with the network cut (until `ctx.unrouteAll()`). */
export async function cutNetwork(ctx: BrowserContext, base: string): Promise<void> {
  await ctx.route(
    (url) => url.href.startsWith(base),
    (route) => route.abort('internetdisconnected'),
  );
}

/** The scan time of the first scan queued in the kiosk's outbox (IndexedDB). */
export function firstQueuedScanAt(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const req = indexedDB.open('doorstep-kiosk');
        req.onsuccess = () => {
          const all = req.result.transaction('outbox').objectStore('outbox').getAll();
          all.onsuccess = () => resolve(all.result[0].scanAt);
        };
      }),
  );
}
