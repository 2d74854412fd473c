import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { pairingLink, type PairingPayload } from '../../shared/checkin/pairing.ts';
import { FakeDoorServer } from '../renderer/fake-door-server.ts';
import { startFakeHttpServer, type FakeHttpServer } from './fake-http-server.ts';
import { confirmPairing, cutNetwork, openStaff, waitFor, waitReady, wedgeScan as burstScan } from './kiosk-page.ts';
import { kioskSuite, launchDoorPc } from './kiosk-suite.ts';

/**
 * Issue 10 item 9 in the real page: a pairing link opened in a paired kiosk (the tab already open, only the
 * hash changes) shows the target server and event and what it replaces, and changes nothing until staff
 * confirm; Cancel keeps the old pairing; the hash leaves the address bar either way; scans waiting for the
 * old server block the replacement until they are uploaded there.
 *
 * The hostile server is reached by a name outside the local network (mapped to 127.0.0.1 inside Chromium
 * only), so the page must flag plain http to it.
 */

const HOSTILE_HOST = 'door-attacker.example';
const s = kioskSuite('kiosk-pair-e2e-');

/** A door PC with a barcode scanner and no camera. */
async function launch(profile: string): Promise<{ ctx: BrowserContext; page: Page }> {
  return launchDoorPc(s, profile, [`--host-resolver-rules=MAP ${HOSTILE_HOST} 127.0.0.1`]);
}

/** Two servers: the venue's own, and one an attacker would point the kiosk at. */
async function servers(): Promise<{ venue: FakeHttpServer; hostile: FakeHttpServer; venuePairing: PairingPayload; hostilePairing: PairingPayload }> {
  const venue = await startFakeHttpServer(new FakeDoorServer(10));
  venue.model.seed(3);
  const hostileModel = new FakeDoorServer(77, 78);
  hostileModel.keys = new Set(['attacker-key']);
  hostileModel.eventTitle = 'Harvest night';
  const hostile = await startFakeHttpServer(hostileModel);
  const port = new URL(hostile.base).port;
  return {
    venue,
    hostile,
    venuePairing: { url: venue.root, api_key: 'door-key', event_id: 10 },
    hostilePairing: { url: `http://${HOSTILE_HOST}:${port}/en/wp-json/`, api_key: 'attacker-key', event_id: 77 },
  };
}

/** The pairing stored in the page's IndexedDB. */
function storedPairing(page: Page): Promise<PairingPayload | null> {
  return page.evaluate(
    () =>
      new Promise<PairingPayload | null>((resolve, reject) => {
        const open = indexedDB.open('doorstep-kiosk');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('meta').objectStore('meta').get('settings');
          get.onsuccess = () => {
            resolve((get.result as { value: PairingPayload } | undefined)?.value ?? null);
            open.result.close();
          };
        };
      }),
  );
}

const dialog = (page: Page) => page.locator('#pair-confirm');
const pending = async (page: Page) => Number(await page.locator('#pending').getAttribute('data-count'));

/** Opens the kiosk by the venue's pairing link and confirms it; returns once the list is cached. */
async function pairWithVenue(page: Page, venuePairing: PairingPayload): Promise<void> {
  await page.goto(pairingLink(s.kiosk.base, venuePairing));
  await page.locator('#pair-confirm[data-state="ask"]').waitFor();
  assert.equal(await page.locator('#pc-server').innerText(), new URL(venuePairing.url).host);
  assert.equal(await page.locator('#pc-event').innerText(), 'Door test event');
  assert.equal(await dialog(page).getAttribute('data-kind'), 'first');
  await confirmPairing(page);
  await waitReady(page, 30_000);
  await waitFor('the event title', async () => (await page.locator('#event-title').innerText()) === 'Door test event');
}

describe('kiosk pairing asks before replacing (headless Chromium)', () => {
  test('a pairing link for another server opened in a paired kiosk is shown, Cancel keeps the pairing, the hash is gone', {
    timeout: 120_000,
  }, async () => {
    const { venue, hostile, venuePairing, hostilePairing } = await servers();
    try {
      const { ctx, page } = await launch('cancel');
      await pairWithVenue(page, venuePairing);
      assert.equal(new URL(page.url()).hash, '', 'the venue key left the address bar');
      assert.deepEqual(await storedPairing(page), venuePairing);

      // The attacker's link, opened into the tab that already shows the kiosk: only the hash changes.
      await page.goto(pairingLink(s.kiosk.base, hostilePairing));
      await page.locator('#pair-confirm[data-state="ask"]').waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the hash is cleared while the question is open');
      const port = new URL(hostile.base).port;
      const venueHost = new URL(venue.base).host;
      assert.equal(await dialog(page).getAttribute('data-kind'), 'replace');
      assert.equal(await page.locator('#pc-server').innerText(), `${HOSTILE_HOST}:${port}`);
      assert.equal(await page.locator('#pc-scheme').innerText(), 'http: not encrypted');
      assert.ok(await page.locator('#pc-server-flag').isVisible(), 'plain http to a non-local address is flagged');
      assert.match(await page.locator('#pc-server-flag').innerText(), /unencrypted/);
      assert.equal(await page.locator('#pc-event').innerText(), 'Harvest night');
      assert.match(await page.locator('#pc-event-note').innerText(), /starts 2026-11-22 18:00 · Event #77/);
      const replaces = await page.locator('#pc-replaces').innerText();
      assert.match(replaces, new RegExp(`replaces the current pairing: ${venueHost.replace(/\./g, '\\.')} / Door test event`));
      assert.match(replaces, new RegExp(`check-ins will go to ${HOSTILE_HOST}:${port} instead of ${venueHost.replace(/\./g, '\\.')}`));
      assert.match(await page.locator('#pc-queue').innerText(), /Every check-in has reached/);
      assert.equal(await page.locator('#pc-ok').innerText(), `Pair with ${HOSTILE_HOST}:${port}`);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'pc-cancel', 'Cancel is the default');
      assert.equal(
        await page
          .locator('#pair-confirm')
          .innerText()
          .then((t) => t.includes('attacker-key')),
        false,
        'the key is never shown',
      );
      await page.screenshot({ path: '/tmp/kiosk-pair-confirm.png' });

      await page.locator('#pc-cancel').click();
      await waitFor('the question to close', async () => !(await dialog(page).isVisible()));
      assert.deepEqual(await storedPairing(page), venuePairing);
      assert.equal(await page.locator('#event-title').innerText(), 'Door test event');
      // The hostile server was asked for its event once (with its own key) and for nothing else.
      assert.equal(hostile.model.requests, 1);

      // A reload does not ask again, and the kiosk still works for the venue.
      await page.reload();
      await waitReady(page, 30_000);
      assert.equal(await dialog(page).isVisible(), false);
      assert.deepEqual(await storedPairing(page), venuePairing);
      await openStaff(page);
      await page.locator('#sync-now').click();
      await waitFor('a sync with the venue', async () => (await page.locator('#status-bar').getAttribute('data-last-sync')) !== '');
      assert.equal(hostile.model.requests, 1);
      await ctx.close();
    } finally {
      await venue.close();
      await hostile.close();
    }
  });

  test('scans waiting for the old server block the replacement until uploaded there; then confirm pairs', { timeout: 120_000 }, async () => {
    const { venue, hostile, venuePairing, hostilePairing } = await servers();
    try {
      const { ctx, page } = await launch('blocked');
      await pairWithVenue(page, venuePairing);
      const [guest] = [...venue.model.attendees.values()];

      // The venue server drops off the network; a ticket scanned with the barcode scanner is queued.
      await cutNetwork(ctx, venue.base);
      await burstScan(page, venue.model.ticketUrl(guest));
      await waitFor('one queued scan', async () => (await pending(page)) === 1);
      await page.locator('#verdict').click();

      await page.goto(pairingLink(s.kiosk.base, hostilePairing));
      await page.locator('#pair-confirm[data-state="blocked"]').waitFor();
      assert.equal(await page.locator('#pc-ok').isDisabled(), true);
      assert.ok(await page.locator('#pc-upload').isVisible());
      assert.match(
        await page.locator('#pc-queue').innerText(),
        new RegExp(`Check-ins not yet uploaded to ${new URL(venue.base).host.replace(/\./g, '\\.')}: 1\\.`),
      );
      await page.screenshot({ path: '/tmp/kiosk-pair-blocked.png' });
      await page.locator('#pc-ok').click({ force: true });
      assert.deepEqual(await storedPairing(page), venuePairing, 'a disabled confirm does nothing');

      // Network back: upload to the venue from the question itself, then the replacement may go ahead.
      await ctx.unrouteAll();
      await page.locator('#pc-upload').click();
      await page.locator('#pair-confirm[data-state="ask"]').waitFor({ timeout: 30_000 });
      assert.equal(venue.model.attendees.get(guest.id)?.checkin !== null, true, 'the scan reached the server it was made for');
      assert.equal(hostile.model.log.length, 0, 'no check-in went to the new server');
      await confirmPairing(page);
      await waitFor('the new event title', async () => (await page.locator('#event-title').innerText()) === 'Harvest night');
      assert.deepEqual(await storedPairing(page), hostilePairing);
      assert.equal(hostile.model.log.length, 0);
      await ctx.close();
    } finally {
      await venue.close();
      await hostile.close();
    }
  });
});
