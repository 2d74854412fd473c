import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApiKey } from '../../../server/auth/credentials.ts';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { knownTickets } from '../../../renderer/store/signing-keys.ts';
import { createApiClient } from '../../../renderer/sync/api-client.ts';
import { downloadEventInfo } from '../../../renderer/sync/download.ts';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertTicket, seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

/**
 * The kiosk's download of its event's tickets against the real server (not the fake door server): a key bound to
 * a check-in list admitting the VIP ticket only still learns every ticket of the event, with its title, so a
 * signed code for another gate's ticket is matched to its ticket offline (CONTRACT section 8).
 */

let srv: TestServer;
let eventId: number;
let general: number;
let vip: number;
let key: string;

beforeAll(async () => {
  srv = await startTestServer();
  const f = await seedTicketsFixture(srv.db, { attendees: 2, ticketTitle: 'General admission' });
  eventId = f.eventId;
  general = f.ticketId;
  vip = await insertTicket(srv.db, eventId, { title: 'VIP' });
  const list = await call(`${srv.root}evt/tickets/v1/checkin-lists`, {
    method: 'POST',
    auth: srv.admin,
    body: { event_id: eventId, name: 'VIP', ticket_ids: [vip] },
  });
  assert.equal(list.status, 201, list.text);
  key = (await createApiKey(srv.db, 'VIP door', eventId, null, (list.body as { id: number }).id)).key;
}, 60_000);
afterAll(() => srv?.close());

describe('downloadEventInfo against the real server', () => {
  test('a list-bound kiosk knows every ticket of its event, titled, and the count is complete', async () => {
    const db = openKioskDb(`download-real-${process.pid}`);
    const api = createApiClient({ url: srv.root, api_key: key });
    await downloadEventInfo({ api, db, eventId, now: Date.now });
    const stored = (await db.tickets.toArray()).map((t) => [t.id, t.title]).sort((a, b) => Number(a[0]) - Number(b[0]));
    assert.deepEqual(stored, [
      [general, 'General admission'],
      [vip, 'VIP'],
    ]);
    const known = await knownTickets(db);
    assert.equal(known.complete, true);
    db.close();
  });

  test('`door` leaves the embedded attendee lists out; without it a manager gets them', async () => {
    const q = `include_post=${eventId}&_fields=tickets`;
    const full = await call(`${srv.root}evt/tickets/v1/tickets?${q}`, { auth: srv.admin });
    const door = await call(`${srv.root}evt/tickets/v1/tickets?${q}&door=1`, { auth: srv.admin });
    const attendees = (b: unknown) => (b as { tickets: Array<{ id: number; attendees: unknown[] }> }).tickets.map((t) => [t.id, t.attendees.length]);
    assert.deepEqual(attendees(full.body), [
      [general, 2],
      [vip, 0],
    ]);
    assert.deepEqual(attendees(door.body), [
      [general, 0],
      [vip, 0],
    ]);
  });
});
