import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApiKey } from '../../../server/auth/credentials.ts';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { knownTickets } from '../../../renderer/store/signing-keys.ts';
import { createApiClient } from '../../../renderer/sync/api-client.ts';
import { downloadAttendees, downloadEventInfo } from '../../../renderer/sync/download.ts';
import { getSyncState } from '../../../renderer/store/meta.ts';
import { snapshotPacked } from '../../../renderer/store/snapshot.ts';
import { packAttendee } from '../../../renderer/store/attendees.ts';
import { DoorAttendee } from '../../../shared/checkin/wire.ts';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertAttendees, insertTicket, seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

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
let big: { eventId: number; attendeeIds: number[]; vipIds: number[]; key: string; listKey: string };

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
  // A larger event for the first download: 40 general attendees, 7 VIP, one trashed, a key bound to the VIP list.
  const b = await seedTicketsFixture(srv.db, { attendees: 40 });
  const bigVip = await insertTicket(srv.db, b.eventId, { title: 'VIP' });
  const vips = await insertAttendees(srv.db, bigVip, 7);
  await srv.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(b.attendeeIds[3]);
  const bigList = await call(`${srv.root}evt/tickets/v1/checkin-lists`, {
    method: 'POST',
    auth: srv.admin,
    body: { event_id: b.eventId, name: 'VIP', ticket_ids: [bigVip] },
  });
  big = {
    eventId: b.eventId,
    attendeeIds: [...b.attendeeIds, ...vips.attendeeIds],
    vipIds: vips.attendeeIds,
    key: (await createApiKey(srv.db, 'Big door', b.eventId, null)).key,
    listKey: (await createApiKey(srv.db, 'Big VIP door', b.eventId, null, (bigList.body as { id: number }).id)).key,
  };
}, 60_000);

let dbs = 0;
const freshDb = () => openKioskDb(`download-real-${process.pid}-${++dbs}`);

/** What the paged list gives a first download (changed_since=0, door=1), as the snapshot stores it. */
async function pagedRows(apiKey: string) {
  const out: ReturnType<typeof packAttendee>[] = [];
  for (let page = 1; ; page++) {
    const r = await call(`${srv.root}evt/tickets/v1/attendees?post_id=${big.eventId}&per_page=100&page=${page}&changed_since=0&door=1`, {
      auth: `Bearer ${apiKey}`,
    });
    const rows = (r.body as { attendees: unknown[] }).attendees.map((a) => packAttendee(DoorAttendee.parse(a)));
    out.push(...rows);
    if (page >= Number(r.headers.get('x-et-total-pages'))) return out;
  }
}

/** Counts the requests to each kind of attendee download; `fail` may refuse one. */
function countingFetch(fail?: (url: string, n: number) => Response | null) {
  const seen = { snapshot: 0, paged: 0 };
  const f = async (input: string, init?: RequestInit) => {
    const url = String(input);
    if (url.includes('/attendees/door-snapshot')) seen.snapshot++;
    else if (/\/attendees\?/.test(url)) seen.paged++;
    const refused = fail?.(url, seen.snapshot);
    if (refused) return refused;
    return await fetch(input, init);
  };
  return { seen, fetch: f };
}

const noRoute = () =>
  new Response(JSON.stringify({ code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } }), {
    status: 404,
    headers: { 'Content-Type': 'application/json' },
  });
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

describe('the first download against the real server (door snapshot, issue 22)', () => {
  test('slices by ID: the same rows as the paged list, the delta cursor set, a few requests', async () => {
    const db = freshDb();
    const { seen, fetch } = countingFetch();
    const api = createApiClient({ url: srv.root, api_key: big.key }, fetch);
    const got = await downloadAttendees({ api, db, eventId: big.eventId, now: Date.now, sliceRows: 10 });
    assert.equal(got, big.attendeeIds.length);
    assert.deepEqual(await snapshotPacked(db), await pagedRows(big.key));
    assert.deepEqual(seen, { snapshot: 5, paged: 0 });
    const state = await getSyncState(db);
    assert.equal(state.complete, true);
    assert.ok(Number(state.cursor) > 0);
    // The next pass is a delta over the paged list, from that cursor: nothing changed, nothing comes.
    assert.equal(await downloadAttendees({ api, db, eventId: big.eventId, now: Date.now }), 0);
    db.close();
  });

  test('a key bound to a check-in list caches its list only', async () => {
    const db = freshDb();
    const api = createApiClient({ url: srv.root, api_key: big.listKey });
    await downloadAttendees({ api, db, eventId: big.eventId, now: Date.now, sliceRows: 3 });
    assert.deepEqual(
      (await snapshotPacked(db)).map((r) => r[0]),
      big.vipIds,
    );
    db.close();
  });

  test('an interrupted download resumes after the last slice written, every attendee once', async () => {
    const db = freshDb();
    const failing = countingFetch((url, n) => (url.includes('door-snapshot') && n === 3 ? new Response('down', { status: 503 }) : null));
    await assert.rejects(
      downloadAttendees({
        api: createApiClient({ url: srv.root, api_key: big.key }, failing.fetch),
        db,
        eventId: big.eventId,
        now: Date.now,
        sliceRows: 10,
      }),
    );
    const partial = await getSyncState(db);
    assert.equal(partial.complete, false);
    assert.equal(partial.full?.loaded, 20);
    assert.equal(partial.full?.afterId, big.attendeeIds.toSorted((a, b) => a - b)[19]);
    const again = countingFetch();
    const got = await downloadAttendees({
      api: createApiClient({ url: srv.root, api_key: big.key }, again.fetch),
      db,
      eventId: big.eventId,
      now: Date.now,
      sliceRows: 10,
    });
    assert.equal(got, big.attendeeIds.length - 20);
    assert.deepEqual(again.seen, { snapshot: 3, paged: 0 });
    assert.deepEqual(await snapshotPacked(db), await pagedRows(big.key));
    db.close();
  });

  test('a server without the route (404 rest_no_route): the paged list, the same rows', async () => {
    const db = freshDb();
    const old = countingFetch((url) => (url.includes('door-snapshot') ? noRoute() : null));
    await downloadAttendees({ api: createApiClient({ url: srv.root, api_key: big.key }, old.fetch), db, eventId: big.eventId, now: Date.now });
    assert.deepEqual(old.seen, { snapshot: 1, paged: 1 });
    assert.deepEqual(await snapshotPacked(db), await pagedRows(big.key));
    db.close();
  });

  test('the route gone mid-download: the chunks so far are dropped and the paged list starts over', async () => {
    const db = freshDb();
    const gone = countingFetch((url, n) => (url.includes('door-snapshot') && n >= 3 ? noRoute() : null));
    const api = createApiClient({ url: srv.root, api_key: big.key }, gone.fetch);
    const got = await downloadAttendees({ api, db, eventId: big.eventId, now: Date.now, sliceRows: 10 });
    assert.equal(got, big.attendeeIds.length);
    assert.equal(gone.seen.paged, 1);
    assert.deepEqual(await snapshotPacked(db), await pagedRows(big.key));
    assert.equal((await getSyncState(db)).complete, true);
    db.close();
  });
});
