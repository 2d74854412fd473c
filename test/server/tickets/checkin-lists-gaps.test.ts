import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertAttendees, insertTicket, seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { createApiKey } from '../../../server/auth/credentials.ts';

/**
 * Check-in lists, the gaps closed after issue 22 (CONTRACT section 8): QR check-in through a list-bound key answers
 * the attendee route's refusals; an exit through a list is that list's exit; the device's scan time is bounded by
 * the arrival time where the list rules decide; editing a list's tickets moves the attendee cursor for the attendees
 * it admits or no longer admits; the list's pass log can be read from a cursor in arrival order.
 */

let s: TestServer;
let f: TicketsFixture;
let vip: { ticketId: number; attendeeIds: number[]; codes: Map<number, string> };
let L: string;
let A: string;
let n = 0;
const nonce = () => `gaps-nonce-${String(++n).padStart(8, '0')}-${Date.now()}`;
const bearer = (k: string) => `Bearer ${k}`;

const createList = async (body: Record<string, unknown>) => {
  const r = await call(L, { method: 'POST', auth: s.admin, body: { event_id: f.eventId, ...body } });
  assert.equal(r.status, 201, r.text);
  return r.body as { id: number };
};
const listKey = async (listId: number, label = 'Gate') => {
  const { key, row } = await createApiKey(s.db, label, f.eventId, null, listId);
  return { key, auth: bearer(key), id: row.id };
};
const scan = (id: number, body: Record<string, unknown>, auth: string) =>
  call(`${A}/${id}`, { method: 'PATCH', auth, body: { nonce: nonce(), ...body } });

beforeAll(async () => {
  s = await startTestServer({ EVT_TIMEZONE: 'Europe/Tallinn' });
  L = `${s.root}evt/tickets/v1/checkin-lists`;
  A = `${s.root}evt/tickets/v1/attendees`;
  f = await seedTicketsFixture(s.db, { attendees: 12 });
  const vipTicket = await insertTicket(s.db, f.eventId, { title: 'VIP' });
  const v = await insertAttendees(s.db, vipTicket, 6);
  vip = { ticketId: vipTicket, attendeeIds: v.attendeeIds, codes: v.codes };
});
afterAll(() => s.close());
afterEach(() => {
  s.app.state.services.clock = undefined;
});

describe('QR check-in through a list-bound key', () => {
  const qr = (key: string, id: number, code: string) =>
    call(`${s.root}evt/tickets/v1/qr?api_key=${key}&ticket_id=${id}&event_id=${f.eventId}&security_code=${code}`);

  test('refusals answer as the attendee route does: 400 with the list codes and the standing check-in', async () => {
    const list = await createList({ name: 'VIP by QR', ticket_ids: [vip.ticketId] });
    const key = await listKey(list.id);
    const general = f.attendeeIds[0]!;
    const other = await qr(key.key, general, f.codes.get(general)!);
    assert.equal(other.status, 400, other.text);
    assert.equal(other.body.code, 'checkin-list-ticket-not-admitted');
    assert.deepEqual(other.body.data, { status: 400 });
    const guest = vip.attendeeIds[0]!;
    const first = await qr(key.key, guest, vip.codes.get(guest)!);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.msg, 'Checked In!');
    const again = await qr(key.key, guest, vip.codes.get(guest)!);
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.code, 'tec-et-attendee-already-checked-in');
    assert.equal(again.body.data.checkin_details.source, 'app');
    // The same refusal through the attendee route, for comparison: the same code and envelope.
    const viaRoute = await scan(guest, { check_in: true }, key.auth);
    assert.equal(viaRoute.status, 400);
    assert.deepEqual(Object.keys(viaRoute.body), Object.keys(again.body));
    assert.equal(viaRoute.body.code, again.body.code);
    // A wrong security code stays the original's 403 (no check-in was decided; IDs cannot be probed).
    const wrong = await qr(key.key, guest, 'deadbeefdeadbeef');
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.error, 'security_code_not_valid');
  });

  test('a window refusal carries the window; a key bound to no list keeps the original 403 shape', async () => {
    const list = await createList({ name: 'Closed by QR', window_start: '2001-01-01 10:00:00', window_end: '2001-01-01 12:00:00' });
    const key = await listKey(list.id);
    const guest = vip.attendeeIds[1]!;
    const closed = await qr(key.key, guest, vip.codes.get(guest)!);
    assert.equal(closed.status, 400, closed.text);
    assert.equal(closed.body.code, 'checkin-list-closed');
    assert.deepEqual(closed.body.data, { status: 400, window_start: '2001-01-01 10:00:00', window_end: '2001-01-01 12:00:00' });
    const eventKey = (await createApiKey(s.db, 'Event door', f.eventId, null)).key;
    const id = f.attendeeIds[1]!;
    assert.equal((await qr(eventKey, id, f.codes.get(id)!)).status, 201);
    const twice = await qr(eventKey, id, f.codes.get(id)!);
    assert.equal(twice.status, 403);
    assert.equal(twice.body.error, 'attendee_already_checked_in');
  });
});

describe('an exit through a list is that list’s exit', () => {
  const status = async (listId: number) => (await call(`${L}/${listId}/status`, { auth: s.admin })).body;
  const inside = async (id: number) => (await call(`${A}/${id}`, { auth: s.admin })).body.checked_in as boolean;

  test('leaving the lounge keeps the guest inside the festival; leaving the festival too checks out of the event', async () => {
    const main = await createList({ name: 'Festival gate', ticket_ids: [vip.ticketId] });
    const lounge = await createList({ name: 'Lounge', ticket_ids: [vip.ticketId] });
    const gate = await listKey(main.id, 'Festival gate');
    const door = await listKey(lounge.id, 'Lounge door');
    const guest = vip.attendeeIds[2]!;
    const others = (await status(main.id)).event.inside as number;
    assert.equal((await scan(guest, { check_in: true, device_id: 'gate-1' }, gate.auth)).status, 201);
    assert.equal((await scan(guest, { check_in: true, device_id: 'lounge-1' }, door.auth)).status, 201);
    const out = await scan(guest, { check_in: false }, door.auth);
    assert.equal(out.status, 201, out.text);
    assert.equal(out.body.checked_in, true, 'still inside through the festival gate');
    assert.equal(out.body.checkin_details.device_id, 'gate-1', 'the standing check-in is the festival gate’s entry');
    assert.equal((await status(lounge.id)).inside, 0);
    assert.equal((await status(main.id)).inside, 1);
    assert.equal((await status(main.id)).event.inside, others + 1);
    // Back into the lounge: its own re-entry rule decides, the festival entry is untouched.
    assert.equal((await scan(guest, { check_in: true, device_id: 'lounge-1' }, door.auth)).status, 201);
    // Out of the festival: still in the lounge (the lists are independent), so still checked in.
    assert.equal((await scan(guest, { check_in: false }, gate.auth)).body.checked_in, true);
    assert.equal((await scan(guest, { check_in: false }, door.auth)).body.checked_in, false, 'inside no list: checked out');
    assert.equal(await inside(guest), false);
    assert.equal((await status(main.id)).event.inside, others);
  });

  test('an exit through a list the guest is not inside changes nothing; an exit through no list still leaves the event', async () => {
    const main = await createList({ name: 'Gate B', ticket_ids: [vip.ticketId] });
    const lounge = await createList({ name: 'Lounge B', ticket_ids: [vip.ticketId] });
    const gate = await listKey(main.id);
    const door = await listKey(lounge.id);
    const guest = vip.attendeeIds[3]!;
    assert.equal((await scan(guest, { check_in: true }, gate.auth)).status, 201);
    const stray = await scan(guest, { check_in: false }, door.auth);
    assert.equal(stray.status, 201);
    assert.equal(stray.body.checked_in, true, 'not inside the lounge: its exit lets nobody out');
    assert.equal((await status(main.id)).inside, 1);
    // A manager's exit through no list is an exit from the event, as before lists.
    assert.equal((await scan(guest, { check_in: false }, s.admin)).body.checked_in, false);
    // The lounge's later exit cannot bring back the entry the event exit ended.
    assert.equal((await scan(guest, { check_in: true }, door.auth)).status, 201);
    assert.equal((await scan(guest, { check_in: false }, door.auth)).body.checked_in, false);
  });
});

describe('the device’s scan time is bounded by the arrival where a list decides', () => {
  // 2026-12-05 20:00 in Tallinn (18:00 UTC): the scans arrive then.
  const ARRIVAL = Date.parse('2026-12-05T18:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  const HOUR = 3_600_000;

  test('a key cannot backdate a scan into a window that closed more than a day ago; an offline upload within a day is decided at its time', async () => {
    s.app.state.services.clock = () => ARRIVAL;
    // Open on the 3rd only (site time): closed when the scans arrive.
    const list = await createList({ name: 'Opening night', window_start: '2026-12-03 18:00:00', window_end: '2026-12-03 23:00:00' });
    const key = await listKey(list.id);
    const [a, b] = [vip.attendeeIds[4]!, vip.attendeeIds[5]!];
    // Claimed 2026-12-03 19:00 Tallinn: inside the window, but two days before arrival: not believed.
    const backdated = await scan(a, { check_in: true, check_in_date: '2026-12-03T17:00:00Z' }, key.auth);
    assert.equal(backdated.status, 400, backdated.text);
    assert.equal(backdated.body.code, 'checkin-list-closed');
    const logged = (await s.db.prepare('SELECT scanned_at FROM checkins WHERE attendee_id = ? ORDER BY id DESC').get(a)) as { scanned_at: string };
    assert.equal(Date.parse(logged.scanned_at), ARRIVAL, 'the refused pass is logged at the time it was decided at');
    // A window that closed 2 hours before arrival: an offline kiosk's scan made inside it is believed.
    const recent = await createList({ name: 'Matinee', window_start: '2026-12-05 15:00:00', window_end: '2026-12-05 18:00:00' });
    const rkey = await listKey(recent.id);
    const offline = await scan(b, { check_in: true, check_in_date: iso(ARRIVAL - 3 * HOUR) }, rkey.auth);
    assert.equal(offline.status, 201, offline.text);
    assert.equal(offline.body.checkin_details.date, '2026-12-05 17:00:00');
  });

  test('a scan time after its arrival is decided at the arrival (no entry into a window that has not opened)', async () => {
    s.app.state.services.clock = () => ARRIVAL;
    const guest = f.attendeeIds[8]!;
    const list = await createList({ name: 'Late show', window_start: '2026-12-05 22:00:00' });
    const key = await listKey(list.id);
    // Claimed 22:30 Tallinn (two and a half hours ahead): decided at arrival, 20:00 there, before the window.
    const ahead = await scan(guest, { check_in: true, check_in_date: '2026-12-05T20:30:00Z' }, key.auth);
    assert.equal(ahead.status, 400, ahead.text);
    assert.equal(ahead.body.code, 'checkin-list-closed');
  });

  test('the daily limit counts the believed day: a backdated claim onto yesterday takes no second entry today', async () => {
    s.app.state.services.clock = () => ARRIVAL;
    const list = await createList({ name: 'Once a day', entries_per_day: 1 });
    const key = await listKey(list.id);
    const guest = f.attendeeIds[9]!;
    assert.equal((await scan(guest, { check_in: true }, key.auth)).status, 201);
    assert.equal((await scan(guest, { check_in: false }, key.auth)).status, 201);
    // Claimed three days ago (another site-local day with an entry left): decided today, where none is left.
    const again = await scan(guest, { check_in: true, check_in_date: iso(ARRIVAL - 72 * HOUR) }, key.auth);
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.code, 'checkin-list-entries-exhausted');
  });
});

describe('editing the tickets a list admits moves the attendee cursor', () => {
  const download = async (auth: string, since: number | string) => {
    const r = await call(`${A}?post_id=${f.eventId}&changed_since=${since}&per_page=100&door=1`, { auth });
    assert.equal(r.status, 200, r.text);
    return { ids: (r.body.attendees as Array<{ id: number }>).map((a) => a.id).sort((a, b) => a - b), cursor: r.headers.get('x-evt-cursor')! };
  };

  test('a kiosk on the list downloads the newly admitted attendees at its next delta; others keep their place', async () => {
    const list = await createList({ name: 'Widening', ticket_ids: [vip.ticketId] });
    const key = await listKey(list.id);
    const full = await download(key.auth, 0);
    assert.deepEqual(
      full.ids,
      [...vip.attendeeIds].sort((a, b) => a - b),
    );
    const quiet = await download(key.auth, full.cursor);
    assert.deepEqual(quiet.ids, []);
    const widened = await call(`${L}/${list.id}`, { method: 'PATCH', auth: s.admin, body: { ticket_ids: [vip.ticketId, f.ticketId] } });
    assert.equal(widened.status, 200, widened.text);
    const delta = await download(key.auth, full.cursor);
    assert.deepEqual(
      delta.ids,
      [...f.attendeeIds].sort((a, b) => a - b),
      'the general attendees, now admitted',
    );
    // Narrowed to the general ticket only: the VIP attendees move (no longer admitted), the general ones do not.
    const manager = await download(s.admin, delta.cursor);
    assert.deepEqual(manager.ids, []);
    await call(`${L}/${list.id}`, { method: 'PATCH', auth: s.admin, body: { ticket_ids: [f.ticketId] } });
    const moved = await download(s.admin, delta.cursor);
    assert.deepEqual(
      moved.ids,
      [...vip.attendeeIds].sort((a, b) => a - b),
    );
    // A change of anything else moves nobody.
    await call(`${L}/${list.id}`, { method: 'PATCH', auth: s.admin, body: { name: 'Renamed', ticket_ids: [f.ticketId] } });
    assert.deepEqual((await download(s.admin, moved.cursor)).ids, []);
  });
});

describe('the check-in log read from a cursor (a kiosk on a list syncs its passes)', () => {
  test('after_id answers only what arrived after the cursor, oldest first, with the next cursor; an old scan time uploaded late still comes after it', async () => {
    const list = await createList({ name: 'Cursor gate', ticket_ids: [vip.ticketId] });
    const key = await listKey(list.id);
    const log = async (after: number | string) => {
      const r = await call(`${s.root}evt/tickets/v1/checkins?result=accepted,checked_out&per_page=100&after_id=${after}`, { auth: key.auth });
      assert.equal(r.status, 200, r.text);
      return {
        ids: (r.body.checkins as Array<{ id: number; attendee_id: number }>).map((c) => c.attendee_id),
        cursor: r.headers.get('x-evt-cursor'),
      };
    };
    const [a, b] = [vip.attendeeIds[0]!, vip.attendeeIds[1]!];
    // The server's clock moves on by minutes between the scans and the reads: on PostgreSQL the cursor stops at the
    // rows that arrived a minute ago (checkinLogCursor), which each read here is past.
    let ahead = 0;
    s.app.state.services.clock = () => Date.now() + ahead;
    assert.equal((await scan(a, { check_in: true }, key.auth)).status, 201);
    ahead = 2 * 60_000;
    const first = await log(0);
    assert.deepEqual(first.ids, [a]);
    assert.match(first.cursor ?? '', /^\d+$/);
    assert.deepEqual((await log(first.cursor!)).ids, [], 'nothing new');
    // An offline kiosk uploads a scan made an hour ago: its scan time is older than the first one's, its arrival later.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    assert.equal((await scan(b, { check_in: true, check_in_date: hourAgo }, key.auth)).status, 201);
    ahead = 4 * 60_000;
    const next = await log(first.cursor!);
    assert.deepEqual(next.ids, [b]);
    assert.ok(Number(next.cursor) > Number(first.cursor));
    // Without after_id the log answers as before, with no cursor.
    const plain = await call(`${s.root}evt/tickets/v1/checkins?result=accepted`, { auth: key.auth });
    assert.equal(plain.headers.get('x-evt-cursor'), null);
  });
});

describe('an exit list', () => {
  test('every scan through it is an exit from the event, whatever check_in says, on the attendee route and by QR; every list reads it', async () => {
    const entry = await createList({ name: 'Way in', ticket_ids: [vip.ticketId] });
    const lounge = await createList({ name: 'Lounge C', ticket_ids: [vip.ticketId] });
    const exit = await createList({ name: 'Way out', ticket_ids: [vip.ticketId], direction: 'exit' });
    assert.equal((await call(`${L}/${exit.id}`, { auth: s.admin })).body.direction, 'exit');
    const inKey = await listKey(entry.id);
    const loungeKey = await listKey(lounge.id);
    const outKey = await listKey(exit.id);
    const guest = vip.attendeeIds[4]!;
    const rows = async () =>
      (
        (await s.db.prepare('SELECT result, reason FROM checkins WHERE attendee_id = ? AND list_id = ? ORDER BY id').all(guest, exit.id)) as Array<{
          result: string;
          reason: string | null;
        }>
      ).map((r) => `${r.result}/${r.reason}`);
    // Not inside the event: the exit (check_in: true sent) lets nobody out and enters nobody.
    const first = await scan(guest, { check_in: true }, outKey.auth);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.checked_in, false);
    assert.deepEqual(await rows(), ['checked_out/not_checked_in']);
    // In through the way in and the lounge; the way out (by QR, which only knows check-in) lets the guest out of all.
    assert.equal((await scan(guest, { check_in: true }, inKey.auth)).status, 201);
    assert.equal((await scan(guest, { check_in: true }, loungeKey.auth)).status, 201);
    const byQr = await call(`${s.root}evt/tickets/v1/qr?api_key=${outKey.key}&ticket_id=${guest}&security_code=${vip.codes.get(guest)}`);
    assert.equal(byQr.status, 201, byQr.text);
    assert.equal(byQr.body.msg, 'Checked Out!');
    assert.deepEqual(await rows(), ['checked_out/not_checked_in', 'checked_out/null']);
    assert.equal((await call(`${A}/${guest}`, { auth: s.admin })).body.checked_in, false);
    for (const l of [entry, lounge]) assert.equal((await call(`${L}/${l.id}/status`, { auth: s.admin })).body.inside, 0, 'out of every list');
    // Each list's rules read the exit: back in through the way in (re-entry after an exit), not "already inside".
    assert.equal((await scan(guest, { check_in: true }, inKey.auth)).status, 201);
    // The entry list's kiosk reads the exit in its log.
    const log = await call(`${s.root}evt/tickets/v1/checkins?attendee_id=${guest}&result=checked_out`, { auth: inKey.auth });
    assert.equal((log.body.checkins as unknown[]).length, 2);
    // A lounge exit now: the standing entry is the way in's, not the lounge's entry the event exit ended.
    assert.equal((await scan(guest, { check_in: false }, loungeKey.auth)).body.checked_in, true);
  });

  test("a key bound to a list reads the exits of its list's attendees only, not of everyone the exit list lets out", async () => {
    const vipGate = await createList({ name: 'VIP only', ticket_ids: [vip.ticketId] });
    const door = await createList({ name: 'Main exit', ticket_ids: [], direction: 'exit' });
    const outKey = await listKey(door.id);
    const vipKey = await listKey(vipGate.id);
    const general = f.attendeeIds[11]!;
    const guest = vip.attendeeIds[5]!;
    for (const id of [general, guest]) assert.equal((await scan(id, { check_in: true }, outKey.auth)).status, 201);
    const log = await call(`${s.root}evt/tickets/v1/checkins?result=checked_out&after_id=0`, { auth: vipKey.auth });
    assert.equal(log.status, 200, log.text);
    const seen = (log.body.checkins as { attendee_id: number }[]).map((c) => c.attendee_id);
    assert.ok(seen.includes(guest), JSON.stringify(seen));
    assert.ok(!seen.includes(general), `a general ticket's exit is not the VIP key's to read: ${JSON.stringify(seen)}`);
  });
});
