import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { pairingLink } from '../../shared/checkin/pairing.ts';
import { launchKiosk } from './browser.ts';
import type { Backend } from './backends.ts';
import { writeY4m, type Shot } from './y4m.ts';
import { confirmPairing, waitFor, waitReady } from './kiosk-page.ts';
import { describeAgainstBackends, kioskSuite } from './kiosk-suite.ts';

/**
 * Issue 12 items 2 and 3 in headless Chromium with the fake camera: a ticket held in view for 12 s is one
 * scan and one record on the server (no conflict); a revoked key and a key for another event show the device
 * banner, and valid tickets are still admitted from the cache, never NOT VALID; a key for another event is
 * refused at pairing.
 */

const FPS = 5;
const s = kioskSuite('kiosk-door-e2e-');

function video(name: string, shots: Shot[]): string {
  const file = path.join(s.work, `${name}.y4m`);
  writeY4m(file, shots, FPS);
  return file;
}

/** Opens the kiosk; every verdict it shows is recorded in `window.__verdicts` (kind/reason). */
async function open(profile: string, y4m: string): Promise<Page> {
  const page = await s.track(await launchKiosk(profile, y4m));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __verdicts: string[] }).__verdicts = seen;
    document.addEventListener('DOMContentLoaded', () => {
      const el = document.getElementById('verdict');
      if (!el) return;
      new MutationObserver(() => {
        if (!el.hidden) seen.push(`${el.dataset.verdict}${el.dataset.reason ? `/${el.dataset.reason}` : ''}`);
      }).observe(el, { attributes: true, attributeFilter: ['hidden', 'data-verdict', 'class'] });
    });
  });
  await page.goto(`${s.kiosk.base}/kiosk/`);
  return page;
}

const verdicts = (page: Page) => page.evaluate(() => (window as unknown as { __verdicts: string[] }).__verdicts.slice());

/** Pairs by link, confirmed by staff, and waits for the whole list. */
async function pair(page: Page, backend: Backend, apiKey = backend.apiKey): Promise<void> {
  await page.goto(pairingLink(s.kiosk.base, { url: backend.root, api_key: apiKey, event_id: backend.eventId }));
  await page.locator('#pair-confirm[data-state="ask"]').waitFor();
  await confirmPairing(page);
  await waitReady(page, 60_000);
  await waitFor(
    'the ready line',
    async () => (await page.locator('[data-testid="ready-info"]').getAttribute('data-attendees')) === String(backend.attendees.length),
  );
}

async function scenario(backend: Backend): Promise<void> {
  const [a1, a2, a3] = backend.attendees;
  const slug = backend.name.replace(/\W+/g, '-');

  // 1. A ticket held in view for 12 s: one scan, one record on the server, no conflict.
  const profile = path.join(s.work, `profile-${slug}`);
  let page = await open(profile, video(`held-${slug}`, [{ text: null, frames: 10 }]));
  await pair(page, backend);
  assert.match(await page.locator('[data-testid="ready-info"]').innerText(), new RegExp(`${backend.attendees.length} attendees ready`));
  await page.context().close();
  page = await open(
    profile,
    video(`held-${slug}`, [
      { text: null, frames: 5 },
      { text: a1.ticketUrl, frames: 12 * FPS },
      { text: null, frames: 200 },
    ]),
  );
  await waitFor('the check-in on the server', async () => (await backend.checkin(a1.id)).checkedIn);
  // Let the code stay in view to the end of its 12 s, and 3 s more.
  await new Promise((r) => setTimeout(r, 16_000));
  assert.deepEqual(await backend.scans(a1.id), ['accepted'], 'one record, no conflict');
  assert.deepEqual(await verdicts(page), ['admitted'], 'one verdict for the whole time in view');
  await page.context().close();

  // 2. Key revoked: the device banner; valid tickets are still admitted from the cache (queued), never NOT VALID.
  await backend.revokeKey();
  page = await open(
    profile,
    video(`revoked-${slug}`, [
      { text: null, frames: 10 },
      { text: a2.ticketUrl, frames: 6 },
      { text: null, frames: 200 },
    ]),
  );
  await waitFor('the device banner', async () => (await page.locator('[data-testid="device-banner"]').getAttribute('data-problem')) === 'revoked');
  assert.equal(await page.locator('[data-testid="device-banner"]').isVisible(), true);
  assert.match(await page.locator('[data-testid="device-banner"]').innerText(), /This kiosk needs attention: .*key/);
  await waitFor('a verdict', async () => (await verdicts(page)).length > 0);
  assert.deepEqual(await verdicts(page), ['admitted']);
  assert.equal(Number(await page.locator('#pending').getAttribute('data-count')), 1, 'kept for the new key');
  assert.equal((await backend.checkin(a2.id)).checkedIn, false);
  await page.context().close();

  // 3. A key for another event is refused at pairing, with the reason.
  const otherKey = await backend.otherEventKey();
  const fresh = path.join(s.work, `profile-fresh-${slug}`);
  page = await open(fresh, video(`blank-${slug}`, [{ text: null, frames: 10 }]));
  await page.goto(pairingLink(s.kiosk.base, { url: backend.root, api_key: otherKey, event_id: backend.eventId }));
  await page.locator('#pair-confirm[data-state="refused"]').waitFor();
  assert.equal(await page.locator('#pc-ok').isVisible(), false);
  assert.match(await page.locator('#pc-event-note').innerText(), /another event/);
  assert.equal(await page.evaluate(() => localStorage.length >= 0 && document.getElementById('status-bar')?.dataset.ready), 'false');

  // 4. A kiosk already holding a key for another event (paired before the check existed): the banner, and
  //    no NOT VALID for tickets the cache knows.
  await page.context().close();
  page = await open(profile, video(`wrong-${slug}`, [{ text: null, frames: 5 }]));
  await page.evaluate(
    (key) =>
      new Promise<void>((resolve, reject) => {
        const req = indexedDB.open('doorstep-kiosk');
        req.onsuccess = () => {
          const tx = req.result.transaction('meta', 'readwrite');
          const store = tx.objectStore('meta');
          const get = store.get('settings');
          get.onsuccess = () => store.put({ ...get.result, value: { ...get.result.value, api_key: key } });
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
        };
      }),
    otherKey,
  );
  await page.context().close();
  page = await open(
    profile,
    video(`wrong-${slug}`, [
      { text: null, frames: 10 },
      { text: a3.ticketUrl, frames: 6 },
      { text: null, frames: 200 },
    ]),
  );
  await waitFor(
    'the wrong-event banner',
    async () => (await page.locator('[data-testid="device-banner"]').getAttribute('data-problem')) === 'wrong_event',
  );
  await waitFor('a verdict', async () => (await verdicts(page)).length > 0);
  assert.deepEqual(await verdicts(page), ['admitted']);
  assert.equal((await backend.checkin(a3.id)).checkedIn, false);
  assert.deepEqual(await backend.scans(a3.id), [], 'nothing recorded as refused on the server');
  await page.context().close();
}

describeAgainstBackends('kiosk at the door (headless Chromium, fake camera)', s, { attendees: 3, timeout: 240_000 }, scenario);
