import { afterAll, beforeAll, describe, test } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { CHROMIUM, HEADLESS_ARGS } from './browser.ts';
import { buildKioskTo } from './kiosk-build.ts';
import { serveKiosk, type HttpServer } from './fake-http-server.ts';
import { modelBackend, realBackend, type Backend } from './backends.ts';

/** What an e2e file shares: a private kiosk build, where it is served, a scratch folder, the open browsers. */
export interface KioskSuite {
  distDir: string;
  /** The build served at /kiosk/ (only with `serve`). */
  kiosk: HttpServer;
  work: string;
  /** Every browser still open, so a failed test closes them and the run can end. */
  contexts: Set<BrowserContext>;
  /** Adds `ctx` to `contexts` until it closes; returns its first page. */
  track(ctx: BrowserContext): Promise<Page>;
}

/**
 * Registers the file's beforeAll (build the kiosk, serve it unless `serve` is false, make a scratch folder
 * named `prefix`) and afterAll (close the browsers left open and the server, remove the build and the folder).
 * The fields are set once beforeAll has run.
 */
export function kioskSuite(prefix: string, { serve = true } = {}): KioskSuite {
  const suite = {
    contexts: new Set<BrowserContext>(),
    async track(ctx: BrowserContext): Promise<Page> {
      suite.contexts.add(ctx);
      ctx.on('close', () => suite.contexts.delete(ctx));
      return ctx.pages()[0] ?? (await ctx.newPage());
    },
  } as KioskSuite;
  beforeAll(async () => {
    suite.distDir = await buildKioskTo();
    if (serve) suite.kiosk = await serveKiosk(suite.distDir);
    suite.work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    for (const ctx of suite.contexts) await ctx.close();
    await suite.kiosk?.close();
    fs.rmSync(suite.distDir, { recursive: true, force: true });
    fs.rmSync(suite.work, { recursive: true, force: true });
  });
  return suite;
}

/** A door PC with a barcode scanner and no camera: headless Chromium (a 1280x800 window) on `work/profile`. */
export async function launchDoorPc(suite: KioskSuite, profile: string, args: string[] = []): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await chromium.launchPersistentContext(path.join(suite.work, profile), {
    executablePath: CHROMIUM,
    headless: true,
    args: [...HEADLESS_ARGS, ...args],
    viewport: { width: 1280, height: 800 },
  });
  return { ctx, page: await suite.track(ctx) };
}

/**
 * `title`: the same scenario in two tests, against the real server and against the contract model, each with
 * `attendees` attendees; whatever happens, the browsers still open and the backend are closed after each.
 */
export function describeAgainstBackends(
  title: string,
  suite: KioskSuite,
  o: { attendees: number; timeout: number },
  scenario: (backend: Backend) => Promise<void>,
): void {
  const against = async (backend: Backend): Promise<void> => {
    try {
      await scenario(backend);
    } finally {
      for (const ctx of suite.contexts) await ctx.close();
      await backend.close();
    }
  };
  describe(title, () => {
    test('against the real server', { timeout: o.timeout }, async () => against(await realBackend(o.attendees)));
    test('against the contract model of the server', { timeout: o.timeout }, async () => against(await modelBackend(o.attendees)));
  });
}
