import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { startCutProxy, type CutProxy } from '../../helpers/cut-proxy.ts';
import type { Hub } from '../../../server/hub/hub.ts';
import { runCli } from '../../../server/cli.ts';

/**
 * The venue hub (CONTRACT section 9) against a real site over HTTP, with the network between them cut and restored
 * (a TCP proxy on loopback). The site runs on the suite's engine; the hub on SQLite, as it always does.
 */

let site: TestServer;
let hub: TestServer;
let proxy: CutProxy;
let fx: TicketsFixture;
let door1: string;
let door2: string;

const nonce = () => crypto.randomBytes(12).toString('hex');

function hubOf(s: TestServer): Hub {
  const h = s.app.state.services.hub;
  if (!h) throw new Error('not a hub');
  return h;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function scan(server: TestServer, key: string, attendee: number, o: { checkIn?: boolean; nonce?: string; at?: string } = {}) {
  const body = {
    check_in: o.checkIn ?? true,
    check_in_date: o.at ?? new Date().toISOString(),
    device_id: `dev-${key.slice(-6)}`,
    nonce: o.nonce ?? nonce(),
  };
  const res = await call(`${server.root}batch/v1`, {
    method: 'POST',
    auth: `Bearer ${key}`,
    body: { requests: [{ method: 'PATCH', path: `/evt/tickets/v1/attendees/${attendee}`, body }] },
  });
  expect(res.status).toBe(207);
  return { ...res.body.responses[0], sent: body } as { status: number; body: any; sent: typeof body };
}

async function siteLog(attendee: number): Promise<{ result: string; nonce: string | null; device_id: string | null; scanned_at: string }[]> {
  return (await site.db.prepare('SELECT result, nonce, device_id, scanned_at FROM checkins WHERE attendee_id = ? ORDER BY id').all(attendee)) as {
    result: string;
    nonce: string | null;
    device_id: string | null;
    scanned_at: string;
  }[];
}

async function attendeeAt(server: TestServer, key: string, id: number): Promise<any> {
  const res = await call(`${server.root}evt/tickets/v1/attendees/${id}`, { auth: `Bearer ${key}` });
  expect(res.status).toBe(200);
  return res.body;
}

beforeAll(async () => {
  site = await startTestServer();
  fx = await seedTicketsFixture(site.db, { attendees: 30 });
  const upstreamKey = (await site.apiKey('Venue hub', fx.eventId)).key;
  proxy = await startCutProxy(Number(new URL(site.base).port));
  hub = await startTestServer({ EVT_UPSTREAM: proxy.url, EVT_UPSTREAM_KEY: upstreamKey, EVT_UPSTREAM_INTERVAL_SECONDS: '1' }, { sqlite: true });
  door1 = (await hub.apiKey('Door 1', fx.eventId)).key;
  door2 = (await hub.apiKey('Door 2', fx.eventId)).key;
  await until('the first pull', async () => (await hubOf(hub).status()).last_pull);
}, 60_000);

afterAll(async () => {
  await hub?.close();
  await proxy?.close();
  await site?.close();
});

describe('venue hub', () => {
  it('mirrors the event and its attendees under the site IDs, security codes included', async () => {
    const res = await call(`${hub.root}evt/tickets/v1/attendees?post_id=${fx.eventId}&per_page=100`, { auth: `Bearer ${door1}` });
    expect(res.status).toBe(200);
    const got = new Map<number, string>(res.body.attendees.map((a: any) => [a.id, a.security_code]));
    expect([...got.keys()].sort((a, b) => a - b)).toEqual([...fx.attendeeIds].sort((a, b) => a - b));
    for (const [id, code] of fx.codes) expect(got.get(id)).toBe(code);
    const event = await call(`${hub.root}evt/events/v1/events/${fx.eventId}`, { auth: `Bearer ${door1}` });
    expect(event.status).toBe(200);
    expect(event.body.id).toBe(fx.eventId);
  });

  it('pushes a check-in to the site once, with the kiosk nonce, device and scan time', async () => {
    const a = fx.attendeeIds[0]!;
    const at = new Date(Date.now() - 5_000).toISOString();
    const r = await scan(hub, door1, a, { at });
    expect(r.status).toBe(201);
    const log = await until('the push', async () => {
      const l = await siteLog(a);
      return l.length ? l : undefined;
    });
    expect(log).toEqual([{ result: 'accepted', nonce: r.sent.nonce, device_id: r.sent.device_id, scanned_at: at }]);
    // Retried (a kiosk that never heard the answer): nothing new at the hub or the site.
    expect((await scan(hub, door1, a, { nonce: r.sent.nonce, at })).status).toBe(201);
    hubOf(hub).poke();
    await hubOf(hub).idle();
    expect(await siteLog(a)).toHaveLength(1);
    expect((await hubOf(hub).status()).pending).toBe(0);
  });

  it('keeps the doors agreeing while the site is cut off, then catches up in order, each scan once', async () => {
    const [b, c, d] = [fx.attendeeIds[1]!, fx.attendeeIds[2]!, fx.attendeeIds[3]!];
    proxy.cut();
    await until('the hub to notice the outage', async () => {
      hubOf(hub).poke();
      await hubOf(hub).idle();
      return (await hubOf(hub).status()).reachable === false;
    });
    // Door 1 admits B; Door 2 is refused at once, with Door 1 named.
    const first = await scan(hub, door1, b);
    expect(first.status).toBe(201);
    const second = await scan(hub, door2, b);
    expect(second.status).toBe(400);
    expect(second.body.code).toBe('tec-et-attendee-already-checked-in');
    expect(second.body.data.checkin_details.device_label).toBe('Door 1');
    // D in and out again at the hub (a check-out must not reach the site before its check-in).
    expect((await scan(hub, door1, d)).status).toBe(201);
    expect((await scan(hub, door2, d, { checkIn: false })).status).toBe(201);
    // Meanwhile the site's own staff admit C, and Door 1 admits C too: the site had C first.
    const staff = await call(`${site.root}evt/tickets/v1/attendees/${c}`, {
      method: 'PATCH',
      auth: site.admin,
      body: { check_in: true, check_in_date: new Date(Date.now() - 60_000).toISOString(), device_id: 'site-desk', nonce: nonce() },
    });
    expect(staff.status).toBe(201);
    const lost = await scan(hub, door1, c);
    expect(lost.status).toBe(201);

    const health = await call(`${hub.base}/health`);
    expect(health.status).toBe(200);
    expect(health.body.upstream).toMatchObject({ reachable: false, pending: 4 });
    expect(health.body.upstream.offline_since).toEqual(expect.any(String));
    expect(await siteLog(b)).toEqual([]);

    proxy.restore();
    await until('the catch-up', async () => {
      hubOf(hub).poke();
      await hubOf(hub).idle();
      return (await hubOf(hub).status()).pending === 0;
    });
    expect((await siteLog(b)).map((r) => [r.result, r.nonce, r.scanned_at])).toEqual([['accepted', first.sent.nonce, first.sent.check_in_date]]);
    expect((await siteLog(d)).map((r) => r.result)).toEqual(['accepted', 'checked_out']);
    // C: the site's check-in stands; the hub's scan is its conflict, and the hub shows the site's check-in,
    // naming the kiosk scan it overruled.
    expect((await siteLog(c)).map((r) => [r.result, r.device_id])).toEqual([
      ['accepted', 'site-desk'],
      ['conflict', lost.sent.device_id],
    ]);
    const atHub = await until('the site check-in at the hub', async () => {
      const x = await attendeeAt(hub, door1, c);
      return x.checkin_details?.device_id === 'site-desk' ? x : undefined;
    });
    expect(atHub.checkin_details.replaced).toMatchObject({ nonce: lost.sent.nonce, device_id: lost.sent.device_id });
    const st = await hubOf(hub).status();
    expect(st).toMatchObject({ reachable: true, pending: 0, conflicts: 1, offline_since: null });
  });

  it('brings a check-in or check-out made at the site down within a pull', async () => {
    const e = fx.attendeeIds[4]!;
    const a = fx.attendeeIds[0]!;
    await call(`${site.root}evt/tickets/v1/attendees/${e}`, {
      method: 'PATCH',
      auth: site.admin,
      body: { check_in: true, check_in_date: new Date().toISOString(), device_id: 'site-desk', nonce: nonce() },
    });
    await call(`${site.root}evt/tickets/v1/attendees/${a}`, {
      method: 'PATCH',
      auth: site.admin,
      body: { check_in: false, check_in_date: new Date().toISOString(), device_id: 'site-desk', nonce: nonce() },
    });
    await until('the site changes at the hub', async () => {
      const [x, y] = [await attendeeAt(hub, door1, e), await attendeeAt(hub, door1, a)];
      return x.checked_in === true && y.checked_in === false;
    });
    // And a door at the hub now refuses E, naming the site's check-in.
    const r = await scan(hub, door2, e);
    expect(r.status).toBe(400);
    expect(r.body.data.checkin_details.device_id).toBe('site-desk');
    // A mirrored check-in is never pushed back.
    hubOf(hub).poke();
    await hubOf(hub).idle();
    expect((await siteLog(e)).filter((x) => x.result === 'accepted')).toHaveLength(1);
  });

  it('trashes at the hub what the site trashed', async () => {
    const f = fx.attendeeIds[5]!;
    // Event Tickets has no attendee DELETE route: an organizer trashes it in the admin screens (the post's status).
    await site.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(f);
    await until('the trash at the hub', async () => {
      const res = await call(`${hub.root}evt/tickets/v1/attendees/${f}`, { auth: `Bearer ${door1}` });
      return res.status === 404 || res.body?.status === 'trash';
    });
  });

  it('cli hub status names what waits for the site and what the site refused', async () => {
    const cli = async () => {
      const lines: string[] = [];
      const before = process.exitCode;
      await runCli(['hub', 'status'], { EVT_DB: hub.dbSpec, EVT_LOG: 'off' }, (l) => lines.push(l));
      const code = process.exitCode;
      process.exitCode = before;
      return { text: lines.join('\n'), code };
    };
    proxy.cut();
    await until('the outage', async () => {
      hubOf(hub).poke();
      await hubOf(hub).idle();
      return (await hubOf(hub).status()).reachable === false;
    });
    expect((await scan(hub, door1, fx.attendeeIds[6]!)).status).toBe(201);
    hubOf(hub).poke();
    await hubOf(hub).idle();
    const down = await cli();
    expect(down.text).toMatch(/Site: +NOT REACHABLE since/);
    expect(down.text).toMatch(/Pending uploads: +1 check-in not yet on the site/);
    expect(down.text).toMatch(/Conflicts: +1 /);
    expect(down.text).toMatch(/attendee \d+ .*at Door 1: conflict/);
    expect(down.text).toMatch(/Do not stop the hub/);
    expect(down.code).toBe(1);
    proxy.restore();
    await until('the catch-up', async () => {
      hubOf(hub).poke();
      await hubOf(hub).idle();
      return (await hubOf(hub).status()).pending === 0;
    });
    const up = await cli();
    expect(up.text).toMatch(/Site: +reachable/);
    expect(up.text).toMatch(/safe to stop the hub/);
    expect(up.code).not.toBe(1);
  });

  it('refuses to run as a hub on a database that holds a site', async () => {
    const { loadConfig } = await import('../../../server/config.ts');
    const { createApp } = await import('../../../server/app.ts');
    const config = loadConfig({
      EVT_DB: ':memory:',
      EVT_LOG: 'off',
      EVT_UPSTREAM: proxy.url,
      EVT_UPSTREAM_KEY: 'x'.repeat(20),
      EVT_DATA_DIR: hub.dir,
    });
    const { openDatabase } = await import('../../../server/db/connection.ts');
    const db = await openDatabase(':memory:');
    await seedTicketsFixture(db, { attendees: 1 });
    await expect(createApp({ config, db })).rejects.toThrow(/already holds a site/);
    await db.close();
  });
});
