import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { pairingLink } from '../../shared/checkin/pairing.ts';
import { launchKiosk } from '../e2e/browser.ts';
import { buildKioskTo } from '../e2e/kiosk-build.ts';
import { serveKiosk } from '../e2e/fake-http-server.ts';
import { realBackend } from '../e2e/backends.ts';
import { writeY4m, type Shot } from '../e2e/y4m.ts';
import { startSyncTrap, type HoldMode } from './browser-proxy.ts';
import { fetchCheckins } from './kiosk-sim.ts';
import { confirmPairing, openStaff } from '../e2e/kiosk-page.ts';

const FPS = 5;

async function waitFor<T>(what: string, probe: () => Promise<T | false | null | undefined>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The browser process (not a renderer or helper) of the persistent profile in `userDataDir`. */
export function browserPid(userDataDir: string): number | null {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv.includes(`--user-data-dir=${userDataDir}`) && !argv.some((a) => a.startsWith('--type='))) return Number(entry);
  }
  return null;
}

export interface KioskCrashResult {
  figures: Record<string, number>;
  /** Scans queued on the kiosk that never reached the server. */
  lost: string[];
  duplicates: string[];
}

/**
 * The kiosk in headless Chromium (persistent profile) pairs with the real server through a proxy; per
 * round it queues three scans offline, then starts a sync that the proxy catches in flight (alternately
 * after the server committed it and before the server saw it), and the browser process is SIGKILLed. After
 * the relaunch every queued scan must reach the server, each attendee with one accepted check-in.
 */
export async function kioskCrashScenario(kills: number): Promise<KioskCrashResult> {
  const backend = await realBackend(1 + 3 * kills);
  const trap = await startSyncTrap(backend.base);
  const dist = await buildKioskTo();
  const kiosk = await serveKiosk(dist);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-crash-'));
  const profile = path.join(work, 'profile');
  const root = `${trap.base}/wp-json/`;
  const contexts = new Set<BrowserContext>();
  const video = (name: string, shots: Shot[]) => {
    const file = path.join(work, `${name}.y4m`);
    writeY4m(file, shots, FPS);
    return file;
  };
  const open = async (y4m: string, offline: boolean): Promise<{ ctx: BrowserContext; page: Page }> => {
    const ctx = await launchKiosk(profile, y4m);
    contexts.add(ctx);
    ctx.on('close', () => contexts.delete(ctx));
    if (offline)
      await ctx.route(
        (url) => url.href.startsWith(root),
        (route) => route.abort('internetdisconnected'),
      );
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.goto(`${kiosk.base}/kiosk/`);
    return { ctx, page };
  };
  const pending = async (page: Page) => Number(await page.locator('#pending').getAttribute('data-count'));
  const queued: number[] = [];
  let killed = 0;
  try {
    const [first, ...rest] = backend.attendees;
    const pairing = pairingLink(kiosk.base, { url: root, api_key: backend.apiKey, event_id: backend.eventId });
    let { ctx, page } = await open(
      video('pair', [
        { text: null, frames: 3 },
        { text: pairing, frames: 8 },
        { text: null, frames: 12 },
        { text: first!.ticketUrl, frames: 8 },
        { text: null, frames: 40 },
      ]),
      false,
    );
    await confirmPairing(page); // every pairing is confirmed by staff first
    await waitFor('the first check-in', async () => (await backend.checkin(first!.id)).checkedIn);
    await waitFor(
      'the list cached',
      async () => (await page.locator('#last-sync').innerText()).length > 0 && !(await page.locator('#progress').isVisible()),
    );
    await ctx.close();

    for (let round = 0; round < kills; round++) {
      const batch = rest.slice(round * 3, round * 3 + 3);
      ({ ctx, page } = await open(
        video(
          `offline-${round}`,
          batch
            .flatMap((a) => [
              { text: a.ticketUrl, frames: 6 },
              { text: null, frames: 4 },
            ])
            .concat([{ text: null, frames: 30 }]),
        ),
        true,
      ));
      // Every earlier round's scans are still queued too (each sync was cut before the kiosk had an answer).
      await waitFor(`round ${round}: ${3 * (round + 1)} queued scans`, async () => (await pending(page)) === 3 * (round + 1));
      queued.push(...batch.map((a) => a.id));
      const mode: HoldMode = round % 2 === 0 ? 'after-commit' : 'before-server';
      const caught = trap.arm(mode);
      await ctx.unrouteAll();
      await openStaff(page);
      await page.locator('#sync-now').click();
      await caught;
      const pid = browserPid(profile);
      if (pid === null) throw new Error('cannot find the Chromium browser process');
      const closed = new Promise<void>((resolve) => ctx.once('close', () => resolve()));
      process.kill(pid, 'SIGKILL');
      killed++;
      await closed;
    }

    // Relaunch online: the kiosk resumes its outbox by itself.
    ({ ctx, page } = await open(video('blank', [{ text: null, frames: 10 }]), false));
    // The pending count reads 0 until the store has loaded, so wait for the server first, then the queue.
    const uploaded = async () => {
      for (const id of queued) if (!(await backend.checkin(id)).checkedIn) return false;
      return true;
    };
    await waitFor('the queued scans on the server after the relaunch', uploaded, 120_000).catch(() => undefined);
    await waitFor('an empty queue after the relaunch', async () => (await pending(page)) === 0, 30_000);
    await ctx.close();

    const lost: string[] = [];
    for (const id of queued) if (!(await backend.checkin(id)).checkedIn) lost.push(`attendee ${id}`);
    const log = await fetchCheckins(root, `Bearer ${backend.apiKey}`, `post_id=${backend.eventId}`);
    const accepted = new Map<number, number>();
    for (const c of log) if (c.result === 'accepted') accepted.set(Number(c.attendee_id), (accepted.get(Number(c.attendee_id)) ?? 0) + 1);
    const duplicates = [...accepted].filter(([, n]) => n > 1).map(([id, n]) => `attendee ${id}: ${n} accepted`);
    for (const id of queued) if (!accepted.has(id)) lost.push(`attendee ${id}: no accepted check-in in the log`);
    return {
      figures: {
        kills_during_sync: killed,
        queued_scans: queued.length,
        uploaded_after_relaunch: queued.length - lost.length,
        lost_checkins: lost.length,
        log_rows: log.length,
      },
      lost,
      duplicates,
    };
  } finally {
    for (const c of contexts) await c.close().catch(() => undefined);
    await kiosk.close();
    await trap.close();
    await backend.close();
    fs.rmSync(dist, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}
