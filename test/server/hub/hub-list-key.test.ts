import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertAttendees, insertTicket, seedTicketsFixture } from '../../helpers/tickets-fixture.ts';
import { insertCheckinList } from '../../../server/db/repos/checkin-lists.ts';
import { createApiKey } from '../../../server/auth/credentials.ts';
import type { Hub } from '../../../server/hub/hub.ts';

/**
 * A venue hub started with a key the site bound to a check-in list (CONTRACT section 9: "a door key made on the site
 * for one event, or for one list"): it mirrors the attendees that list admits, and its check-ins reach the site
 * through the list, decided by the list's rules there.
 */

let site: TestServer;
let hub: TestServer;
let vip: number[];
let general: number[];
let listId: number;
let door: string;

beforeAll(async () => {
  site = await startTestServer();
  const fx = await seedTicketsFixture(site.db, { attendees: 3, ticketTitle: 'General' });
  general = fx.attendeeIds;
  const vipTicket = await insertTicket(site.db, fx.eventId, { title: 'VIP' });
  vip = (await insertAttendees(site.db, vipTicket, 2)).attendeeIds;
  listId = await insertCheckinList(site.db, {
    event_id: fx.eventId,
    name: 'VIP gate',
    ticket_ids: JSON.stringify([vipTicket]),
    direction: 'entry',
    allow_reentry: 1,
    allow_multiple_entries: 0,
    window_start: null,
    window_end: null,
    entries_per_day: null,
  });
  const upstream = (await createApiKey(site.db, 'Hub at the VIP gate', fx.eventId, null, listId)).key;
  hub = await startTestServer({ EVT_UPSTREAM: site.base, EVT_UPSTREAM_KEY: upstream, EVT_UPSTREAM_INTERVAL_SECONDS: '1' }, { sqlite: true });
  door = (await hub.apiKey('VIP door', fx.eventId)).key;
  const h = hub.app.state.services.hub as Hub;
  const end = Date.now() + 30_000;
  while ((await h.status()).last_pull === null) {
    if (Date.now() > end) throw new Error('no first pull');
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);

afterAll(async () => {
  await hub?.close();
  await site?.close();
});

it('mirrors only the attendees the list admits, and pushes through the list', async () => {
  const list = await call(`${hub.root}evt/tickets/v1/attendees?per_page=100`, { auth: `Bearer ${door}` });
  expect(list.status).toBe(200);
  expect(list.body.attendees.map((a: { id: number }) => a.id).sort((a: number, b: number) => a - b)).toEqual([...vip].sort((a, b) => a - b));
  // A general ticket is not at this hub at all.
  const res = await call(`${hub.root}evt/tickets/v1/attendees/${general[0]}`, { auth: `Bearer ${door}` });
  expect(res.status).toBe(404);

  const nonce = crypto.randomBytes(12).toString('hex');
  const scan = await call(`${hub.root}evt/tickets/v1/attendees/${vip[0]}`, {
    method: 'PATCH',
    auth: `Bearer ${door}`,
    body: { check_in: true, check_in_date: new Date().toISOString(), device_id: 'vip-kiosk', nonce },
  });
  expect(scan.status).toBe(201);
  const h = hub.app.state.services.hub as Hub;
  const end = Date.now() + 30_000;
  for (;;) {
    h.poke();
    await h.idle();
    if ((await h.status()).pending === 0) break;
    if (Date.now() > end) throw new Error(`not pushed: ${JSON.stringify(await h.status())}`);
  }
  const rows = (await site.db.prepare('SELECT result, nonce, list_id FROM checkins WHERE attendee_id = ?').all(vip[0])) as {
    result: string;
    nonce: string;
    list_id: number | null;
  }[];
  expect(rows).toEqual([{ result: 'accepted', nonce, list_id: listId }]);
});
