import assert from 'node:assert/strict';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { pairingLink } from '../../shared/checkin/pairing.ts';
import { launchKiosk } from './browser.ts';
import type { Backend } from './backends.ts';
import { writeY4m, type Shot } from './y4m.ts';
import { confirmPairing, cutNetwork, openStaff, waitFor } from './kiosk-page.ts';
import { describeAgainstBackends, kioskSuite } from './kiosk-suite.ts';

/**
 * The kiosk in headless Chromium with a fake camera playing QR codes: pair by scanning (and confirming), download, scan
 * online; scan with the network cut and see the queue drain when it returns; close the browser with scans
 * queued and see them uploaded after relaunch. The kiosk is served from its own origin, as in Electron.
 */

const FPS = 5;
const s = kioskSuite('kiosk-e2e-');

function video(name: string, shots: Shot[]): string {
  const file = path.join(s.work, `${name}.y4m`);
  writeY4m(file, shots, FPS);
  return file;
}

/** Console messages about the Content-Security-Policy: the kiosk must run without tripping it. */
const cspViolations: string[] = [];

async function open(profile: string, y4m: string, offlineRoot?: string): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await launchKiosk(profile, y4m);
  const page = await s.track(ctx);
  if (offlineRoot) await cutNetwork(ctx, offlineRoot);
  page.on('console', (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.goto(`${s.kiosk.base}/kiosk/`);
  return { ctx, page };
}

const pending = async (page: Page) => Number(await page.locator('#pending').getAttribute('data-count'));
const deviceOf = async (page: Page) => (await page.locator('#device').getAttribute('data-device-id')) ?? '';

async function scenario(backend: Backend): Promise<void> {
  const [a1, a2, a3, a4, a5, a6] = backend.attendees;
  const profile = path.join(s.work, `profile-${backend.name.replace(/\W+/g, '-')}`);
  const pairing = pairingLink(s.kiosk.base, { url: backend.root, api_key: backend.apiKey, event_id: backend.eventId });

  // 1. Pair by scanning the pairing QR, download the list, scan a ticket online.
  let { ctx, page } = await open(
    profile,
    video('pair', [
      { text: null, frames: 3 },
      { text: pairing, frames: 8 },
      { text: null, frames: 12 },
      { text: a1.ticketUrl, frames: 8 },
      { text: null, frames: 40 },
    ]),
  );
  // Every pairing is shown and asked first (issue 10): the target server and event, then staff confirm.
  await page.locator('#pair-confirm[data-state="ask"]').waitFor();
  assert.equal(await page.locator('#pc-server').innerText(), new URL(backend.root).host);
  await confirmPairing(page);
  await waitFor('the first check-in on the server', async () => (await backend.checkin(a1.id)).checkedIn);
  const deviceId = await deviceOf(page);
  assert.equal((await backend.checkin(a1.id)).deviceId, deviceId);
  await waitFor('the admitted verdict', async () => (await page.locator('#verdict').getAttribute('data-verdict')) === 'admitted');
  await waitFor(
    'the whole list cached',
    async () => (await page.locator('#last-sync').innerText()).length > 0 && !(await page.locator('#progress').isVisible()),
  );
  await ctx.close();

  // 2. Network cut (route interception): three tickets are admitted offline and queued.
  ({ ctx, page } = await open(
    profile,
    video('offline', [
      { text: a2.ticketUrl, frames: 6 },
      { text: null, frames: 4 },
      { text: a3.ticketUrl, frames: 6 },
      { text: null, frames: 4 },
      { text: a4.ticketUrl, frames: 6 },
      { text: null, frames: 30 },
    ]),
    backend.root,
  ));
  await waitFor('three queued scans', async () => (await pending(page)) === 3);
  assert.equal(await page.locator('#verdict').getAttribute('data-mode'), 'offline');
  for (const a of [a2, a3, a4]) assert.equal((await backend.checkin(a.id)).checkedIn, false);
  // Network back: staff press "Sync now" rather than wait for the backoff timer.
  await ctx.unrouteAll();
  await openStaff(page);
  await page.locator('#sync-now').click();
  await waitFor('the queue to drain', async () => (await pending(page)) === 0);
  for (const a of [a2, a3, a4]) assert.deepEqual(await backend.checkin(a.id), { checkedIn: true, deviceId });
  assert.equal(await page.locator('#conflicts li').first().innerText(), 'No conflicts');
  await ctx.close();

  // 3. Scans queued offline, browser closed before they are sent: after relaunch none is lost.
  ({ ctx, page } = await open(
    profile,
    video('queued', [
      { text: a5.ticketUrl, frames: 6 },
      { text: null, frames: 4 },
      { text: a6.ticketUrl, frames: 6 },
      { text: null, frames: 30 },
    ]),
    backend.root,
  ));
  await waitFor('two queued scans', async () => (await pending(page)) === 2);
  await ctx.close();
  ({ ctx, page } = await open(profile, video('blank', [{ text: null, frames: 10 }])));
  await waitFor('the queued scans on the server', async () => (await backend.checkin(a5.id)).checkedIn && (await backend.checkin(a6.id)).checkedIn);
  await waitFor('an empty queue', async () => (await pending(page)) === 0);
  assert.equal((await backend.checkin(a6.id)).deviceId, deviceId);
  await ctx.close();
  assert.deepEqual(cspViolations, []);
}

describeAgainstBackends('kiosk end to end (headless Chromium, fake camera)', s, { attendees: 6, timeout: 180_000 }, scenario);
