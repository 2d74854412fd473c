import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ticketCodeUrl } from '../../shared/checkin/ticket-code.ts';
import { launchKiosk } from './browser.ts';
import { realBackend } from './backends.ts';
import { TEST_PIN, cutNetwork, openStaff, waitFor, waitReady, wedgeScan } from './kiosk-page.ts';
import { kioskSuite } from './kiosk-suite.ts';

/**
 * Issue 24 in headless Chromium against the real server: pairing by hand from the site's own address (and what
 * a wrong key or an unreachable server says), scans refused at the door in the server's check-in log with their
 * reason and device, counters that equal the server's after a check-out here and at another door, and the
 * preflight panel, header pill, staff list and "Sync now" while offline and once the key is revoked.
 */

const s = kioskSuite('kiosk-staff-e2e-');

async function open(name: string): Promise<Page> {
  const page = await s.track(await launchKiosk(path.join(s.work, name), 'no-camera'));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${s.kiosk.base}/kiosk/`);
  await page.waitForFunction(() => document.title === 'Doorstep door');
  return page;
}

/** A keyboard-wedge scan; waits for its verdict, returns it and dismisses it. */
async function scan(page: Page, code: string): Promise<string> {
  const shown = page.waitForFunction(() => !document.getElementById('verdict')!.hidden, null, { timeout: 15_000 });
  await wedgeScan(page, code);
  await shown;
  const v = await page.evaluate(() => {
    const el = document.getElementById('verdict')!;
    return `${el.dataset.verdict ?? ''}${el.dataset.reason ? `/${el.dataset.reason}` : ''}`;
  });
  await page.locator('#verdict').click();
  return v;
}

/** A keyboard-wedge scan with the preflight panel open: waits for the scanner test to show it, returns its verdict. */
async function scannerTest(page: Page, code: string): Promise<string> {
  await wedgeScan(page, code);
  await waitFor('the scanner test', async () => (await page.locator('#preflight-scan .pf-scan-raw').allTextContents())[0] === code);
  return page.locator('#preflight-scan .pf-scan-verdict').innerText();
}

async function pairByHand(page: Page, url: string, key: string, eventId: number): Promise<void> {
  await page.locator('#pair-url').fill(url);
  await page.locator('#pair-key').fill(key);
  await page.locator('#pair-event').fill(String(eventId));
  await page.locator('#pair-form button[type="submit"]').click();
}

const count = (page: Page, id: string) => page.locator(`#${id}`).getAttribute('data-value').then(Number);
const preflightRow = (page: Page, id: string) => page.locator(`#preflight-list [data-check="${id}"]`);

async function syncNow(page: Page): Promise<string> {
  await page.locator('#sync-now').click();
  return waitFor('the outcome of Sync now', async () => {
    const result = await page.locator('#sync-result').getAttribute('data-result');
    return result && result !== 'running' ? result : null;
  });
}

describe('what door staff trip over (issue 24)', () => {
  test('pairing by hand, refused scans in the log, counters, preflight and a revoked key', { timeout: 240_000 }, async () => {
    const backend = await realBackend(4);
    try {
      const [a1, a2, a3, a4] = backend.attendees;
      const page = await open('staff');
      await waitFor(
        'the unpaired hint',
        async () => (await page.locator('#scan-hint').textContent()) === 'Hold the pairing QR code up to the camera',
      );

      // Pairing by hand: an unreachable server is asked again, never offered a PIN or a "Pair with" button.
      await pairByHand(page, 'http://127.0.0.1:9/', backend.apiKey, backend.eventId);
      await page.locator('#pair-confirm[data-state="unreachable"]').waitFor();
      assert.equal(await page.locator('#pair-confirm').getAttribute('data-pin'), 'none');
      assert.equal(await page.locator('#pc-ok').innerText(), 'Try again');
      assert.match(await page.locator('#pc-event-note').innerText(), /Could not reach this server .*try again/);
      await page.locator('#pc-cancel').click();
      // A wrong key is said to be refused by the server.
      await pairByHand(page, backend.root, 'not-a-key', backend.eventId);
      await page.locator('#pair-confirm[data-state="refused"]').waitFor();
      assert.match(await page.locator('#pc-event-note').innerText(), /The server refused this key/);
      await page.locator('#pc-cancel').click();
      // The site's own address: the interface root is found from its Link header (or wp-json/ under it).
      await pairByHand(page, `${backend.base}/`, backend.apiKey, backend.eventId);
      await page.locator('#pair-confirm[data-state="ask"]').waitFor();
      assert.equal(await page.locator('#pc-server-url').innerText(), backend.root);
      assert.match(await page.locator('#pc-event').innerText(), /Door e2e/);
      await page.locator('#pc-pin-1').fill(TEST_PIN);
      await page.locator('#pc-pin-2').fill(TEST_PIN);
      await page.locator('#pc-ok').click();
      await waitReady(page, 60_000);
      const deviceId = (await page.locator('#device').getAttribute('data-device-id')) ?? '';
      await waitFor('the paired hint', async () => (await page.locator('#scan-hint').textContent()) === 'Hold the ticket QR code up to the camera');

      // Refused scans: garbage, a ticket for another event, a re-scan here. Each lands in the server's log once.
      assert.equal(await scan(page, a1.ticketUrl), 'admitted');
      assert.equal(await scan(page, 'hello world'), 'invalid/unreadable');
      const otherEvent = ticketCodeUrl(backend.base, { attendeeId: 999_999, eventId: backend.eventId + 1000, securityCode: 'abcdef0123' });
      assert.equal(await scan(page, otherEvent), 'invalid/other_event');
      // The same code reads again only after 3 s away (a QR held in view is one scan).
      await new Promise((r) => setTimeout(r, 3500));
      assert.equal(await scan(page, a1.ticketUrl), 'already_here');
      const refused = await waitFor('the refused scans in the server log', async () => {
        const log = (await backend.log()).filter((e) => e.result !== 'accepted');
        return log.length === 3 ? log : null;
      });
      assert.deepEqual(refused, [
        { result: 'rejected', reason: 'unreadable', deviceId, attendeeId: null },
        { result: 'rejected', reason: 'other_event', deviceId, attendeeId: null },
        { result: 'conflict', reason: 'already_here', deviceId, attendeeId: a1.id },
      ]);
      // The last scans keep the verdict's reason.
      await waitFor('four recent scans', async () => (await page.locator('#recent-list li.recent-row').count()) === 4);
      assert.match((await page.locator('#recent-list li.recent-row').allInnerTexts())[1], /Not valid: Ticket for another event/);

      // Counters: the server's "checked in now", after a check-out on this kiosk and one at another door.
      assert.equal(await scan(page, a2.ticketUrl), 'admitted');
      assert.equal(await scan(page, a3.ticketUrl), 'admitted');

      // Preflight while online, opened at once: its scanner test reads the ticket just admitted at the door (the
      // door's 3 s window for one code does not hide it), one not used yet, another event's and garbage, says
      // what each is for this event and checks nobody in (the counters and the server's log below say so too).
      await page.locator('#preflight-toggle').click();
      assert.equal(await scannerTest(page, a3.ticketUrl), 'Read by the barcode scanner: a ticket for this event, already checked in: Guest 3');
      assert.equal(await scannerTest(page, a4.ticketUrl), 'Read by the barcode scanner: a valid ticket for this event: Guest 4');
      assert.equal(await scannerTest(page, otherEvent), 'Read by the barcode scanner: not valid: Ticket for another event');
      assert.equal(await scannerTest(page, 'hello world'), 'Read by the barcode scanner: not valid: Not a ticket code');
      assert.equal(await page.locator('#verdict').isHidden(), true);
      // The event starts years from now, so it is not Ready even with every link up.
      await waitFor('the connection row', async () => (await preflightRow(page, 'connection').getAttribute('data-ok')) === 'true');
      assert.equal(await preflightRow(page, 'key').getAttribute('data-ok'), 'true');
      assert.equal(await preflightRow(page, 'event').getAttribute('data-ok'), 'false');
      assert.match(await preflightRow(page, 'event').innerText(), /starts .*, in \d+ d: this kiosk admits its guests today all the same/);
      await page.locator('#preflight-close').click();

      await openStaff(page);
      await page.locator('#search').fill(String(a1.id));
      await page.locator(`#results li[data-attendee="${a1.id}"] button`).click();
      await page.locator('#modal-ok').click();
      await waitFor('the check-out on the server', async () => !(await backend.checkin(a1.id)).checkedIn);
      await waitFor('the counters after a check-out here', async () => (await count(page, 'c-checked-in')) === (await backend.checkedIn()));
      assert.equal(await count(page, 'c-checked-in'), 2);
      await backend.checkOutElsewhere(a2.id);
      assert.equal(await syncNow(page), 'done');
      assert.match(await page.locator('#sync-result').innerText(), /^Synced at \d\d:\d\d:\d\d$/);
      await waitFor('the counters after a check-out at another door', async () => (await count(page, 'c-checked-in')) === 1);
      assert.equal(await backend.checkedIn(), 1);
      assert.deepEqual([await count(page, 'c-expected'), await count(page, 'c-to-come')], [4, 3]);
      // Synced: nothing the scanner test read was checked in or refused on the server.
      assert.equal((await backend.checkin(a4.id)).checkedIn, false);
      assert.deepEqual(
        (await backend.log()).map((e) => [e.result, e.attendeeId]),
        [
          ['accepted', a1.id],
          ['rejected', null],
          ['rejected', null],
          ['conflict', a1.id],
          ['accepted', a2.id],
          ['accepted', a3.id],
          ['checked_out', a1.id],
          ['checked_out', a2.id],
        ],
      );
      assert.equal(await page.locator('#c-checked-in-note').innerText(), 'now, all doors');
      await page.locator('#staff-lock').click();

      // Offline: preflight is not Ready and says why; the header pill says Offline.
      await cutNetwork(page.context(), backend.base);
      await openStaff(page);
      assert.equal(await syncNow(page), 'offline');
      await page.locator('#staff-lock').click();
      await page.locator('#preflight-toggle').click();
      await waitFor('the offline row', async () => (await preflightRow(page, 'connection').getAttribute('data-ok')) === 'false');
      assert.match(await preflightRow(page, 'connection').innerText(), /offline: the server cannot be reached/);
      assert.equal(await page.locator('#preflight').getAttribute('data-ready'), 'false');
      assert.equal(await page.locator('#preflight-summary').innerText(), 'Needs attention');
      await page.locator('#preflight-close').click();
      assert.equal(await page.locator('#net').getAttribute('data-state'), 'offline');
      await page.context().unrouteAll();

      // The key revoked: Sync now says so, the pill is no longer "Online", the staff list names the key first.
      await backend.revokeKey();
      await openStaff(page);
      assert.equal(await syncNow(page), 'revoked');
      assert.equal(await page.locator('#sync-result').innerText(), "Not synced: the server refused this kiosk's key. Pair it again with a new key.");
      assert.equal(await page.locator('#net').getAttribute('data-state'), 'refused');
      assert.equal(await page.locator('#net').innerText(), 'Key refused');
      await waitFor('the key in the refused list', async () => (await page.locator('#rejected li.key-refused').count()) === 1);
      assert.doesNotMatch(await page.locator('#rejected').innerText(), /Nothing refused/);
      await page.locator('#staff-lock').click();
      await page.locator('#preflight-toggle').click();
      // The row is not ok while the key is unchecked too ("not checked yet: no answer..."): wait for the verdict.
      await waitFor(
        'the key row refused',
        async () =>
          (await preflightRow(page, 'key').getAttribute('data-ok')) === 'false' &&
          !(await preflightRow(page, 'key').locator('.pf-value').innerText()).startsWith('not checked yet'),
      );
      assert.equal(await preflightRow(page, 'key').locator('.pf-value').innerText(), 'refused by the server: pair again with a new key');
      assert.equal(await page.locator('#preflight').getAttribute('data-ready'), 'false');
      await page.context().close();
    } finally {
      await backend.close();
    }
  });
});
