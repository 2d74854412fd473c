import { test } from 'vitest';
import assert from 'node:assert/strict';
import path from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { BrowserContext, Page } from 'playwright-core';
import { pairingLink } from '../../shared/checkin/pairing.ts';
import { parseTicketCode } from '../../shared/checkin/ticket-code.ts';
import { call } from '../helpers/server.ts';
import { launchKiosk } from './browser.ts';
import { realBackend } from './backends.ts';
import { writeY4m, type Shot } from './y4m.ts';
import { confirmPairing, cutNetwork, waitFor, waitReady } from './kiosk-page.ts';
import { kioskSuite } from './kiosk-suite.ts';

/**
 * Issue 22 item 4 in headless Chromium with the fake camera, against the real server: a ticket bought after the
 * kiosk's last download, its QR image drawn by the server, is admitted by its signature under the event key the
 * kiosk pinned at pairing while the server cannot be reached, and reaches the server exactly once when it can.
 */

const FPS = 5;
const s = kioskSuite('kiosk-signed-e2e-');

function video(name: string, shots: Shot[]): string {
  const file = path.join(s.work, `${name}.y4m`);
  writeY4m(file, shots, FPS);
  return file;
}

/** The kiosk in a browser whose every verdict is recorded in `window.__verdicts` (kind/reason). */
async function kiosk(profile: string, y4m: string, before?: (ctx: BrowserContext) => Promise<void>): Promise<Page> {
  const ctx = await launchKiosk(profile, y4m);
  const page = await s.track(ctx);
  await before?.(ctx);
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
  return page;
}

const verdicts = (page: Page) => page.evaluate(() => (window as unknown as { __verdicts: string[] }).__verdicts.slice());

test('a ticket bought after the last download is admitted offline by its signature and reaches the server once', { timeout: 240_000 }, async () => {
  const backend = await realBackend(2);
  try {
    const door = `Bearer ${backend.apiKey}`;
    // The event's key as the pairing code carries it (the CLI's `api-key create --event` puts it there).
    const event = await call(`${backend.root}evt/events/v1/events/${backend.eventId}`, { auth: door });
    assert.equal(event.status, 200);
    const pairing = {
      url: backend.root,
      api_key: backend.apiKey,
      event_id: backend.eventId,
      signing_key: event.body.signing_key as string,
      signing_key_id: event.body.signing_key_id as string,
    };
    const profile = path.join(s.work, 'profile');

    // 1. Paired, the list of 2 downloaded; the camera sees nothing.
    let page = await kiosk(profile, video('blank', [{ text: null, frames: 10 }]));
    await page.goto(pairingLink(s.kiosk.base, pairing));
    await page.locator('#pair-confirm[data-state="ask"]').waitFor();
    await confirmPairing(page);
    await waitReady(page, 60_000);
    await waitFor('the ready line', async () => (await page.locator('[data-testid="ready-info"]').getAttribute('data-attendees')) === '2');
    await page.context().close();

    // 2. A ticket sold now, at the box office; its QR image as the server draws it, read by jsQR.
    const known = await call(`${backend.root}evt/tickets/v1/attendees/${backend.attendees[0].id}`, { auth: door });
    const sold = await call(`${backend.root}evt/tickets/v1/attendees`, {
      method: 'POST',
      auth: door,
      body: { ticket_id: known.body.ticket_id, full_name: 'Late Buyer', email: 'late@example.test' },
    });
    assert.equal(sold.status, 201, sold.text);
    const lateId = sold.body.id as number;
    const png = await fetch(`${backend.root}evt/tickets/v1/qr/${lateId}?format=png&size=400`, { headers: { authorization: door } });
    assert.equal(png.status, 200);
    const img = PNG.sync.read(Buffer.from(await png.arrayBuffer()));
    const url = jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
    assert.ok(url && parseTicketCode(url)?.signature?.kid === pairing.signing_key_id, 'the QR code carries a signature under the pinned key');

    // 3. The kiosk again, the server out of reach; the guest shows the ticket to the camera for 3 s.
    page = await kiosk(
      profile,
      video('late', [
        { text: null, frames: 2 * FPS },
        { text: url, frames: 3 * FPS },
        { text: null, frames: 120 * FPS },
      ]),
      (ctx) => cutNetwork(ctx, backend.base),
    );
    await page.goto(`${s.kiosk.base}/kiosk/`);
    await waitFor('the signed ticket admitted', async () => (await verdicts(page)).includes('admitted'), 60_000).catch(async (e: Error) => {
      const stored = await page.evaluate(
        () =>
          new Promise<unknown>((resolve) => {
            const req = indexedDB.open('doorstep-kiosk');
            req.onsuccess = () => {
              const tx = req.result.transaction(['meta', 'tickets']);
              const meta = tx.objectStore('meta').getAll();
              const tickets = tx.objectStore('tickets').getAll();
              tx.oncomplete = () => resolve({ meta: meta.result, tickets: tickets.result, subtle: typeof crypto.subtle });
            };
          }),
      );
      throw new Error(`${e.message}; verdicts shown: ${JSON.stringify(await verdicts(page))}; stored: ${JSON.stringify(stored)}`);
    });
    assert.deepEqual(await verdicts(page), ['admitted']);
    assert.equal(await page.locator('#verdict').getAttribute('data-mode'), 'offline');
    assert.equal((await backend.checkin(lateId)).checkedIn, false, 'decided with no server');

    // 4. The server back: the queued check-in goes up, and the server records it once.
    await page.context().unrouteAll();
    await waitFor('the check-in on the server', async () => (await backend.checkin(lateId)).checkedIn, 90_000);
    const scans = await backend.scans(lateId);
    assert.equal(scans.filter((r) => r === 'accepted').length, 1, JSON.stringify(scans));
    assert.equal(scans.includes('conflict'), false, JSON.stringify(scans));
  } finally {
    for (const ctx of s.contexts) await ctx.close();
    await backend.close();
  }
});
