import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertAttendees, insertTicket, seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { userWithId } from '../../helpers/ownership.ts';
import { createApiKey } from '../../../server/auth/credentials.ts';

/**
 * Check-in lists over HTTP (CONTRACT section 8): the list routes, who reaches them, list-bound door keys, each
 * refusal of the list rules through the attendee route, an event without lists unchanged, and the status counts.
 * The site runs in Europe/Tallinn (UTC+2 in winter), so site-local windows differ from UTC.
 */

let s: TestServer;
let f: TicketsFixture;
/** A second ticket of f's event (VIP), with its attendees. */
let vip: { ticketId: number; attendeeIds: number[] };
/** Another event, with its own manager and lists. */
let g: TicketsFixture;
let organizer: { auth: string; id: number };
let otherOrganizer: { auth: string; id: number };
let L: string;
let A: string;
let n = 0;
const nonce = () => `lists-nonce-${String(++n).padStart(8, '0')}-${Date.now()}`;
const bearer = (k: string) => `Bearer ${k}`;

const createList = async (body: Record<string, unknown>, auth = s.admin) => call(L, { method: 'POST', auth, body });
const listKey = async (listId: number, eventId: number, label = 'Gate') => {
  const { key, row } = await createApiKey(s.db, label, eventId, null, listId);
  return { key: bearer(key), id: row.id };
};
const scan = (id: number, body: Record<string, unknown>, auth: string) =>
  call(`${A}/${id}`, { method: 'PATCH', auth, body: { nonce: nonce(), ...body } });

beforeAll(async () => {
  s = await startTestServer({ EVT_TIMEZONE: 'Europe/Tallinn' });
  L = `${s.root}evt/tickets/v1/checkin-lists`;
  A = `${s.root}evt/tickets/v1/attendees`;
  organizer = await userWithId(s, 'organizer', 'gatekeeper');
  otherOrganizer = await userWithId(s, 'organizer', 'stranger');
  f = await seedTicketsFixture(s.db, { attendees: 12 });
  const vipTicket = await insertTicket(s.db, f.eventId, { title: 'VIP' });
  vip = { ticketId: vipTicket, attendeeIds: (await insertAttendees(s.db, vipTicket, 4)).attendeeIds };
  g = await seedTicketsFixture(s.db, { attendees: 3, eventTitle: 'Another event' });
  await s.db.prepare('UPDATE posts SET author = ? WHERE id = ?').run(organizer.id, f.eventId);
  await s.db.prepare('UPDATE posts SET author = ? WHERE id = ?').run(otherOrganizer.id, g.eventId);
});
afterAll(() => s.close());

describe('list routes', () => {
  test('create with defaults: 201, the list as the contract names its fields', async () => {
    const r = await createList({ event_id: f.eventId, name: 'Main door' }, organizer.auth);
    assert.equal(r.status, 201);
    // The event's current signing key comes with the list (CONTRACT section 8), as the event answer gives it.
    const { signing_key, signing_key_id, ...fields } = r.body;
    const event = await call(`${s.root}evt/events/v1/events/${f.eventId}`, { auth: organizer.auth });
    assert.deepEqual([signing_key, signing_key_id], [event.body.signing_key, event.body.signing_key_id]);
    assert.match(signing_key, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(fields, {
      id: r.body.id,
      event_id: f.eventId,
      name: 'Main door',
      ticket_ids: [],
      allow_reentry: true,
      allow_multiple_entries: false,
      window_start: null,
      window_end: null,
      entries_per_day: null,
      direction: 'entry',
    });
    assert.ok(Number.isInteger(r.body.id));
    const read = await call(`${L}/${r.body.id}`, { auth: organizer.auth });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, r.body);
  });

  test('create with every field; form bodies work too', async () => {
    const r = await createList({
      event_id: f.eventId,
      name: 'VIP lounge',
      ticket_ids: [vip.ticketId],
      allow_reentry: false,
      allow_multiple_entries: true,
      window_start: '2026-12-01 18:00:00',
      window_end: '2026-12-01 23:30:00',
      entries_per_day: 3,
      direction: 'exit',
    });
    assert.equal(r.status, 201);
    assert.deepEqual(
      { ...r.body, id: 0, signing_key: undefined, signing_key_id: undefined },
      {
        id: 0,
        signing_key: undefined,
        signing_key_id: undefined,
        event_id: f.eventId,
        name: 'VIP lounge',
        ticket_ids: [vip.ticketId],
        allow_reentry: false,
        allow_multiple_entries: true,
        window_start: '2026-12-01 18:00:00',
        window_end: '2026-12-01 23:30:00',
        entries_per_day: 3,
        direction: 'exit',
      },
    );
    const form = await call(L, {
      method: 'POST',
      auth: s.admin,
      form: { event_id: String(f.eventId), name: 'Side door', ticket_ids: String(f.ticketId), allow_reentry: 'false', entries_per_day: '2' },
    });
    assert.equal(form.status, 201);
    assert.deepEqual([form.body.ticket_ids, form.body.allow_reentry, form.body.entries_per_day], [[f.ticketId], false, 2]);
  });

  test('validation: missing name, not an event, foreign ticket, bad window, window end before start, bad limit; nothing created', async () => {
    const before = (await call(`${L}?per_page=100`, { auth: s.admin })).body.total;
    const missing = await createList({ event_id: f.eventId });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.deepEqual(missing.body.data.params, ['name']);
    const notEvent = await createList({ event_id: f.ticketId, name: 'X' });
    assert.equal(notEvent.status, 400);
    assert.equal(notEvent.body.code, 'rest_invalid_param');
    assert.ok('event_id' in notEvent.body.data.params);
    const foreign = await createList({ event_id: f.eventId, name: 'X', ticket_ids: [g.ticketId] });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.code, 'rest_invalid_param');
    assert.match(foreign.body.data.params.ticket_ids, new RegExp(String(g.ticketId)));
    const badWindow = await createList({ event_id: f.eventId, name: 'X', window_start: '2026-12-01T18:00:00Z' });
    assert.equal(badWindow.status, 400);
    assert.equal(badWindow.body.code, 'rest_invalid_param');
    assert.ok('window_start' in badWindow.body.data.params);
    const reversed = await createList({ event_id: f.eventId, name: 'X', window_start: '2026-12-02 00:00:00', window_end: '2026-12-01 00:00:00' });
    assert.equal(reversed.status, 400);
    assert.ok('window_end' in reversed.body.data.params);
    for (const v of [0, -1, 1.5, 'many', 1001]) {
      const bad = await createList({ event_id: f.eventId, name: 'X', entries_per_day: v });
      assert.equal(bad.status, 400, `entries_per_day ${v}`);
      assert.ok('entries_per_day' in bad.body.data.params);
    }
    const emptyName = await createList({ event_id: f.eventId, name: '   ' });
    assert.equal(emptyName.status, 400);
    assert.equal((await call(`${L}?per_page=100`, { auth: s.admin })).body.total, before);
  });

  test('patch: fields not sent are kept; null clears a window end or the limit; an invalid patch changes nothing', async () => {
    const c = await createList({ event_id: f.eventId, name: 'Patched', window_start: '2026-12-01 10:00:00', entries_per_day: 2 });
    const id = c.body.id;
    const p = await call(`${L}/${id}`, { method: 'PATCH', auth: organizer.auth, body: { name: 'Renamed', allow_multiple_entries: true } });
    assert.equal(p.status, 200);
    assert.deepEqual(
      [p.body.name, p.body.allow_multiple_entries, p.body.window_start, p.body.entries_per_day],
      ['Renamed', true, '2026-12-01 10:00:00', 2],
    );
    const cleared = await call(`${L}/${id}`, { method: 'PATCH', auth: organizer.auth, body: { window_start: null, entries_per_day: null } });
    assert.equal(cleared.status, 200);
    assert.deepEqual([cleared.body.window_start, cleared.body.entries_per_day, cleared.body.name], [null, null, 'Renamed']);
    const bad = await call(`${L}/${id}`, { method: 'PATCH', auth: organizer.auth, body: { name: 'Never', ticket_ids: [g.ticketId] } });
    assert.equal(bad.status, 400);
    assert.deepEqual((await call(`${L}/${id}`, { auth: s.admin })).body, cleared.body);
    const missing = await call(`${L}/99999999`, { method: 'PATCH', auth: s.admin, body: { name: 'X' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'checkin-list-not-found');
  });

  test('list: by event, paged with ET headers, an organizer sees its own events only', async () => {
    const mine = await call(`${L}?event_id=${f.eventId}&per_page=2`, { auth: organizer.auth });
    assert.equal(mine.status, 200);
    assert.deepEqual(Object.keys(mine.body), ['rest_url', 'total', 'total_pages', 'checkin_lists']);
    assert.ok(mine.body.total >= 4);
    assert.equal(mine.body.checkin_lists.length, 2);
    assert.equal(mine.headers.get('x-et-total'), String(mine.body.total));
    assert.ok(mine.body.checkin_lists.every((l: { event_id: number }) => l.event_id === f.eventId));
    const gList = await createList({ event_id: g.eventId, name: 'Their door' }, otherOrganizer.auth);
    assert.equal(gList.status, 201);
    const all = await call(`${L}?per_page=100`, { auth: organizer.auth });
    assert.ok(all.body.checkin_lists.every((l: { event_id: number }) => l.event_id === f.eventId));
    const theirs = await call(`${L}?event_id=${g.eventId}`, { auth: organizer.auth });
    assert.equal(theirs.body.total, 0);
    const past = await call(`${L}?event_id=${f.eventId}&page=99`, { auth: organizer.auth });
    assert.equal(past.status, 400);
    assert.equal(past.body.code, 'invalid-page-number');
  });

  test('delete: 200 {deleted, previous}, gone after, its keys revoked, its scans kept in the log', async () => {
    const c = await createList({ event_id: f.eventId, name: 'Temporary' });
    const key = await listKey(c.body.id, f.eventId);
    const attendee = f.attendeeIds[11];
    assert.equal((await scan(attendee, { check_in: true }, key.key)).status, 201);
    const d = await call(`${L}/${c.body.id}`, { method: 'DELETE', auth: organizer.auth });
    assert.equal(d.status, 200);
    assert.deepEqual(d.body, { deleted: true, previous: c.body });
    assert.equal((await call(`${L}/${c.body.id}`, { auth: s.admin })).status, 404);
    assert.equal((await call(`${L}/${c.body.id}`, { method: 'DELETE', auth: s.admin })).status, 404);
    const refused = await call(`${A}?per_page=5`, { auth: key.key });
    assert.equal(refused.status, 401);
    const row = (await s.db.prepare('SELECT list_id FROM checkins WHERE attendee_id = ?').get(attendee)) as { list_id: number };
    assert.equal(Number(row.list_id), c.body.id);
    await call(`${A}/${attendee}`, { method: 'PATCH', auth: s.admin, body: { check_in: false } });
  });
});

describe('access', () => {
  let list: { id: number };
  let gList: { id: number };
  beforeAll(async () => {
    list = (await createList({ event_id: f.eventId, name: 'Access', ticket_ids: [vip.ticketId] })).body;
    gList = (await createList({ event_id: g.eventId, name: 'Access elsewhere' })).body;
  });

  test("another event's manager: the list reads as missing, and cannot be changed or deleted", async () => {
    for (const [method, url] of [
      ['GET', `${L}/${list.id}`],
      ['GET', `${L}/${list.id}/status`],
      ['PATCH', `${L}/${list.id}`],
      ['DELETE', `${L}/${list.id}`],
    ] as const) {
      const r = await call(url, { method, auth: otherOrganizer.auth, body: method === 'PATCH' ? { name: 'Mine now' } : undefined });
      assert.equal(r.status, 404, `${method} ${url}`);
      assert.equal(r.body.code, 'checkin-list-not-found');
    }
    const create = await createList({ event_id: f.eventId, name: 'Sneaky' }, otherOrganizer.auth);
    assert.equal(create.status, 403);
    assert.equal(create.body.code, 'rest_forbidden');
    assert.equal((await call(`${L}/${list.id}`, { auth: s.admin })).body.name, 'Access');
  });

  test('anonymous: 401; door keys and door users change no list (403)', async () => {
    assert.equal((await call(`${L}/${list.id}`)).status, 401);
    const door = await s.apiKey('Event door', f.eventId);
    assert.equal((await call(`${L}/${list.id}`, { auth: bearer(door.key) })).status, 200);
    const w = await call(`${L}/${list.id}`, { method: 'PATCH', auth: bearer(door.key), body: { name: 'Door says' } });
    assert.equal(w.status, 403);
    assert.equal((await createList({ event_id: f.eventId, name: 'Door list' }, bearer(door.key))).status, 403);
  });

  test("a key bound to an event reads that event's lists only; a list key reads its own list only", async () => {
    const eventKey = await s.apiKey('Event door 2', f.eventId);
    assert.equal((await call(`${L}/${gList.id}`, { auth: bearer(eventKey.key) })).status, 404);
    const all = await call(`${L}?per_page=100`, { auth: bearer(eventKey.key) });
    assert.ok(all.body.checkin_lists.every((l: { event_id: number }) => l.event_id === f.eventId));
    const key = await listKey(list.id, f.eventId);
    const own = await call(`${L}?per_page=100`, { auth: key.key });
    assert.deepEqual(
      own.body.checkin_lists.map((l: { id: number }) => l.id),
      [list.id],
    );
    // The list key is told which list it is bound to (a kiosk scans through it); an event's key is bound to none.
    assert.equal(own.headers.get('x-evt-key-list'), String(list.id));
    assert.equal(all.headers.get('x-evt-key-list'), null);
    const sibling = (await createList({ event_id: f.eventId, name: 'Sibling' })).body;
    assert.equal((await call(`${L}/${sibling.id}`, { auth: key.key })).status, 404);
    assert.equal((await call(`${L}/${sibling.id}/status`, { auth: key.key })).status, 404);
    assert.equal((await call(`${L}/${gList.id}`, { auth: key.key })).status, 404);
    assert.equal((await call(`${L}?event_id=${g.eventId}`, { auth: key.key })).body.total, 0);
    assert.equal((await call(`${L}/${list.id}`, { auth: key.key })).status, 200);
  });

  test('a list key downloads only the attendees whose ticket its list admits (and only its event)', async () => {
    const key = await listKey(list.id, f.eventId);
    const r = await call(`${A}?per_page=100`, { auth: key.key });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.attendees.map((a: { id: number }) => a.id).sort(), [...vip.attendeeIds].sort());
    const other = await call(`${A}?per_page=100&ticket_id=${f.ticketId}`, { auth: key.key });
    assert.equal(other.body.total, 0);
    const delta = await call(`${A}?per_page=100&changed_since=0`, { auth: key.key });
    assert.deepEqual(
      delta.body.attendees.map((a: { id: number }) => a.id),
      vip.attendeeIds,
    );
    const one = await call(`${A}/${vip.attendeeIds[0]}`, { auth: key.key });
    assert.equal(one.status, 200);
    assert.equal(typeof one.body.security_code, 'string');
    const notAdmitted = await call(`${A}/${f.attendeeIds[0]}`, { auth: key.key });
    assert.equal(notAdmitted.status, 404);
    assert.equal(notAdmitted.body.code, 'attendee-not-found');
    // Nor through the attendees a ticket or an order embeds.
    const gaTicket = await call(`${s.root}evt/tickets/v1/tickets/${f.ticketId}`, { auth: key.key });
    assert.equal(gaTicket.status, 200);
    assert.deepEqual(gaTicket.body.attendees, []);
    const vipTicket = await call(`${s.root}evt/tickets/v1/tickets/${vip.ticketId}`, { auth: key.key });
    assert.deepEqual(vipTicket.body.attendees.map((a: { id: number }) => a.id).sort(), [...vip.attendeeIds].sort());
    const adminView = await call(`${s.root}evt/tickets/v1/tickets/${f.ticketId}`, { auth: s.admin });
    assert.equal(adminView.body.attendees.length, f.attendeeIds.length);
    // Nor as a QR image, which carries the security code.
    const qrOther = await call(`${s.root}evt/tickets/v1/qr/${f.attendeeIds[0]}?format=svg`, { auth: key.key });
    assert.equal(qrOther.status, 403);
    const qrOwn = await call(`${s.root}evt/tickets/v1/qr/${vip.attendeeIds[0]}?format=svg`, { auth: key.key });
    assert.equal(qrOwn.status, 200);
    const allTickets = (await createList({ event_id: f.eventId, name: 'Everyone' })).body;
    const everyone = await listKey(allTickets.id, f.eventId);
    assert.equal((await call(`${A}?per_page=100`, { auth: everyone.key })).body.total, f.attendeeIds.length + vip.attendeeIds.length);
  });

  test('a list key registers attendees at the door on the tickets its list admits only', async () => {
    const key = await listKey(list.id, f.eventId);
    const count = async () => Number(((await s.db.prepare('SELECT COUNT(*) AS n FROM attendees').get()) as { n: number }).n);
    const before = await count();
    const refused = await call(A, {
      method: 'POST',
      auth: key.key,
      body: { ticket_id: f.ticketId, full_name: 'Walk In', email: 'walk@example.test' },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'rest_forbidden');
    assert.equal(await count(), before);
    const made = await call(A, {
      method: 'POST',
      auth: key.key,
      body: { ticket_id: vip.ticketId, full_name: 'VIP Walk In', email: 'vip@example.test' },
    });
    assert.equal(made.status, 201);
    await s.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(made.body.id);
  });

  test("a list key cannot scan through another list; a manager cannot name another event's list", async () => {
    const key = await listKey(list.id, f.eventId);
    const other = (await createList({ event_id: f.eventId, name: 'Other gate' })).body;
    const r = await scan(vip.attendeeIds[3], { check_in: true, list_id: other.id }, key.key);
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'rest_forbidden');
    const m = await scan(vip.attendeeIds[3], { check_in: true, list_id: gList.id }, s.admin);
    assert.equal(m.status, 400);
    assert.equal(m.body.code, 'rest_invalid_param');
    assert.ok('list_id' in m.body.data.params);
    const none = (await s.db.prepare('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?').get(vip.attendeeIds[3])) as { n: number };
    assert.equal(Number(none.n), 0);
    const g0 = await scan(g.attendeeIds[0], { check_in: true }, key.key);
    assert.equal(g0.status, 404);
  });

  test("a list key reads the check-in log of its own list only, never another list's scans", async () => {
    const mine = (await createList({ event_id: f.eventId, name: 'Log A' })).body;
    const theirs = (await createList({ event_id: f.eventId, name: 'Log B' })).body;
    const a = await listKey(mine.id, f.eventId);
    const b = await listKey(theirs.id, f.eventId);
    assert.equal((await scan(f.attendeeIds[8], { check_in: true, device_id: 'log-a' }, a.key)).status, 201);
    assert.equal((await scan(f.attendeeIds[9], { check_in: true, device_id: 'log-b' }, b.key)).status, 201);
    const log = await call(`${s.root}evt/tickets/v1/checkins?per_page=100`, { auth: a.key });
    assert.equal(log.status, 200);
    assert.deepEqual(
      log.body.checkins.map((c: { device_id: string }) => c.device_id),
      ['log-a'],
    );
    const all = await call(`${s.root}evt/tickets/v1/checkins?per_page=100&device_id=log-b`, { auth: s.admin });
    assert.equal(all.body.total, 1);
  });
});

describe('scans through a list: each refusal', () => {
  test('checkin-list-ticket-not-admitted, logged with the list', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'VIP only', ticket_ids: [vip.ticketId] })).body;
    const key = await listKey(list.id, f.eventId);
    const r = await scan(f.attendeeIds[0], { check_in: true }, key.key);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'checkin-list-ticket-not-admitted');
    assert.equal(r.body.data.status, 400);
    const row = (await s.db.prepare('SELECT result, reason, list_id FROM checkins WHERE attendee_id = ? ORDER BY id DESC').get(f.attendeeIds[0])) as {
      result: string;
      reason: string;
      list_id: number;
    };
    assert.deepEqual({ ...row, list_id: Number(row.list_id) }, { result: 'rejected', reason: 'checkin-list-ticket-not-admitted', list_id: list.id });
    const ok = await scan(vip.attendeeIds[0], { check_in: true }, key.key);
    assert.equal(ok.status, 201);
    assert.equal(ok.body.checked_in, true);
  });

  test('checkin-list-closed with the window in data (site-local times); inside the window admitted', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'Evening', window_start: '2026-12-01 18:00:00', window_end: '2026-12-01 20:00:00' }))
      .body;
    const key = await listKey(list.id, f.eventId);
    const id = f.attendeeIds[1];
    // The scans arrive that evening: a device time is believed up to a day before its arrival, never after it.
    s.app.state.services.clock = () => Date.parse('2026-12-01T21:00:00Z');
    // 17:59 in Tallinn is 15:59 UTC: before the window, though 18:00 UTC would be inside it.
    const early = await scan(id, { check_in: true, check_in_date: '2026-12-01T15:59:00Z' }, key.key);
    assert.equal(early.status, 400);
    assert.equal(early.body.code, 'checkin-list-closed');
    assert.deepEqual(early.body.data, { status: 400, window_start: '2026-12-01 18:00:00', window_end: '2026-12-01 20:00:00' });
    const late = await scan(id, { check_in: true, check_in_date: '2026-12-01T18:00:01Z' }, key.key);
    assert.equal(late.body.code, 'checkin-list-closed');
    const retry = { check_in: true, check_in_date: '2026-12-01T15:59:00Z', nonce: nonce() };
    const first = await scan(id, retry, key.key);
    const again = await scan(id, retry, key.key);
    assert.deepEqual(again.body, first.body);
    const inside = await scan(id, { check_in: true, check_in_date: '2026-12-01T16:00:00Z' }, key.key);
    s.app.state.services.clock = undefined;
    assert.equal(inside.status, 201);
  });

  test('tec-et-attendee-already-checked-in: entered, no exit since; multiple entries allowed where the list says so', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'Single' })).body;
    const key = await listKey(list.id, f.eventId);
    const id = f.attendeeIds[2];
    assert.equal((await scan(id, { check_in: true, device_id: 'gate-1' }, key.key)).status, 201);
    const again = await scan(id, { check_in: true }, key.key);
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'tec-et-attendee-already-checked-in');
    assert.equal(again.body.message, 'Attendee is already checked in.');
    assert.equal(again.body.data.checkin_details.device_id, 'gate-1');
    const multi = (await createList({ event_id: f.eventId, name: 'Multi', allow_multiple_entries: true })).body;
    const mkey = await listKey(multi.id, f.eventId);
    assert.equal((await scan(id, { check_in: true }, mkey.key)).status, 201);
    assert.equal((await scan(id, { check_in: true }, mkey.key)).status, 201);
  });

  test('checkin-list-no-reentry after an exit; re-entry allowed by default', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'Once', allow_reentry: false })).body;
    const key = await listKey(list.id, f.eventId);
    const id = f.attendeeIds[3];
    assert.equal((await scan(id, { check_in: true }, key.key)).status, 201);
    const out = await scan(id, { check_in: false }, key.key);
    assert.equal(out.status, 201);
    assert.equal(out.body.checked_in, false);
    const back = await scan(id, { check_in: true }, key.key);
    assert.equal(back.status, 400);
    assert.equal(back.body.code, 'checkin-list-no-reentry');
    const open = (await createList({ event_id: f.eventId, name: 'Open' })).body;
    const okey = await listKey(open.id, f.eventId);
    const id2 = f.attendeeIds[4];
    assert.equal((await scan(id2, { check_in: true }, okey.key)).status, 201);
    assert.equal((await scan(id2, { check_in: false }, okey.key)).status, 201);
    assert.equal((await scan(id2, { check_in: true }, okey.key)).status, 201);
  });

  test('a scan time outside the years a site-local day can show is an invalid parameter, not a fault', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'Daily', entries_per_day: 1 })).body;
    const key = await listKey(list.id, f.eventId);
    for (const date of ['0000-06-01T00:00:00Z', '0001-01-01T00:00:00+05:00']) {
      const r = await scan(f.attendeeIds[10], { check_in: true, check_in_date: date }, key.key);
      assert.equal(r.status, 400, date);
      assert.equal(r.body.code, 'rest_invalid_param');
      assert.ok('check_in_date' in r.body.data.params);
    }
    const none = (await s.db.prepare('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?').get(f.attendeeIds[10])) as { n: number };
    assert.equal(Number(none.n), 0);
  });

  test('checkin-list-entries-exhausted: entries_per_day counted per site-local day', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'Twice a day', entries_per_day: 2 })).body;
    const key = await listKey(list.id, f.eventId);
    const id = f.attendeeIds[5];
    // Each scan arrives half a minute after it was made (a device time is never believed past its arrival).
    const at = (iso: string, check_in: boolean) => {
      s.app.state.services.clock = () => Date.parse(iso) + 30_000;
      return scan(id, { check_in, check_in_date: iso }, key.key);
    };
    assert.equal((await at('2026-12-01T08:00:00Z', true)).status, 201);
    assert.equal((await at('2026-12-01T09:00:00Z', false)).status, 201);
    assert.equal((await at('2026-12-01T10:00:00Z', true)).status, 201);
    assert.equal((await at('2026-12-01T11:00:00Z', false)).status, 201);
    const third = await at('2026-12-01T12:00:00Z', true);
    assert.equal(third.status, 400);
    assert.equal(third.body.code, 'checkin-list-entries-exhausted');
    // 22:30 UTC on the 1st is 00:30 on the 2nd in Tallinn: a new day there.
    assert.equal((await at('2026-12-01T22:30:00Z', true)).status, 201);
    s.app.state.services.clock = undefined;
  });

  test('a manager names list_id on the attendee route; without it the implicit list applies', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'Named', ticket_ids: [vip.ticketId] })).body;
    const r = await scan(f.attendeeIds[6], { check_in: true, list_id: list.id }, organizer.auth);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'checkin-list-ticket-not-admitted');
    const plain = await scan(f.attendeeIds[6], { check_in: true }, organizer.auth);
    assert.equal(plain.status, 201);
  });

  test('the rules go through batch too', async () => {
    const list = (await createList({ event_id: f.eventId, name: 'Batch gate', ticket_ids: [vip.ticketId] })).body;
    const key = await listKey(list.id, f.eventId);
    const r = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: key.key,
      body: {
        requests: [
          { method: 'PATCH', path: `/evt/tickets/v1/attendees/${f.attendeeIds[7]}`, body: { check_in: true, nonce: nonce() } },
          { method: 'PATCH', path: `/evt/tickets/v1/attendees/${vip.attendeeIds[1]}`, body: { check_in: true, nonce: nonce() } },
        ],
      },
    });
    assert.equal(r.status, 207);
    assert.equal(r.body.responses[0].status, 400);
    assert.equal(r.body.responses[0].body.code, 'checkin-list-ticket-not-admitted');
    assert.equal(r.body.responses[1].status, 201);
  });
});

describe('an event without lists', () => {
  test('behaves as before: one check-in, already checked in, re-entry after check-out', async () => {
    const id = g.attendeeIds[1];
    const door = await s.apiKey('Plain door', g.eventId);
    assert.equal((await scan(id, { check_in: true }, bearer(door.key))).status, 201);
    const again = await scan(id, { check_in: true }, bearer(door.key));
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'tec-et-attendee-already-checked-in');
    assert.equal((await scan(id, { check_in: false }, bearer(door.key))).status, 201);
    assert.equal((await scan(id, { check_in: true }, bearer(door.key))).status, 201);
    const rows = (await s.db.prepare('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ? AND list_id IS NOT NULL').get(id)) as { n: number };
    assert.equal(Number(rows.n), 0);
  });
});

describe('status', () => {
  test('{checked_in, inside, expected} for the list, and for the event under `event`', async () => {
    const h = await seedTicketsFixture(s.db, { attendees: 5, eventTitle: 'Counted' });
    const vipT = await insertTicket(s.db, h.eventId, { title: 'VIP' });
    const vipA = (await insertAttendees(s.db, vipT, 3)).attendeeIds;
    await insertAttendees(s.db, vipT, 2, { orderStatus: 'refunded' });
    const list = (await createList({ event_id: h.eventId, name: 'VIP gate', ticket_ids: [vipT] })).body;
    const key = await listKey(list.id, h.eventId);
    const status = async () => (await call(`${L}/${list.id}/status`, { auth: s.admin })).body;
    assert.deepEqual(await status(), { checked_in: 0, inside: 0, expected: 3, event: { checked_in: 0, inside: 0, expected: 8 } });
    await scan(vipA[0], { check_in: true }, key.key);
    await scan(vipA[1], { check_in: true }, key.key);
    await scan(vipA[1], { check_in: false }, key.key);
    await scan(h.attendeeIds[0], { check_in: true }, key.key); // refused: not a VIP ticket
    await scan(h.attendeeIds[1], { check_in: true }, s.admin); // the event's implicit list
    assert.deepEqual(await status(), { checked_in: 2, inside: 1, expected: 3, event: { checked_in: 3, inside: 2, expected: 8 } });
    const byKey = await call(`${L}/${list.id}/status`, { auth: key.key });
    assert.equal(byKey.status, 200);
    assert.deepEqual(byKey.body, await status());
  });
});
