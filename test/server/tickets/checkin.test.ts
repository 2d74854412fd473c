import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { classifyCheckinResponse } from '../../../shared/checkin/wire.ts';
import { revokeApiKey } from '../../../server/db/repos/api-keys.ts';

let s: TestServer;
let f: TicketsFixture;
let door1: { key: string; id: number };
let door2: { key: string; id: number };
let A: string;
let C: string;
let n = 0;
const nonce = () => `test-nonce-${String(++n).padStart(8, '0')}-${Date.now()}`;
const bearer = (k: string) => `Bearer ${k}`;
const patch = (id: number, body: Record<string, unknown>, auth: string | null = bearer(door1.key), method = 'PATCH') =>
  call(`${A}/${id}`, { method, auth: auth ?? undefined, body });
const logOf = async (query: string) => (await call(`${C}?per_page=100&${query}`, { auth: s.admin })).body;
const count = async (sql: string, ...p: unknown[]) => ((await s.db.prepare(sql).get(...p)) as { n: number }).n;

beforeAll(async () => {
  s = await startTestServer({ EVT_TIMEZONE: 'Europe/Tallinn' });
  A = `${s.root}evt/tickets/v1/attendees`;
  C = `${s.root}evt/tickets/v1/checkins`;
  f = await seedTicketsFixture(s.db, { attendees: 12 });
  door1 = await s.apiKey('Door 1');
  door2 = await s.apiKey('Door 2');
});
afterAll(() => s.close());

describe('check-in through the attendee route', () => {
  test('first check-in: 201 with checkin_details {date (the scan time, site time), date_details, source, author, device_id}', async () => {
    const id = f.attendeeIds[0];
    const r = await patch(id, { check_in: true, check_in_date: '2026-11-22T09:30:15+02:00', device_id: 'door-a', nonce: nonce() });
    assert.equal(r.status, 201);
    assert.equal(r.body.id, id);
    assert.equal(r.body.checked_in, true);
    assert.deepEqual(r.body.checkin_details, {
      date: '2026-11-22 09:30:15',
      date_details: { year: '2026', month: '11', day: '22', hour: '09', minutes: '30', seconds: '15' },
      source: 'site',
      author: 0,
      device_id: 'door-a',
    });
    assert.equal(classifyCheckinResponse(r.status, r.body).kind, 'accepted');
    const log = await logOf(`attendee_id=${id}`);
    assert.equal(log.total, 1);
    assert.equal(log.checkins[0].result, 'accepted');
    assert.equal(log.checkins[0].scanned_at, '2026-11-22T07:30:15.000Z');
    assert.equal(log.checkins[0].device_id, 'door-a');
    assert.equal(log.checkins[0].api_key_id, door1.id);
  });

  test('the same nonce again: 201, the same attendee, nothing recorded twice (POST, PUT and PATCH alike)', async () => {
    const id = f.attendeeIds[1];
    const body = { check_in: true, device_id: 'door-a', nonce: nonce() };
    const first = await patch(id, body);
    assert.equal(first.status, 201);
    for (const method of ['PATCH', 'POST', 'PUT']) {
      const again = await patch(id, body, bearer(door1.key), method);
      assert.equal(again.status, 201);
      assert.deepEqual(again.body, first.body);
    }
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?', id), 1);
  });

  test('two devices admitting the same attendee: exactly one accepted, the loser told when and where, the conflict logged', async () => {
    const id = f.attendeeIds[2];
    const [a, b] = await Promise.all([
      patch(id, { check_in: true, device_id: 'door-1', nonce: nonce(), check_in_date: '2026-11-22T10:00:00Z' }, bearer(door1.key)),
      patch(id, { check_in: true, device_id: 'door-2', nonce: nonce(), check_in_date: '2026-11-22T10:00:01Z' }, bearer(door2.key)),
    ]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [201, 400]);
    const [win, lose] = a.status === 201 ? [a, b] : [b, a];
    assert.equal(lose.body.code, 'tec-et-attendee-already-checked-in');
    assert.equal(lose.body.message, 'Attendee is already checked in.');
    const { device_label: label, ...details } = lose.body.data.checkin_details;
    assert.deepEqual(details, win.body.checkin_details);
    // Additive: the winning door's key label, so the losing kiosk names the door ("Door 2"), not a hex ID.
    assert.equal(label, win === a ? 'Door 1' : 'Door 2');
    const standing = classifyCheckinResponse(lose.status, lose.body);
    assert.equal(standing.kind, 'conflict');
    assert.equal(standing.kind === 'conflict' && standing.standing?.device_label, label);
    const log = await logOf(`attendee_id=${id}`);
    assert.deepEqual(
      log.checkins.map((c: { result: string }) => c.result),
      ['accepted', 'conflict'],
    );
    const conflicts = await logOf(`result=conflict&post_id=${f.eventId}`);
    assert.equal(conflicts.checkins.filter((c: { attendee_id: number }) => c.attendee_id === id).length, 1);
    const other = win.body.checkin_details.device_id === 'door-1' ? 'door-2' : 'door-1';
    const lost = (await logOf(`device_id=${other}&attendee_id=${id}`)).checkins[0];
    assert.equal(lost.result, 'conflict');
    assert.equal(lost.device_label, other === 'door-1' ? 'Door 1' : 'Door 2', "the log names each scan's door key");
  });

  test('the losing scan replayed with its nonce answers the conflict again and logs nothing new', async () => {
    const id = f.attendeeIds[3];
    assert.equal((await patch(id, { check_in: true, nonce: nonce() })).status, 201);
    const losing = { check_in: true, device_id: 'door-2', nonce: nonce() };
    const lost = await patch(id, losing, bearer(door2.key));
    assert.equal(lost.status, 400);
    const again = await patch(id, losing, bearer(door2.key));
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, lost.body);
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?', id), 2);
  });

  test('check_in false checks out (logged as checked_out) and allows re-entry', async () => {
    const id = f.attendeeIds[4];
    assert.equal((await patch(id, { check_in: true, nonce: nonce(), device_id: 'door-a' })).status, 201);
    const out = await patch(id, { check_in: false, nonce: nonce(), device_id: 'door-a' });
    assert.equal(out.status, 201);
    assert.equal(out.body.checked_in, false);
    assert.equal(out.body.checkin_details, false);
    const back = await patch(id, { check_in: true, nonce: nonce(), device_id: 'door-b' });
    assert.equal(back.status, 201);
    assert.equal(back.body.checkin_details.device_id, 'door-b');
    const log = await logOf(`attendee_id=${id}`);
    assert.deepEqual(
      log.checkins.map((c: { result: string }) => c.result),
      ['accepted', 'checked_out', 'accepted'],
    );
  });

  test('order not complete: 400 tec-et-attendee-invalid-check-in, the refusal logged, the attendee unchanged', async () => {
    const pending = await seedTicketsFixture(s.db, { attendees: 1, orderStatus: 'pending' });
    const id = pending.attendeeIds[0];
    const r = await patch(id, { check_in: true, nonce: nonce() });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      code: 'tec-et-attendee-invalid-check-in',
      message: 'Attendee Order status is not authorized for check-in.',
      data: { status: 400 },
    });
    assert.equal(await count('SELECT checked_in AS n FROM attendees WHERE post_id = ?', id), 0);
    const log = await logOf(`attendee_id=${id}`);
    assert.equal(log.checkins[0].result, 'rejected');
    assert.equal(log.checkins[0].reason, 'order_not_complete');
  });

  test("a failed scan undoes the same request's other edits but keeps its log row", async () => {
    const id = f.attendeeIds[5];
    assert.equal((await patch(id, { check_in: true, nonce: nonce() })).status, 201);
    // Field edits are an administrator's or organizer's (a door changes check-in state only).
    const r = await patch(id, { check_in: true, nonce: nonce(), full_name: 'Should Not Stick' }, s.admin);
    assert.equal(r.status, 400);
    assert.equal((await call(`${A}/${id}`, { auth: s.admin })).body.title, 'Guest 6');
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?', id), 2);
  });

  test('attendee_status: invalid-attendee-status for a bad one; a valid one changes the order status', async () => {
    const pending = await seedTicketsFixture(s.db, { attendees: 1, orderStatus: 'pending' });
    const id = pending.attendeeIds[0];
    const bad = await patch(id, { attendee_status: 'going' }, s.admin);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, {
      code: 'invalid-attendee-status',
      message: 'Supported statuses for this attendee are: completed | pending | refunded | cancelled | failed',
      data: { status: 400 },
    });
    const ok = await patch(id, { attendee_status: 'completed', check_in: true, nonce: nonce() }, s.admin);
    assert.equal(ok.status, 201);
    assert.equal(ok.body.order_status, 'completed');
    assert.equal(ok.body.checked_in, true);
  });

  test('plain edits answer 201 too; name and e-mail are validated', async () => {
    const id = f.attendeeIds[6];
    const r = await patch(id, { full_name: 'New Name', email: 'new@name.test' }, s.admin);
    assert.equal(r.status, 201);
    assert.equal(r.body.title, 'New Name');
    assert.equal(r.body.email, 'new@name.test');
    assert.equal((await patch(id, { email: 'nope' }, s.admin)).body.code, 'rest_invalid_param');
  });

  test('parameter errors: short nonce, bad check_in, bad check_in_date; nothing recorded', async () => {
    const id = f.attendeeIds[7];
    const before = await count('SELECT COUNT(*) AS n FROM checkins');
    const short = await patch(id, { check_in: true, nonce: 'short' });
    assert.equal(short.status, 400);
    assert.equal(short.body.code, 'rest_invalid_param');
    assert.ok('nonce' in short.body.data.params);
    assert.equal((await patch(id, { check_in: 'maybe' })).body.code, 'rest_invalid_param');
    const date = await patch(id, { check_in: true, nonce: nonce(), check_in_date: 'yesterday' });
    assert.equal(date.status, 400);
    assert.ok('check_in_date' in date.body.data.params);
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins'), before);
  });

  test('unknown attendee: 404; a nonce reused for another attendee: 400', async () => {
    assert.equal((await patch(999999, { check_in: true, nonce: nonce() })).status, 404);
    const used = nonce();
    assert.equal((await patch(f.attendeeIds[8], { check_in: true, nonce: used })).status, 201);
    const r = await patch(f.attendeeIds[9], { check_in: true, nonce: used });
    assert.equal(r.status, 400);
    assert.ok('nonce' in r.body.data.params);
    assert.equal(await count('SELECT checked_in AS n FROM attendees WHERE post_id = ?', f.attendeeIds[9]), 0);
  });

  test('a trashed attendee cannot be checked in: 404, refusal logged as revoked', async () => {
    const fx = await seedTicketsFixture(s.db, { attendees: 1 });
    await s.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(fx.attendeeIds[0]);
    const r = await patch(fx.attendeeIds[0], { check_in: true, nonce: nonce() });
    assert.equal(r.status, 404);
    assert.equal((await logOf(`attendee_id=${fx.attendeeIds[0]}`)).checkins[0].reason, 'revoked');
  });

  test('anonymous callers: 401 rest_forbidden; a revoked key: 401 rest_forbidden, nothing changed', async () => {
    const id = f.attendeeIds[10];
    const anon = await patch(id, { check_in: true, nonce: nonce() }, null);
    assert.equal(anon.status, 401);
    assert.equal(anon.body.code, 'rest_forbidden');
    const k = await s.apiKey('Lost tablet');
    assert.equal((await call(`${A}/${id}`, { auth: bearer(k.key) })).status, 200);
    await revokeApiKey(s.db, k.id);
    const r = await patch(id, { check_in: true, nonce: nonce() }, bearer(k.key));
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'rest_forbidden');
    const q = await call(`${A}/${id}?api_key=${k.key}`);
    assert.equal(q.status, 401);
    assert.equal(await count('SELECT checked_in AS n FROM attendees WHERE post_id = ?', id), 0);
  });

  test('a key bound to another event: 404 and no check-in', async () => {
    const other = await seedTicketsFixture(s.db, { attendees: 1 });
    const bound = await s.apiKey('Bound', other.eventId);
    const r = await patch(f.attendeeIds[11], { check_in: true, nonce: nonce() }, bearer(bound.key));
    assert.equal(r.status, 404);
    assert.equal(await count('SELECT checked_in AS n FROM attendees WHERE post_id = ?', f.attendeeIds[11]), 0);
  });
});

describe('the check-in log', () => {
  test('filters: post_id, device_id, result, after, before; paging with X-ET-TOTAL headers', async () => {
    const fx = await seedTicketsFixture(s.db, { attendees: 4 });
    const [a, b, c, d] = fx.attendeeIds;
    await patch(a, { check_in: true, nonce: nonce(), device_id: 'log-1', check_in_date: '2026-01-01T10:00:00Z' });
    await patch(b, { check_in: true, nonce: nonce(), device_id: 'log-2', check_in_date: '2026-01-02T10:00:00Z' });
    await patch(b, { check_in: true, nonce: nonce(), device_id: 'log-1', check_in_date: '2026-01-03T10:00:00Z' });
    await patch(c, { check_in: true, nonce: nonce(), device_id: 'log-2', check_in_date: '2026-01-04T10:00:00Z' });
    await patch(c, { check_in: false, nonce: nonce(), device_id: 'log-2', check_in_date: '2026-01-05T10:00:00Z' });
    void d;
    const all = await call(`${C}?post_id=${fx.eventId}&per_page=2`, { auth: bearer(door1.key) });
    assert.equal(all.status, 200);
    assert.equal(all.headers.get('x-et-total'), '5');
    assert.equal(all.headers.get('x-et-total-pages'), '3');
    assert.deepEqual(Object.keys(all.body), ['rest_url', 'total', 'total_pages', 'checkins']);
    assert.deepEqual(Object.keys(all.body.checkins[0]), [
      'id',
      'attendee_id',
      'post_id',
      'result',
      'reason',
      'date',
      'date_details',
      'scanned_at',
      'received_at',
      'device_id',
      'nonce',
      'source',
      'author',
      'api_key_id',
      'device_label',
    ]);
    assert.equal((await logOf(`post_id=${fx.eventId}&device_id=log-1`)).total, 2);
    assert.deepEqual(
      (await logOf(`post_id=${fx.eventId}&result=conflict,checked_out`)).checkins.map((x: { result: string }) => x.result),
      ['conflict', 'checked_out'],
    );
    assert.equal((await logOf(`post_id=${fx.eventId}&after=2026-01-02T10:00:00Z&before=2026-01-04T10:00:00Z`)).total, 3);
    const desc = await logOf(`post_id=${fx.eventId}&order=DESC`);
    assert.equal(desc.checkins[0].result, 'checked_out');
    const past = await call(`${C}?post_id=${fx.eventId}&per_page=2&page=4`, { auth: s.admin });
    assert.equal(past.status, 400);
    assert.equal(past.body.code, 'invalid-page-number');
    assert.equal((await call(`${C}?result=maybe`, { auth: s.admin })).body.code, 'rest_invalid_param');
  });

  test('managers only: anonymous 401', async () => {
    const r = await call(C);
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'rest_forbidden');
  });
});
