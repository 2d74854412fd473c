import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { pairingLink } from '../../shared/checkin/pairing.ts';
import { FakeDoorServer } from '../renderer/fake-door-server.ts';
import { launchKiosk } from './browser.ts';
import { startFakeHttpServer } from './fake-http-server.ts';
import { realBackend, type Backend } from './backends.ts';
import { TEST_PIN, confirmPairing, cutNetwork, firstQueuedScanAt, openStaff, waitFor, waitReady, wedgeScan } from './kiosk-page.ts';
import { kioskSuite } from './kiosk-suite.ts';

/**
 * Issue 12 items 5, 6, 7 and 9 in headless Chromium: the door's main screen (counters, the last scans, the
 * conflict line on the kiosk that lost), the supervisor PIN in front of the staff tools (set at pairing, wrong
 * PINs lock the pad, e-mails only behind it), check-out asks first, the preflight panel (clock skew against
 * the server's Date, the scanner test), and the Estonian texts, including a refusal by the server.
 */

const s = kioskSuite('kiosk-main-e2e-');

/** A door PC with a barcode scanner only (no camera): scans are typed by the wedge. */
async function open(name: string): Promise<Page> {
  const page = await s.track(await launchKiosk(path.join(s.work, name), 'no-camera'));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${s.kiosk.base}/kiosk/`);
  // The app has started once it has translated the page.
  await page.waitForFunction(() => document.title === 'Doorstep door' || document.title === 'Doorstep uks');
  return page;
}

/** A keyboard-wedge scan: the code typed fast, then Enter; waits for its verdict and dismisses it. */
async function scan(page: Page, code: string): Promise<{ verdict: string; tone: string; headline: string; detail: string }> {
  const shown = page.waitForFunction(() => !document.getElementById('verdict')!.hidden, null, { timeout: 15_000 });
  await wedgeScan(page, code);
  await shown;
  const v = await page.evaluate(() => {
    const el = document.getElementById('verdict')!;
    return {
      verdict: el.dataset.verdict ?? '',
      tone: el.dataset.tone ?? '',
      headline: document.getElementById('verdict-headline')!.textContent ?? '',
      detail: document.getElementById('verdict-detail')!.textContent ?? '',
    };
  });
  await page.locator('#verdict').click();
  return v;
}

const count = (page: Page, id: string) => page.locator(`#${id}`).getAttribute('data-value').then(Number);
const pending = (page: Page) => page.locator('#pending').getAttribute('data-count').then(Number);

function wrongCode(url: string): string {
  const u = new URL(url);
  u.searchParams.set('security_code', 'ffffffffffff');
  return u.toString();
}

describe('the door kiosk main screen (headless Chromium)', () => {
  test('counters, last scans, conflict line, supervisor PIN, check-out confirmation, layouts', { timeout: 240_000 }, async () => {
    const backend: Backend = await realBackend(5);
    try {
      const [a1, a2, a3, a4] = backend.attendees;
      const page = await open('main');

      // Pairing by link asks for a supervisor PIN to set; it cannot be skipped or mistyped.
      await page.goto(pairingLink(s.kiosk.base, { url: backend.root, api_key: backend.apiKey, event_id: backend.eventId }));
      await page.locator('#pair-confirm[data-state="ask"]').waitFor();
      assert.equal(await page.locator('#pair-confirm').getAttribute('data-pin'), 'set');
      await page.locator('#pc-ok').click();
      assert.equal(await page.locator('#pair-confirm').isVisible(), true, 'no PIN: not paired');
      await page.locator('#pc-pin-1').fill(TEST_PIN);
      await page.locator('#pc-pin-2').fill('1357');
      await page.locator('#pc-ok').click();
      assert.equal(await page.locator('#pc-pin-error').innerText(), 'The two PINs are not the same');
      assert.equal(await page.locator('#pair-confirm').isVisible(), true);
      await confirmPairing(page);
      await waitReady(page, 60_000);
      const stored = await page.evaluate(
        () =>
          new Promise<unknown>((resolve) => {
            const req = indexedDB.open('doorstep-kiosk');
            req.onsuccess = () => {
              const get = req.result.transaction('meta').objectStore('meta').get('supervisorPin');
              get.onsuccess = () => resolve(get.result?.value);
            };
          }),
      );
      assert.match(JSON.stringify(stored), /"algo":"PBKDF2-SHA-256"/);
      assert.doesNotMatch(JSON.stringify(stored), new RegExp(TEST_PIN), 'only a salted hash is stored');

      // Main screen: counters and the last scans, after two admissions and a wrong code.
      await waitFor('the expected count', async () => (await count(page, 'c-expected')) === 5);
      assert.equal((await scan(page, a1.ticketUrl)).verdict, 'admitted');
      assert.equal((await scan(page, a2.ticketUrl)).verdict, 'admitted');
      const bad = await scan(page, wrongCode(a3.ticketUrl));
      assert.equal(bad.verdict, 'invalid');
      assert.equal(bad.tone, 'bad');
      await waitFor('the counters', async () => (await count(page, 'c-checked-in')) === 2 && (await count(page, 'c-to-come')) === 3);
      await waitFor('three recent scans', async () => (await page.locator('#recent-list li.recent-row').count()) === 3);
      const recent = await page.locator('#recent-list li.recent-row').allInnerTexts();
      assert.match(recent[0], new RegExp(`Ticket #${a3.id}`), 'a wrong code shows no name');
      assert.doesNotMatch(recent[0], /Guest 3/);
      assert.match(recent[0], /Not valid/);
      assert.match(recent[1], /Guest 2/);
      assert.match(recent[1], /Welcome/);
      assert.match(recent[2], /Guest 1/);
      assert.match(recent[2], /\d\d:\d\d:\d\d/);

      // Scan-only: the staff tools need the PIN; e-mails are nowhere on screen until then.
      assert.doesNotMatch(await page.locator('body').innerText(), /@example\.test/);
      await page.locator('#staff-toggle').click();
      await page.locator('#pin-input').fill('0000');
      await page.locator('#modal-ok').click();
      await waitFor('the wrong-PIN message', async () => (await page.locator('#modal-message').innerText()) === 'Wrong PIN: 4 tries left');
      assert.equal(await page.locator('#staff-panel').isVisible(), false);
      await page.locator('#modal-cancel').click();
      await openStaff(page);
      await page.locator('#search').fill('Guest 1');
      await waitFor('a search result', async () => (await page.locator('#results li').count()) > 0);
      assert.match(await page.locator('#results').innerText(), /guest1@example\.test/, 'e-mails in staff mode');

      // Check-out asks first; Cancel changes nothing.
      await page.locator(`#results li[data-attendee="${a1.id}"] button`).click();
      await page.locator('#modal[data-kind="check-out"]').waitFor();
      assert.match(await page.locator('#modal-title').innerText(), /Check out Guest 1\?/);
      await page.locator('#modal-cancel').click();
      assert.equal((await backend.checkin(a1.id)).checkedIn, true);
      await page.locator(`#results li[data-attendee="${a1.id}"] button`).click();
      await page.locator('#modal-ok').click();
      await waitFor('the check-out on the server', async () => !(await backend.checkin(a1.id)).checkedIn);
      // The server's meaning: a guest checked out no longer counts as checked in.
      await waitFor('the counters after check-out', async () => (await count(page, 'c-checked-in')) === 1 && (await count(page, 'c-to-come')) === 4);
      assert.match(await page.locator('#recent-list li.recent-row').first().innerText(), /Checked out/);
      await page.locator('#staff-lock').click();
      assert.doesNotMatch(await page.locator('body').innerText(), /@example\.test/, 'locking hides e-mails again');

      // A conflict: this kiosk admitted Guest 4 offline; Door 2 admitted them 19 s later but reached the server first.
      await cutNetwork(page.context(), backend.base);
      assert.equal((await scan(page, a4.ticketUrl)).verdict, 'admitted');
      await waitFor('the queued scan', async () => (await pending(page)) === 1);
      const ourScanAt = await firstQueuedScanAt(page);
      await backend.admitElsewhere(a4.id, 'Door 2', Math.ceil((ourScanAt + 19_000) / 1000) * 1000);
      await page.context().unrouteAll();
      await openStaff(page);
      await page.locator('#sync-now').click();
      await page.locator('#staff-lock').click();
      await waitFor('the conflict line', async () => page.locator('[data-testid="conflict-line"]').isVisible());
      assert.match(await page.locator('#conflict-text').innerText(), /^Guest 4 was also admitted at Door 2, \d\d:\d\d:\d\d, 19 s after you$/);
      assert.equal(await page.locator('#conflict-badge').getAttribute('data-count'), '1');
      assert.equal(await page.locator('#conflict-line').getAttribute('data-first'), 'ours');

      // Layouts: landscape puts the camera beside the counters and scans; portrait stacks them, using the height.
      const box = async (sel: string) => (await page.locator(sel).boundingBox())!;
      let cam = await box('#camera-view');
      let rec = await box('.recent');
      assert.ok(rec.x >= cam.x + cam.width - 1, 'landscape: recent scans beside the camera');
      await page.setViewportSize({ width: 800, height: 1280 });
      cam = await box('#camera-view');
      rec = await box('.recent');
      const counters = await box('#counters');
      assert.ok(counters.y + counters.height <= cam.y + 1 && cam.y + cam.height <= rec.y + 1, 'portrait: counters, camera, scans top to bottom');
      assert.ok(counters.width > 700 && rec.width > 700, 'portrait: full width');
      assert.ok(rec.y + rec.height <= 1280 && rec.y + rec.height > 1280 * 0.8, 'portrait: down to the bottom of the screen');
      await page.setViewportSize({ width: 1280, height: 800 });

      // Five wrong PINs lock the pad: the right PIN then does not open the staff tools.
      await page.locator('#staff-toggle').click();
      for (let i = 0; i < 5; i++) {
        await page.locator('#pin-input').fill(`11${i}1`);
        await page.locator('#modal-ok').click();
        await waitFor(
          'an answer',
          async () =>
            /Wrong PIN|locked/.test(await page.locator('#modal-message').innerText()) && !((await page.locator('#modal-ok').isDisabled()) && i < 4),
        );
      }
      assert.match(await page.locator('#modal-message').innerText(), /Too many wrong PINs: locked for 1 min|Too many wrong PINs: locked for 60 s/);
      assert.equal(await page.locator('#pin-input').isDisabled(), true);
      await page.locator('#modal-cancel').click();
      await page.locator('#staff-toggle').click();
      await waitFor('the lock shown again', async () => /locked/.test(await page.locator('#modal-message').innerText()));
      assert.equal(await page.locator('#pin-input').isDisabled(), true, 'a reopened pad is still locked');
      assert.equal(await page.locator('#staff-panel').isVisible(), false);
      await page.context().close();
    } finally {
      await backend.close();
    }
  });

  test('Estonian verdicts and a server refusal; preflight warns of a clock 5 min off and tests the scanner', { timeout: 180_000 }, async () => {
    const model = new FakeDoorServer();
    const srv = await startFakeHttpServer(model);
    try {
      const people = model.seed(4);
      model.now = () => Date.now() - 5 * 60_000;
      const page = await open('estonian');
      await page.goto(pairingLink(s.kiosk.base, { url: srv.root, api_key: 'door-key', event_id: model.eventId }));
      await confirmPairing(page);
      await waitReady(page, 60_000);
      // The language is chosen on the paired kiosk and seen applied before anything is read: chosen before the
      // pairing link's navigation, its stored choice could still be in flight when the page loaded again.
      await page.locator('#lang').selectOption('et');
      await waitFor('the Estonian main screen', async () => (await page.locator('.counter:first-child span').innerText()) === 'REGISTREERITUD');

      // Preflight: the clock is 5 min off the server's Date (a warning), the scanner test shows what was read.
      await page.locator('#preflight-toggle').click();
      const skew = page.locator('#preflight-list [data-check="skew"]');
      await waitFor('the skew row', async () => (await skew.getAttribute('data-ok')) === 'false');
      assert.match(await skew.innerText(), /vahe 5 min/);
      assert.equal(await page.locator('#preflight-summary').innerText(), 'Vajab tähelepanu');
      assert.equal(await page.locator('#preflight-list [data-check="cached"]').getAttribute('data-ok'), 'true');
      await wedgeScan(page, model.ticketUrl(people[3]));
      await waitFor('the scanner test', async () => (await page.locator('#preflight-scan').innerText()).includes(`ticket_id=${people[3].id}`));
      assert.match(await page.locator('#preflight-scan').innerText(), /^Luges vöötkoodilugeja: /);
      assert.equal(model.attendees.get(people[3].id)!.checkin, null, 'the scanner test checks nobody in');
      await page.locator('#preflight-close').click();

      // Verdicts in Estonian.
      const welcome = await scan(page, model.ticketUrl(people[0]));
      assert.equal(welcome.headline, 'Tere tulemast');
      assert.equal(welcome.tone, 'ok');
      const invalid = await scan(page, wrongCode(model.ticketUrl(people[1])));
      assert.equal(invalid.headline, 'Ei kehti');
      assert.equal(invalid.detail, 'Turvakood ei klapi');
      // The server refuses what the cache still has as paid (refunded since the download): said in Estonian.
      model.attendees.get(people[2].id)!.orderStatus = 'refunded';
      const refused = await scan(page, model.ticketUrl(people[2]));
      assert.equal(refused.headline, 'Ei kehti');
      assert.equal(refused.detail, 'Tellimus pole lõpetatud');
      await waitFor('Estonian recent scans', async () => (await page.locator('#recent-list').innerText()).includes('Tere tulemast'));
      assert.equal(await page.locator('.counter:first-child span').innerText(), 'REGISTREERITUD');
      await page.context().close();
    } finally {
      await srv.close();
    }
  });
});
