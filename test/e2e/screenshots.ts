/**
 * `npm run screenshots`: drives the e2e setup (the real server on a fresh database, a private kiosk build, headless
 * Chromium with a fake camera) through a door shift and writes PNGs of the kiosk, in English and Estonian, to
 * docs/screenshots/: the unpaired screen, the pairing confirmation, the main screen (landscape and portrait), a WELCOME
 * and a NOT VALID verdict, the device banner (both orientations), the conflict line, the preflight panel, and the
 * staff tools once the key is revoked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { pairingLink } from '../../shared/checkin/pairing.ts';
import type { Lang } from '../../shared/lang.ts';
import { launchKiosk } from './browser.ts';
import { buildKioskTo } from './kiosk-build.ts';
import { serveKiosk } from './fake-http-server.ts';
import { realBackend } from './backends.ts';
import { confirmPairing, cutNetwork, firstQueuedScanAt, openStaff, waitFor, waitReady, wedgeScan } from './kiosk-page.ts';
import { writeY4m } from './y4m.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = path.join(repo, 'docs/screenshots');
const NAMES = ['Karl Rebane', 'Mari Tamm', 'Jaan Kask', 'Liis Saar', 'Peeter Mets', 'Anna Lepik', 'Toomas Kuusk', 'Kadri Pärn'];
const LANDSCAPE = { width: 1280, height: 800 };
const PORTRAIT = { width: 800, height: 1280 };

async function shot(page: Page, name: string): Promise<void> {
  const file = path.join(outDir, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`wrote ${path.relative(repo, file)}`);
}

/** Scans by the barcode scanner and keeps the verdict on screen (it would go back to scanning by itself). */
async function scanAndHold(page: Page, code: string): Promise<void> {
  await page.evaluate(() => {
    const el = document.getElementById('verdict')!;
    const w = window as unknown as { __hold?: MutationObserver };
    w.__hold?.disconnect();
    w.__hold = new MutationObserver(() => {
      if (el.hidden && el.dataset.held === '1') el.hidden = false;
    });
    w.__hold.observe(el, { attributes: true, attributeFilter: ['hidden'] });
    el.dataset.held = '';
  });
  await wedgeScan(page, code);
  await page.waitForFunction(() => !document.getElementById('verdict')!.hidden);
  await page.evaluate(() => {
    document.getElementById('verdict')!.dataset.held = '1';
  });
}

async function releaseVerdict(page: Page): Promise<void> {
  await page.evaluate(() => {
    const el = document.getElementById('verdict')!;
    el.dataset.held = '';
    el.hidden = true;
  });
}

function wrongCode(url: string): string {
  const u = new URL(url);
  u.searchParams.set('security_code', 'ffffffffffff');
  return u.toString();
}

async function shift(lang: Lang, kioskBase: string, work: string): Promise<void> {
  const backend = await realBackend(NAMES.length, { names: NAMES, title: lang === 'et' ? 'Sügisöö kontsert' : 'Harvest Night concert' });
  const video = path.join(work, 'blank.y4m');
  writeY4m(video, [{ text: null, frames: 10 }], 5);
  const ctx = await launchKiosk(path.join(work, `profile-${lang}`), video);
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.setViewportSize(LANDSCAPE);
    await page.goto(`${kioskBase}/kiosk/`);
    await page.waitForFunction(() => document.title === 'Doorstep door' || document.title === 'Doorstep uks');
    await page.locator('#lang').selectOption(lang);
    await page.waitForFunction((l) => document.documentElement.lang === l, lang);
    await shot(page, `unpaired-${lang}`);
    await page.setViewportSize(PORTRAIT);
    await shot(page, `unpaired-portrait-${lang}`);
    await page.setViewportSize(LANDSCAPE);

    // The pairing question, with the supervisor PIN to set.
    await page.goto(pairingLink(kioskBase, { url: backend.root, api_key: backend.apiKey, event_id: backend.eventId }));
    await page.locator('#pair-confirm[data-state="ask"]').waitFor();
    await page.locator('#pc-pin-1').fill('2468');
    await page.locator('#pc-pin-2').fill('2468');
    await shot(page, `pairing-confirm-${lang}`);
    await confirmPairing(page);
    await waitReady(page, 60_000);

    // A few guests at the door.
    const [karl, mari, jaan, liis, peeter] = backend.attendees;
    await scanAndHold(page, mari.ticketUrl);
    await shot(page, `verdict-welcome-${lang}`);
    await releaseVerdict(page);
    await scanAndHold(page, wrongCode(jaan.ticketUrl));
    await shot(page, `verdict-not-valid-${lang}`);
    await releaseVerdict(page);
    for (const guest of [liis, peeter]) {
      await wedgeScan(page, guest.ticketUrl);
      await page.waitForFunction(() => !document.getElementById('verdict')!.hidden);
      await releaseVerdict(page);
    }
    await waitFor('the counters', async () => (await page.locator('#c-checked-in').getAttribute('data-value')) === '3');
    await waitFor('the recent scans', async () => (await page.locator('#recent-list li.recent-row').count()) === 4);
    await page.locator('#ready-info').evaluate((el) => {
      (el as HTMLElement).hidden = true;
    });
    await shot(page, `main-${lang}`);
    await page.setViewportSize(PORTRAIT);
    await shot(page, `main-portrait-${lang}`);
    await page.setViewportSize(LANDSCAPE);

    // Mari's ticket again (after the 3 s a code in view counts once): ALREADY ADMITTED HERE, amber, a triangle.
    await new Promise((r) => setTimeout(r, 3500));
    await scanAndHold(page, mari.ticketUrl);
    await shot(page, `verdict-already-here-${lang}`);
    await releaseVerdict(page);

    // The network drops: Karl is admitted here from the cache, and the kiosk says it needs attention.
    await cutNetwork(ctx, backend.base);
    await wedgeScan(page, karl.ticketUrl);
    await page.waitForFunction(() => !document.getElementById('verdict')!.hidden);
    await releaseVerdict(page);
    await waitFor('the device banner', async () => page.locator('#device-banner').isVisible(), 60_000);
    await shot(page, `device-banner-${lang}`);
    await page.setViewportSize(PORTRAIT);
    await shot(page, `device-banner-portrait-${lang}`);
    await page.setViewportSize(LANDSCAPE);

    // Door 2 admitted Karl 19 s later but reached the server first: the conflict line on this (losing) kiosk.
    const ourScanAt = await firstQueuedScanAt(page);
    await backend.admitElsewhere(karl.id, lang === 'et' ? 'Uks 2' : 'Door 2', Math.ceil((ourScanAt + 19_000) / 1000) * 1000);
    await ctx.unrouteAll();
    await openStaff(page);
    await page.locator('#sync-now').click();
    await page.locator('#staff-lock').click();
    await waitFor('the conflict line', async () => page.locator('#conflict-line').isVisible());
    await waitFor('the banner gone', async () => !(await page.locator('#device-banner').isVisible()));
    await shot(page, `conflict-${lang}`);

    // Ready for doors?
    await page.locator('#preflight-toggle').click();
    await waitFor('the preflight checks', async () => (await page.locator('#preflight-list .pf-row').count()) === 8);
    await wedgeScan(page, mari.ticketUrl);
    await waitFor('the scanner test', async () => page.locator('#preflight-scan').isVisible());
    await shot(page, `preflight-${lang}`);
    await page.locator('#preflight-close').click();

    // The key revoked: the header pill, the staff tools' refused list and what "Sync now" says.
    await backend.revokeKey();
    await openStaff(page);
    await page.locator('#sync-now').click();
    await waitFor('the outcome of Sync now', async () => (await page.locator('#sync-result').getAttribute('data-result')) === 'revoked');
    await shot(page, `key-refused-${lang}`);
  } finally {
    await ctx.close();
    await backend.close();
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(outDir, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-shots-'));
  const dist = await buildKioskTo();
  const kiosk = await serveKiosk(dist);
  try {
    for (const lang of ['en', 'et'] as const) await shift(lang, kiosk.base, work);
  } finally {
    await kiosk.close();
    fs.rmSync(dist, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
