import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { openDatabase } from '../../server/db/connection.ts';
import { createApiKey } from '../../server/auth/credentials.ts';
import { pairingLink } from '../../shared/checkin/pairing.ts';
import { seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { launchKiosk } from '../e2e/browser.ts';
import { confirmPairing, waitReady } from '../e2e/kiosk-page.ts';
import { writeY4m } from '../e2e/y4m.ts';
import { cpuSeconds, startTarget } from './bench-util.ts';

/**
 * npm run bench:camera: what the kiosk's camera costs the door PC while nobody is at the door. A paired kiosk (headless
 * Chromium, real server on 127.0.0.1) runs for BENCH_CAMERA_SECONDS (10) in each of three states, and the CPU time of
 * all of Chromium's processes is read from /proc:
 * - no camera (a door with a keyboard-wedge scanner only): the baseline;
 * - the camera on an empty, still counter, with a sensor's grain (each pixel ±4 in each frame, 30 fps);
 * - the camera on Chromium's own moving test pattern (someone always in the picture: every frame is read).
 * The figures are CPU seconds a second (1.0 = one core), and each camera state's excess over the baseline.
 */
const SECONDS = Number(process.env.BENCH_CAMERA_SECONDS ?? 10);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'camera-bench-'));

/** The browser's process and every process below it, by the profile folder on its command line. */
function chromiumPids(profile: string): number[] {
  const parent = new Map<number, number>();
  let root: number | null = null;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.split(') ')[1].split(' ')[1]));
      if (root === null && fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(`--user-data-dir=${profile}`)) root = Number(d);
    } catch {
      // A process that ended while the table was read.
    }
  }
  if (root === null) return [];
  const pids = [root];
  for (let added = true; added; ) {
    added = false;
    for (const [pid, ppid] of parent) {
      if (pids.includes(ppid) && !pids.includes(pid)) {
        pids.push(pid);
        added = true;
      }
    }
  }
  return pids;
}

async function cpuOver(profile: string, seconds: number): Promise<number> {
  const pids = chromiumPids(profile);
  if (!pids.length) throw new Error('Chromium not found under its profile');
  const sum = () => pids.reduce((s, p) => s + (Number.isNaN(cpuSeconds(p)) ? 0 : cpuSeconds(p)), 0);
  const c0 = sum();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return (sum() - c0) / ((performance.now() - t0) / 1000);
}

async function main(): Promise<void> {
  await build({ configFile: path.join(import.meta.dirname, '../../vite.config.ts'), logLevel: 'silent' });
  const dbFile = path.join(work, 'bench.sqlite');
  const db = await openDatabase(dbFile);
  const f = await seedTicketsFixture(db, { attendees: 200, eventTitle: 'Camera bench', provider: 'rsvp' });
  const { key } = await createApiKey(db, 'Camera bench door', f.eventId, null);
  await db.close();
  const server = await startTarget(path.join(import.meta.dirname, 'server-target.ts'), { EVT_DB: dbFile });
  const base = `http://127.0.0.1:${server.port}`;
  const profile = path.join(work, 'profile');
  const still = path.join(work, 'still.y4m');
  writeY4m(still, [{ text: null, frames: 90 }], 30, Number(process.env.BENCH_GRAIN ?? 4));
  let ctx: BrowserContext | null = null;
  const open = async (camera: string | null | 'no-camera'): Promise<Page> => {
    ctx = await launchKiosk(profile, camera);
    return ctx.pages()[0] ?? ctx.newPage();
  };
  const rows: string[] = [];
  try {
    let page = await open('no-camera');
    await page.goto(pairingLink(base, { url: `${base}/wp-json/`, api_key: key, event_id: f.eventId }));
    await confirmPairing(page);
    await waitReady(page, 120_000);
    await ctx!.close();
    const figures: Array<[string, number]> = [];
    for (const [name, camera] of [
      ['no camera (baseline)', 'no-camera'],
      ['camera, still counter with sensor grain', still],
      ['camera, moving test pattern', null],
    ] as const) {
      page = await open(camera);
      await page.goto(`${base}/kiosk/`);
      await waitReady(page, 60_000);
      // The camera starts and the decoder warms up; then the kiosk sits at the door.
      await new Promise((r) => setTimeout(r, 3000));
      figures.push([name, await cpuOver(profile, SECONDS)]);
      await ctx!.close();
    }
    const baseline = figures[0][1];
    // A ratio to a baseline near zero says nothing (and a process ending between two reads can make it negative).
    const ratio = (cpu: number) => (baseline >= 0.01 ? `, ${(cpu / baseline).toFixed(2)}x` : '');
    for (const [name, cpu] of figures)
      rows.push(
        `${name.padEnd(42)} ${cpu.toFixed(3)} CPU s/s${cpu === baseline ? '' : `  (+${(cpu - baseline).toFixed(3)} over the baseline${ratio(cpu)})`}`,
      );
  } finally {
    if (ctx) await (ctx as BrowserContext).close().catch(() => undefined);
    server.proc.kill();
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`\nkiosk at an idle door, ${SECONDS} s each (Chromium's processes, CPU seconds a second):`);
  for (const r of rows) console.log(`  ${r}`);
  const [one, five] = os.loadavg();
  console.log(
    `  load average ${one!.toFixed(1)} (5 min: ${five!.toFixed(1)}) on ${os.cpus().length} cores (CPU time moves less with other work than rates do)`,
  );
}

await main();
