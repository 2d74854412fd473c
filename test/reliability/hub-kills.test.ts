import { test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../server/db/connection.ts';
import { createApiKey } from '../../server/auth/credentials.ts';
import { seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { startCutProxy } from '../helpers/cut-proxy.ts';
import { childServer, freePort, type ChildServer } from './child-server.ts';
import { profile, report } from './profile.ts';

/**
 * Issue 23's kill profile: a site and a venue hub as real processes (`node server/main.ts`, SIGKILL), with the
 * hub's connection to the site through a proxy that sees each request. Kiosks (simulated, over HTTP) check
 * attendees in at the hub the whole time, resending a batch the hub did not answer with the same nonces, as the
 * kiosk does. The hub is killed the moment a push to the site is on its way (`hubKills` times), and the site the
 * moment the hub's batch reaches it (`siteKills` times); each comes back after. At the end every check-in the hub
 * accepted is on the site exactly once (0 lost, 0 doubled), and the site has none the hub did not accept.
 *
 * What protects it: the hub's log is its queue (a scan is marked sent only after the site's answer, in a
 * transaction), and the site records each nonce once (its unique index on checkins.nonce, and the nonce lock).
 */

const P = profile();
const ATTENDEES = P.name === 'full' ? 600 : 200;

test(`venue hub kill profile: hub killed ${P.hubKills}x mid-push, site killed ${P.siteKills}x mid-batch: 0 lost, 0 doubled`, {
  timeout: 900_000,
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-hub-kills-'));
  const siteFile = path.join(dir, 'site', 'site.sqlite');
  const hubFile = path.join(dir, 'hub', 'hub.sqlite');
  fs.mkdirSync(path.dirname(siteFile));
  fs.mkdirSync(path.dirname(hubFile));
  let site: ChildServer | null = null;
  let hub: ChildServer | null = null;
  const proxyClosers: (() => Promise<void>)[] = [];
  try {
    // The site: one event, its attendees, a door key for the hub. The hub: a door key for the kiosks.
    const sdb = await openDatabase(siteFile);
    const fx = await seedTicketsFixture(sdb, { attendees: ATTENDEES });
    const upstreamKey = (await createApiKey(sdb, 'Venue hub', fx.eventId, null)).key;
    await sdb.close();
    const hdb = await openDatabase(hubFile);
    const doorKey = (await createApiKey(hdb, 'Door 1', fx.eventId, null)).key;
    await hdb.close();

    site = childServer({ dbFile: siteFile, port: await freePort() });
    await site.start();
    // Kill switches armed by the test; the proxy fires them when the hub's batch is on its way.
    let armHub = false;
    let armSite = false;
    let hubKilled = 0;
    let siteKilled = 0;
    const isPush = (chunk: Buffer) => chunk.includes('POST /wp-json/batch/v1');
    const proxy = await startCutProxy(site.port, '127.0.0.1', (chunk) => {
      if (!isPush(chunk)) return;
      if (armHub) {
        armHub = false;
        hubKilled++;
        const victim = hub;
        setTimeout(() => void victim?.kill(), crypto.randomInt(0, 15));
      } else if (armSite) {
        armSite = false;
        siteKilled++;
        const victim = site;
        setTimeout(() => void victim?.kill(), crypto.randomInt(0, 25));
      }
    });
    proxyClosers.push(() => proxy.close());
    hub = childServer({
      dbFile: hubFile,
      port: await freePort(),
      env: { EVT_UPSTREAM: proxy.url, EVT_UPSTREAM_KEY: upstreamKey, EVT_UPSTREAM_INTERVAL_SECONDS: '1' },
    });
    await hub.start();
    const h = hub;
    const health = async (): Promise<{ pending: number; last_pull?: string } | null> => {
      try {
        const res = await fetch(`${h.base}/health`, { signal: AbortSignal.timeout(5000) });
        return ((await res.json()) as { upstream?: { pending: number } }).upstream ?? null;
      } catch {
        return null;
      }
    };
    const until = async (what: string, fn: () => Promise<boolean>, ms = 120_000) => {
      const end = Date.now() + ms;
      while (!(await fn())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; hub: ${h.stderr().slice(-800)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // The first pull: every attendee known at the hub.
    await until('the first pull', async () => {
      try {
        const res = await fetch(`${h.root}evt/tickets/v1/attendees?post_id=${fx.eventId}&per_page=1`, {
          headers: { authorization: `Bearer ${doorKey}` },
        });
        return res.ok && Number(res.headers.get('x-et-total')) === ATTENDEES;
      } catch {
        return false;
      }
    });

    // Kiosks: batches of 10 check-ins at the hub, each resent with the same nonces until the hub answers.
    const accepted = new Map<number, string>();
    let resent = 0;
    const queue = [...fx.attendeeIds];
    const sendBatch = async (ids: number[]): Promise<void> => {
      const items = ids.map((id) => ({
        id,
        body: { check_in: true, check_in_date: new Date().toISOString(), device_id: 'kiosk-sim', nonce: crypto.randomBytes(12).toString('hex') },
      }));
      for (;;) {
        try {
          const res = await fetch(`${h.root}batch/v1`, {
            method: 'POST',
            headers: { authorization: `Bearer ${doorKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ requests: items.map((i) => ({ method: 'PATCH', path: `/evt/tickets/v1/attendees/${i.id}`, body: i.body })) }),
            signal: AbortSignal.timeout(10_000),
          });
          if (res.status !== 207) throw new Error(`HTTP ${res.status}`);
          const body = (await res.json()) as { responses: { status: number }[] };
          body.responses.forEach((r, k) => {
            if (r.status === 201) accepted.set(items[k]!.id, items[k]!.body.nonce);
          });
          return;
        } catch {
          resent++;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    let scanning = true;
    const kiosk = (async () => {
      while (queue.length) {
        await sendBatch(queue.splice(0, 10));
        await new Promise((r) => setTimeout(r, 30));
      }
      scanning = false;
    })();

    // The kills, alternating: arm a switch, wait for it to fire, bring the process back.
    for (let k = 0; k < P.hubKills + P.siteKills; k++) {
      const hubTurn = k % 2 === 0 ? hubKilled < P.hubKills : siteKilled >= P.siteKills;
      const before = hubTurn ? hubKilled : siteKilled;
      if (hubTurn) armHub = true;
      else armSite = true;
      // A push happens as soon as a check-in is waiting; keep one waiting if the kiosks are done.
      await until(`kill ${k + 1}`, async () => {
        if (!scanning && (await health())?.pending === 0) {
          const extra = fx.attendeeIds.find((id) => !accepted.has(id));
          if (extra !== undefined) await sendBatch([extra]);
        }
        return (hubTurn ? hubKilled : siteKilled) > before;
      });
      armHub = armSite = false;
      const victim = hubTurn ? h : site;
      await new Promise((r) => setTimeout(r, 100));
      await victim.kill();
      await victim.start();
    }
    await kiosk;
    await until('the hub to push everything', async () => (await health())?.pending === 0, 180_000);

    // Verdict, from the site's database: each accepted nonce once, nothing else.
    const db = await openDatabase(siteFile);
    const rows = (await db
      .prepare("SELECT attendee_id, nonce, result FROM checkins WHERE result IN ('accepted', 'checked_out') ORDER BY id")
      .all()) as { attendee_id: number; nonce: string; result: string }[];
    const checkedIn = Number(((await db.prepare('SELECT COUNT(*) AS n FROM attendees WHERE checked_in = 1').get()) as { n: number }).n);
    await db.close();
    const byAttendee = new Map<number, string[]>();
    for (const r of rows) byAttendee.set(r.attendee_id, [...(byAttendee.get(r.attendee_id) ?? []), r.nonce]);
    const lost = [...accepted].filter(([id, nonce]) => !(byAttendee.get(id) ?? []).includes(nonce));
    const doubled = [...byAttendee].filter(([, nonces]) => nonces.length > 1);
    const phantom = [...byAttendee].filter(([id, nonces]) => accepted.get(id) !== nonces[0]);
    report('hub-kills', {
      attendees: ATTENDEES,
      accepted_at_hub: accepted.size,
      on_site: rows.length,
      hub_kills: hubKilled,
      site_kills: siteKilled,
      kiosk_resends: resent,
      lost: lost.length,
      doubled: doubled.length,
      phantom: phantom.length,
    });
    assert.equal(hubKilled, P.hubKills);
    assert.equal(siteKilled, P.siteKills);
    assert.deepEqual(lost, [], 'every check-in the hub accepted is on the site');
    assert.deepEqual(doubled, [], 'none twice');
    assert.deepEqual(phantom, [], 'and none the hub did not accept');
    assert.equal(checkedIn, accepted.size);
  } finally {
    await hub?.kill();
    await site?.kill();
    for (const close of proxyClosers) await close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
