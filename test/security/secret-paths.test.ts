import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../helpers/tickets-fixture.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import { createAppPassword } from '../../server/auth/credentials.ts';
import { slowHash, slowHashVerifications } from '../../server/auth/hash.ts';
import { insertAppPassword } from '../../server/db/repos/app-passwords.ts';
import { insertApiKey, setApiKeyHash, getApiKey } from '../../server/db/repos/api-keys.ts';

/**
 * Issue 21, findings 1 to 4 and 12 (CONTRACT section 3): every way a door key arrives meets one path and one
 * limit; the limits fall on whoever fails, never on a rightful caller; an unknown login and a wrong password
 * cost the same work whatever was asked before; failed QR check-ins are limited per key at each address.
 *
 * Checked against main 738fe83 (the server files of this change stashed, the test kept): the flood of JSON-body
 * keys was answered 400 eleven times (never 429) and ran scrypt for each; the right password from a fresh address
 * and the real door key from the guests' address got 429; the second unknown login with one password cost no
 * verification while a known login cost one; the key's forged codes at one address stopped it at another.
 * Each source address is its own loopback address (all of 127.0.0.0/8 is loopback on Linux).
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

function send(from: string, method: string, url: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, localAddress: from, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const random = (n: number) =>
  Array.from({ length: n }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 62)]).join('');

let s: TestServer;
let fx: TicketsFixture;
let qr: string;

beforeAll(async () => {
  s = await startTestServer();
  fx = await seedTicketsFixture(s.db, { attendees: 4 });
  qr = `${s.root}evt/tickets/v1/qr`;
});
afterAll(() => s.close());

describe('finding 1: a door key in any part of a request meets one limit, and costs no slow hash', () => {
  test('JSON bodies through a method override: 10 unknown keys answer 400, the 11th 429; no scrypt runs', async () => {
    const from = '127.0.21.1';
    const before = slowHashVerifications();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await send(
        from,
        'POST',
        qr,
        { 'content-type': 'application/json', 'x-http-method-override': 'GET' },
        JSON.stringify({ api_key: `dsk_1_${random(32)}`, ticket_id: fx.attendeeIds[0], security_code: '00' }),
      );
      statuses.push(r.status);
      if (i === 10) {
        assert.equal(r.body.code, 'rest_too_many_requests');
        assert.ok(Number(r.headers['retry-after']) >= 1);
      }
    }
    assert.deepEqual(statuses, [...Array(10).fill(400), 429]);
    assert.equal(slowHashVerifications() - before, 0, 'door keys are checked by their fast hash');
  });

  test('query, form, JSON and multipart bodies, and the header, all count against the same limit', async () => {
    const from = '127.0.21.2';
    const q = (k: string) => `${qr}?ticket_id=${fx.attendeeIds[0]}&security_code=00&api_key=${k}`;
    const ways: (() => Promise<Answer>)[] = [
      () => send(from, 'GET', q(`dsk_1_${random(32)}`)),
      () => send(from, 'GET', q(`dsk_1_${random(32)}`)),
      () =>
        send(
          from,
          'POST',
          qr,
          { 'content-type': 'application/x-www-form-urlencoded', 'x-http-method-override': 'GET' },
          new URLSearchParams({ api_key: `dsk_1_${random(32)}`, ticket_id: String(fx.attendeeIds[0]), security_code: '00' }).toString(),
        ),
      () =>
        send(
          from,
          'POST',
          `${qr}?_method=GET`,
          { 'content-type': 'application/json' },
          JSON.stringify({ api_key: `dsk_1_${random(32)}`, ticket_id: fx.attendeeIds[0], security_code: '00' }),
        ),
      async () => {
        const b = `----b${random(12)}`;
        const part = (n: string, v: string) => `--${b}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`;
        const body = `${part('api_key', `dsk_1_${random(32)}`)}${part('ticket_id', String(fx.attendeeIds[0]))}${part('security_code', '00')}--${b}--\r\n`;
        return await send(from, 'POST', qr, { 'content-type': `multipart/form-data; boundary=${b}`, 'x-http-method-override': 'GET' }, body);
      },
      () => send(from, 'GET', `${s.root}evt/events/v1/events`, { authorization: `Bearer dsk_1_${random(32)}` }),
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await ways[i % ways.length]()).status);
    assert.ok(!statuses.includes(429), statuses.join(' '));
    for (const way of ways) assert.equal((await way()).status, 429);
  });
});

describe('finding 2: nobody can lock a login out', () => {
  test('10 wrong passwords for a login from one address; the right one from another address is accepted at once', async () => {
    const u = await insertUser(s.db, { login: 'chief', email: 'chief@example.test', role: 'administrator' });
    const { password } = await createAppPassword(s.db, u.id, 'laptop');
    for (let i = 0; i < 10; i++)
      assert.equal((await send('127.0.22.1', 'GET', `${s.root}evt/events/v1/events`, { authorization: basic('chief', `wrong ${i}`) })).status, 401);
    assert.equal((await send('127.0.22.1', 'GET', `${s.root}evt/events/v1/events`, { authorization: basic('chief', 'wrong again') })).status, 429);
    assert.equal(
      (await send('127.0.22.2', 'GET', `${s.root}evt/events/v1/events?status=draft`, { authorization: basic('chief', password) })).status,
      200,
    );
    // Even at the address that failed, the right (random) application password is its owner's.
    assert.equal(
      (await send('127.0.22.1', 'GET', `${s.root}evt/events/v1/events?status=draft`, { authorization: basic('chief', password) })).status,
      200,
    );
  });
});

describe("finding 3: guests cannot lock a venue's kiosks out", () => {
  test('11 random keys from the venue address; the real door key from there still lists attendees and checks in', async () => {
    const door = await s.apiKey('Door 1');
    const venue = '127.0.23.1';
    for (let i = 0; i < 11; i++)
      await send(venue, 'GET', `${qr}?api_key=dsk_${door.id}_${random(32)}&ticket_id=${fx.attendeeIds[1]}&security_code=00`);
    const list = await send(venue, 'GET', `${s.root}evt/tickets/v1/attendees?post_id=${fx.eventId}&api_key=${door.key}`);
    assert.equal(list.status, 200);
    const scan = await send(
      venue,
      'GET',
      `${qr}?api_key=${door.key}&ticket_id=${fx.attendeeIds[1]}&security_code=${fx.codes.get(fx.attendeeIds[1])}`,
    );
    assert.equal(scan.status, 201, JSON.stringify(scan.body));
    // The guests themselves are still limited.
    assert.equal((await send(venue, 'GET', `${qr}?api_key=dsk_${door.id}_${random(32)}&ticket_id=1&security_code=00`)).status, 429);
  });
});

describe('finding 4: an unknown login and a wrong password cost the same, whatever was asked before', () => {
  test('after an unknown login with password P, another unknown login with P costs one verification, as a known login does', async () => {
    const u = await insertUser(s.db, { login: 'known', email: 'known@example.test', role: 'organizer' });
    await createAppPassword(s.db, u.id, 'x');
    const P = 'the same guess every time';
    const cost = async (login: string, from: string) => {
      const before = slowHashVerifications();
      const r = await send(from, 'GET', `${s.root}evt/events/v1/events`, { authorization: basic(login, P) });
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, {
        code: 'incorrect_password',
        message: 'The provided password is an invalid application password.',
        data: { status: 401 },
      });
      return slowHashVerifications() - before;
    };
    const costs = [
      await cost('nobody1', '127.0.24.1'),
      await cost('nobody2', '127.0.24.2'),
      await cost('known', '127.0.24.3'),
      await cost('nobody1', '127.0.24.4'),
    ];
    assert.deepEqual(costs, [1, 1, 1, 1]);
  });
});

describe('finding 12: failed QR check-ins are limited per key at each address', () => {
  test('10 forged codes at one scanner: the key is refused there, and goes on working at another door', async () => {
    const door = await s.apiKey('Door 2');
    const a = fx.attendeeIds[2];
    for (let i = 0; i < 10; i++)
      assert.equal((await send('127.0.25.1', 'GET', `${qr}?api_key=${door.key}&ticket_id=${a}&security_code=forged${i}`)).status, 403);
    const limited = await send('127.0.25.1', 'GET', `${qr}?api_key=${door.key}&ticket_id=${a}&security_code=${fx.codes.get(a)}`);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    const other = await send('127.0.25.2', 'GET', `${qr}?api_key=${door.key}&ticket_id=${a}&security_code=${fx.codes.get(a)}`);
    assert.equal(other.status, 201, JSON.stringify(other.body));
    // Another key at the first address is not stopped by this key's failures.
    const second = await s.apiKey('Door 3');
    assert.equal(
      (await send('127.0.25.1', 'GET', `${qr}?api_key=${second.key}&ticket_id=${fx.attendeeIds[3]}&security_code=${fx.codes.get(fx.attendeeIds[3])}`))
        .status,
      201,
    );
  });
});

describe('secrets stored with the old slow hash keep working, and move to the fast hash on first use', () => {
  test('an application password and a door key hashed with scrypt sign in once slowly, then by their fast hashes', async () => {
    const u = await insertUser(s.db, { login: 'oldtimer', email: 'old@example.test', role: 'administrator' });
    const plain = random(24);
    const ap = await insertAppPassword(s.db, u.id, 'old', slowHash(plain));
    const k = await insertApiKey(s.db, { label: 'Old door', hash: 'pending', eventId: null, createdBy: null });
    const key = `dsk_${k.id}_${random(32)}`;
    await setApiKeyHash(s.db, k.id, slowHash(key));
    const readAp = async () => ((await s.db.prepare('SELECT hash FROM app_passwords WHERE id = ?').get(ap.id)) as { hash: string }).hash;
    const url = `${s.root}evt/events/v1/events?status=draft`;
    const before = slowHashVerifications();
    assert.equal((await send('127.0.26.1', 'GET', url, { authorization: basic('oldtimer', plain.match(/.{4}/g)!.join(' ')) })).status, 200);
    assert.equal((await send('127.0.26.1', 'GET', url, { authorization: `Bearer ${key}` })).status, 200);
    assert.equal(slowHashVerifications() - before, 2);
    assert.match(await readAp(), /^sha256\$/);
    assert.match((await getApiKey(s.db, k.id))!.hash, /^sha256\$/);
    const after = slowHashVerifications();
    assert.equal((await send('127.0.26.1', 'GET', url, { authorization: basic('oldtimer', plain) })).status, 200);
    assert.equal((await send('127.0.26.1', 'GET', url, { authorization: `Bearer ${key}` })).status, 200);
    assert.equal(slowHashVerifications() - after, 0);
  });
});

describe('other secrets a route checks itself meet the same per-address limit', () => {
  test('wrong mail-app tokens and forged forms views tokens: 401/403 ten times, then 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await send('127.0.27.1', 'GET', `${s.root}mail-log/v1/get-logs`, { fcm_token: random(40) })).status);
    assert.deepEqual(statuses, [...Array(10).fill(401), 429]);
    const views: number[] = [];
    for (let i = 0; i < 11; i++)
      views.push((await send('127.0.27.2', 'GET', `${s.root}forms-views/forms`, { 'x-evt-formsviews-auth': `forged.${random(30)}` })).status);
    assert.deepEqual(views, [...Array(10).fill(403), 429]);
  });
});
