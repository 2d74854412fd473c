import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { parseTicketCode } from '../../../shared/checkin/ticket-code.ts';
import { revokeApiKey } from '../../../server/db/repos/api-keys.ts';

let s: TestServer;
let f: TicketsFixture;
let door: { key: string; id: number };
let Q: string;
const qr = (q: Record<string, string | number>, headers?: Record<string, string>) =>
  call(`${Q}?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString()}`, { headers });
const code = (id: number) => f.codes.get(id)!;
const count = async (sql: string, ...p: unknown[]) => ((await s.db.prepare(sql).get(...p)) as { n: number }).n;

beforeAll(async () => {
  s = await startTestServer();
  Q = `${s.root}evt/tickets/v1/qr`;
  f = await seedTicketsFixture(s.db, { attendees: 6 });
  door = await s.apiKey('Door QR');
});
afterAll(() => s.close());

describe('GET /qr check-in', () => {
  test('success: 201 {"msg":"Checked In!","attendee":{...manager view}}, logged with source app', async () => {
    const id = f.attendeeIds[0];
    const r = await qr({ api_key: door.key, ticket_id: id, security_code: code(id), event_id: f.eventId });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body), ['msg', 'attendee']);
    assert.equal(r.body.msg, 'Checked In!');
    assert.equal(r.body.attendee.id, id);
    // As the original: the attendee as read before the check-in; a read afterwards shows it checked in.
    assert.equal(r.body.attendee.checked_in, false);
    assert.equal(r.body.attendee.checkin_details, false);
    assert.equal(r.body.attendee.security_code, code(id));
    const read = await call(`${s.root}evt/tickets/v1/attendees/${id}`, { auth: s.admin });
    assert.equal(read.body.checked_in, true);
    assert.equal(read.body.checkin_details.source, 'app');
    const row = await s.db.prepare('SELECT result, source, api_key_id FROM checkins WHERE attendee_id = ?').get(id);
    assert.deepEqual({ ...(row as object) }, { result: 'accepted', source: 'app', api_key_id: door.id });
  });

  test('already checked in: 403 attendee_already_checked_in with the attendee; the conflict logged', async () => {
    const id = f.attendeeIds[0];
    const r = await qr({ api_key: door.key, ticket_id: id, security_code: code(id) });
    assert.equal(r.status, 403);
    assert.equal(r.body.msg, 'Already checked in!');
    assert.equal(r.body.error, 'attendee_already_checked_in');
    assert.equal(r.body.attendee.id, id);
    assert.equal(await count("SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ? AND result = 'conflict'", id), 1);
  });

  test('missing parameters: 400 rest_missing_callback_param naming them all', async () => {
    const r = await qr({ ticket_id: f.attendeeIds[1] });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'rest_missing_callback_param');
    assert.equal(r.body.message, 'Missing parameter(s): api_key, security_code');
  });

  test('wrong api key: 400 echoing the inputs', async () => {
    const r = await qr({ api_key: 'random', ticket_id: '11', event_id: '10', security_code: '12' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { api_key: 'random', ticket_id: '11', event_id: '10', security_code: '12' });
    const noEvent = await qr({ api_key: 'random', ticket_id: '11', security_code: '12' });
    assert.deepEqual(noEvent.body, { api_key: 'random', ticket_id: '11', event_id: null, security_code: '12' });
  });

  test('wrong security code: 403 security_code_not_valid, nothing checked in, the refusal logged', async () => {
    const id = f.attendeeIds[1];
    const r = await qr({ api_key: door.key, ticket_id: id, security_code: 'deadbeef00' });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { msg: 'Security code is not valid!', error: 'security_code_not_valid' });
    assert.equal(await count('SELECT checked_in AS n FROM attendees WHERE post_id = ?', id), 0);
    assert.equal(await count("SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ? AND reason = 'wrong_security_code'", id), 1);
  });

  test('security codes match whatever their case and surrounding blanks', async () => {
    const id = f.attendeeIds[5];
    const r = await qr({ api_key: door.key, ticket_id: id, security_code: ` ${code(id).toUpperCase()} ` });
    assert.equal(r.status, 201);
  });

  test('unknown attendee: 403 security_code_not_valid, as a wrong code (IDs cannot be probed)', async () => {
    const r = await qr({ api_key: door.key, ticket_id: 987654, security_code: 'abc' });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { msg: 'Security code is not valid!', error: 'security_code_not_valid' });
  });

  test('order not complete: 403 attendee_not_authorized (escaped apostrophe) with the attendee', async () => {
    const pending = await seedTicketsFixture(s.db, { attendees: 1, orderStatus: 'pending' });
    const id = pending.attendeeIds[0];
    const r = await qr({ api_key: door.key, ticket_id: id, security_code: pending.codes.get(id)! });
    assert.equal(r.status, 403);
    assert.equal(r.body.msg, 'This attendee&#039;s ticket is not authorized to be Checked in. Please check the order status.');
    assert.equal(r.body.error, 'attendee_not_authorized');
    assert.equal(r.body.attendee.order_status, 'pending');
  });

  test('a non-numeric ticket_id is a parameter error; a revoked key is 401 rest_forbidden', async () => {
    assert.equal((await qr({ api_key: door.key, ticket_id: 'abc', security_code: 'x' })).body.code, 'rest_invalid_param');
    const k = await s.apiKey('Revoked');
    await revokeApiKey(s.db, k.id);
    const id = f.attendeeIds[2];
    const r = await qr({ api_key: k.key, ticket_id: id, security_code: code(id) });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'rest_forbidden');
    assert.equal(await count('SELECT checked_in AS n FROM attendees WHERE post_id = ?', id), 0);
  });
});

describe('failure rate limit', () => {
  test('past 10 failed check-ins a minute per key at one address: 429 rest_too_many_requests with Retry-After, even for a good code', async () => {
    const s2 = await startTestServer();
    try {
      const fx = await seedTicketsFixture(s2.db, { attendees: 2 });
      const k = await s2.apiKey('Guesser');
      const Q2 = `${s2.root}evt/tickets/v1/qr`;
      const go = (id: number, sc: string, key = k.key) => call(`${Q2}?api_key=${key}&ticket_id=${id}&security_code=${sc}`);
      for (let i = 0; i < 10; i++) {
        const r = await go(i % 2 ? fx.attendeeIds[0] : 999_000 + i, `guess${i}`);
        assert.equal(r.status, 403, `attempt ${i + 1}`);
      }
      const limited = await go(fx.attendeeIds[1], fx.codes.get(fx.attendeeIds[1])!);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, 'rest_too_many_requests');
      assert.equal(limited.body.data.status, 429);
      const wait = Number(limited.headers.get('retry-after'));
      assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
      assert.equal(((await s2.db.prepare('SELECT checked_in AS n FROM attendees WHERE post_id = ?').get(fx.attendeeIds[1])) as { n: number }).n, 0);
      // Per key at each address (CONTRACT section 3): another door's key from the same address goes on working.
      const other = await s2.apiKey('Second');
      assert.equal((await go(fx.attendeeIds[0], fx.codes.get(fx.attendeeIds[0])!, other.key)).status, 201);
      // A minute later the window has passed.
      const later = Date.now() + 61_000;
      s2.app.state.services.clock = () => later;
      assert.equal((await go(fx.attendeeIds[1], fx.codes.get(fx.attendeeIds[1])!)).status, 201);
    } finally {
      await s2.close();
    }
  });

  test('successes and "already checked in" answers do not count as failures', async () => {
    const s3 = await startTestServer();
    try {
      const fx = await seedTicketsFixture(s3.db, { attendees: 1 });
      const k = await s3.apiKey('Sticky scanner');
      const id = fx.attendeeIds[0];
      const url = `${s3.root}evt/tickets/v1/qr?api_key=${k.key}&ticket_id=${id}&security_code=${fx.codes.get(id)}`;
      assert.equal((await call(url)).status, 201);
      for (let i = 0; i < 15; i++) assert.equal((await call(url)).status, 403);
    } finally {
      await s3.close();
    }
  });
});

describe('GET /qr/{id}', () => {
  test('JSON as the original: {id, checked_in} with "1" or ""', async () => {
    const r = await call(`${Q}/${f.attendeeIds[0]}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { id: f.attendeeIds[0], checked_in: '1' });
    assert.deepEqual((await call(`${Q}/${f.attendeeIds[3]}`)).body, { id: f.attendeeIds[3], checked_in: '' });
  });

  test('not an attendee: 400; a trashed attendee: 403 ticket-not-accessible for the public', async () => {
    assert.equal((await call(`${Q}/${f.eventId}`)).status, 400);
    assert.equal((await call(`${Q}/999999`)).status, 400);
    const fx = await seedTicketsFixture(s.db, { attendees: 1 });
    await s.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(fx.attendeeIds[0]);
    const r = await call(`${Q}/${fx.attendeeIds[0]}`);
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { code: 'ticket-not-accessible', message: 'The requested ticket is not accessible', data: { status: 403 } });
  });

  test('PNG decodes (jsQR) to the check-in URL, which checks the attendee in', async () => {
    const id = f.attendeeIds[4];
    const r = await fetch(`${Q}/${id}?format=png&size=400`, { headers: { authorization: `Bearer ${door.key}` } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'image/png');
    const png = PNG.sync.read(Buffer.from(await r.arrayBuffer()));
    assert.equal(png.width, 400);
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    assert.ok(decoded, 'QR decodes');
    const url = new URL(decoded.data);
    assert.equal(`${url.origin}/`, `${s.base}/`);
    assert.equal(url.searchParams.get('event_qr_code'), '1');
    assert.equal(url.searchParams.get('ticket_id'), String(id));
    assert.equal(url.searchParams.get('event_id'), String(f.eventId));
    assert.equal(url.searchParams.get('security_code'), code(id));
    assert.equal(url.searchParams.get('path'), '/evt/tickets/v1/qr');
    const parsed = parseTicketCode(decoded.data)!;
    const ci = await qr({ api_key: door.key, ticket_id: parsed.attendeeId, security_code: parsed.securityCode, event_id: parsed.eventId! });
    assert.equal(ci.status, 201);
  });

  test('SVG for managers, also under a language segment', async () => {
    const r = await call(`${s.base}/et/wp-json/evt/tickets/v1/qr/${f.attendeeIds[1]}?format=svg`, { auth: s.admin });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'image/svg+xml');
    assert.match(r.text, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  test('images for door and manager callers only, and a bound key only for its event', async () => {
    const anon = await call(`${Q}/${f.attendeeIds[1]}?format=png`);
    assert.equal(anon.status, 401);
    assert.equal(anon.body.code, 'rest_forbidden');
    assert.equal((await call(`${Q}/${f.attendeeIds[1]}?format=gif`)).body.code, 'rest_invalid_param');
    const other = await seedTicketsFixture(s.db, { attendees: 1 });
    const bound = await s.apiKey('Other event door', other.eventId);
    const r = await call(`${Q}/${f.attendeeIds[1]}?format=svg`, { auth: `Bearer ${bound.key}` });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'rest_forbidden');
    assert.equal((await call(`${Q}/${other.attendeeIds[0]}?format=svg`, { auth: `Bearer ${bound.key}` })).status, 200);
  });
});
