/**
 * `npm run bench:hub` (issue 23): the venue hub, measured as it runs at a venue.
 *
 * 1. Door to door: a check-in uploaded by one door (as a kiosk uploads a scan at once when online) until another
 *    door's kiosk has it in its cache. The other door is the real kiosk sync engine (renderer/sync/engine.ts, over
 *    fake-indexeddb) paired with the hub, syncing on its own timers as at the door. p50 / p95 over HUB_BENCH_SCANS
 *    scans (default 60). Target (issue 23): within 2 s.
 * 2. Catch-up: HUB_BENCH_OUTAGE check-ins (default 10,000) made at the hub while the site is cut off, then the
 *    time from the site's return until the site has them all. Baseline in the same run: the same number of
 *    check-ins sent straight to the site by one kiosk in batches of 25 (what the doors would do with no hub).
 *
 * Site and hub run in this process on loopback (the site on the suite's engine: EVT_TEST_DB=postgres for
 * PostgreSQL), the hub's link to the site through a TCP proxy that can be cut.
 */
import 'fake-indexeddb/auto';
import crypto from 'node:crypto';
import os from 'node:os';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { startCutProxy } from '../helpers/cut-proxy.ts';
import { openKioskDb } from '../../renderer/store/db.ts';
import { getAttendee } from '../../renderer/store/attendees.ts';
import { SyncEngine } from '../../renderer/sync/engine.ts';
import type { Hub } from '../../server/hub/hub.ts';

const SCANS = Number(process.env.HUB_BENCH_SCANS ?? 60);
const OUTAGE = Number(process.env.HUB_BENCH_OUTAGE ?? 10_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nonce = () => crypto.randomBytes(12).toString('hex');

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

async function until(what: string, fn: () => Promise<boolean>, ms = 600_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Check-ins of `ids` in batches of 25, one batch after another (one kiosk uploading its queue). */
async function uploadAll(server: TestServer, key: string, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 25) {
    const requests = ids.slice(i, i + 25).map((id) => ({
      method: 'PATCH',
      path: `/evt/tickets/v1/attendees/${id}`,
      body: { check_in: true, check_in_date: new Date().toISOString(), device_id: 'bench-door', nonce: nonce() },
    }));
    for (;;) {
      const res = await fetch(`${server.root}batch/v1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ requests }),
      });
      const body = (await res.json()) as { responses?: { status: number }[] };
      if (res.status === 207 && body.responses?.every((r) => r.status === 201)) break;
      await sleep(100);
    }
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const site = await startTestServer();
  const near = await seedTicketsFixture(site.db, { attendees: SCANS });
  const far = await seedTicketsFixture(site.db, { attendees: OUTAGE });
  const direct = await seedTicketsFixture(site.db, { attendees: OUTAGE });
  const proxy = await startCutProxy(Number(new URL(site.base).port));
  const hubs: TestServer[] = [];
  const startHub = async (eventId: number) => {
    const key = (await site.apiKey('Venue hub', eventId)).key;
    const hub = await startTestServer({ EVT_UPSTREAM: proxy.url, EVT_UPSTREAM_KEY: key, EVT_UPSTREAM_INTERVAL_SECONDS: '1' }, { sqlite: true });
    hubs.push(hub);
    const h = hub.app.state.services.hub as Hub;
    await until('the first pull', async () => (await h.status()).last_pull !== null);
    return { hub, h, door: (await hub.apiKey('Door A', eventId)).key };
  };
  try {
    // 1. Door to door through the hub.
    const one = await startHub(near.eventId);
    const kioskKey = (await one.hub.apiKey('Door B', near.eventId)).key;
    const db = openKioskDb(`hub-bench-${process.pid}`);
    const settings = { url: one.hub.root, api_key: kioskKey, event_id: near.eventId };
    const doorB = new SyncEngine({ db, deviceId: 'door-bench-b', settings: () => settings });
    await doorB.start();
    await until('door B ready', async () => doorB.status.ready && doorB.status.hub !== null, 120_000);
    const lat: number[] = [];
    for (const id of near.attendeeIds) {
      const t0 = performance.now();
      await uploadAll(one.hub, one.door, [id]);
      await until(`attendee ${id} at door B`, async () => (await getAttendee(db, id))?.checkedIn === 1, 30_000);
      lat.push(performance.now() - t0);
      await sleep(crypto.randomInt(50, 400));
    }
    doorB.stop();

    // 2. Catch-up after an outage: the baseline first (straight to the site), then the hub's.
    const b0 = performance.now();
    await uploadAll(site, (await site.apiKey('Door direct', direct.eventId)).key, direct.attendeeIds);
    const directMs = performance.now() - b0;

    const two = await startHub(far.eventId);
    proxy.cut();
    await until('the hub to see the outage', async () => {
      two.h.poke();
      await two.h.idle();
      return !(await two.h.status()).reachable;
    });
    const a0 = performance.now();
    await uploadAll(two.hub, two.door, far.attendeeIds);
    const atHubMs = performance.now() - a0;
    const pendingBefore = (await two.h.status()).pending;
    const r0 = performance.now();
    proxy.restore();
    two.h.poke();
    await until('the catch-up', async () => (await two.h.status()).pending === 0);
    const catchUpMs = performance.now() - r0;
    const onSite = Number(
      (
        (await site.db.prepare("SELECT COUNT(*) AS n FROM checkins WHERE event_id = ? AND result = 'accepted'").get(far.eventId)) as {
          n: number;
        }
      ).n,
    );

    const rate = (n: number, ms: number) => (n / ms) * 1000;
    const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
    const line = (label: string, value: string) => console.log(`  ${label.padEnd(58)} ${value}`);
    console.log(`\nbench:hub (site on ${site.app.state.db.engine}, hub on SQLite, loopback; ${Math.round((Date.now() - started) / 1000)} s)`);
    line(`door to door through the hub, p50 (${lat.length} scans)`, `${fmt(pct(lat, 50))} ms`);
    line('door to door through the hub, p95', `${fmt(pct(lat, 95))} ms`);
    line('door to door through the hub, max', `${fmt(Math.max(...lat))} ms`);
    line(`check-ins taken by the hub while the site was away`, `${fmt(pendingBefore)} in ${fmt(atHubMs / 1000)} s`);
    line(`catch-up: ${fmt(OUTAGE)} check-ins to the site after the outage`, `${fmt(catchUpMs / 1000)} s = ${fmt(rate(OUTAGE, catchUpMs))}/s`);
    line('baseline: the same sent straight to the site by one kiosk', `${fmt(directMs / 1000)} s = ${fmt(rate(OUTAGE, directMs))}/s`);
    line('catch-up rate / baseline rate', fmt(rate(OUTAGE, catchUpMs) / rate(OUTAGE, directMs)));
    line('check-ins of that event on the site (each once)', `${fmt(onSite)} of ${fmt(OUTAGE)}`);
    const p95 = pct(lat, 95);
    line('target door to door p95 < 2,000 ms', p95 < 2000 ? 'met' : 'MISSED');
    const load = os.loadavg();
    line('load average (1 min / 5 min) on cores', `${load[0]!.toFixed(1)} / ${load[1]!.toFixed(1)} on ${os.cpus().length}`);
    if (onSite !== OUTAGE) throw new Error(`the site has ${onSite} check-ins of the outage, not ${OUTAGE}`);
  } finally {
    for (const h of hubs) await h.close();
    await proxy.close();
    await site.close();
  }
}

await main();
