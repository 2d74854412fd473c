import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import { createAppPassword } from '../../server/auth/credentials.ts';

/**
 * Failed sign-ins are limited per login at each client address, unknown keys per address (CONTRACT section 3):
 * past 10 failures in 5 minutes the answer is `429 rest_too_many_requests` with `Retry-After`, and the limits
 * never refuse a rightful caller (a generated application password or a door key that is right is accepted
 * wherever others failed). Unknown user and wrong password get one answer (D5). The whole 127.0.0.0/8 block is loopback on Linux, so each test speaks from its own
 * source addresses (`localAddress`) and the server sees them as distinct clients.
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

function callFrom(from: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress: from, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
  });
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const WRONG = 'abcd efgh ijkl mnop qrst uvwx';

let s: TestServer;
let url: string;
let logged: Record<string, unknown>[];
const users = new Map<string, string>();

async function user(login: string): Promise<string> {
  const u = await insertUser(s.db, { login, email: `${login}@example.test`, role: 'organizer' });
  const { password } = await createAppPassword(s.db, u.id, 'test');
  users.set(login, password);
  return password;
}

beforeAll(async () => {
  s = await startTestServer();
  url = `${s.root}evt/events/v1/events?status=draft`;
  logged = [];
  s.app.state.log = (e) => logged.push(e);
  for (const l of ['alice', 'bob', 'carol', 'dave', 'erin']) await user(l);
});
afterAll(() => s.close());

describe('failed sign-ins', () => {
  test('one login at one address: 10 wrong passwords answer 401, the 11th 429 with Retry-After; right ones are still accepted', async () => {
    const from = '127.0.0.2';
    for (let i = 0; i < 10; i++) {
      const r = await callFrom(from, url, { authorization: basic('alice', `${WRONG}${i}`) });
      assert.equal(r.status, 401, `attempt ${i + 1}`);
      assert.equal(r.body.code, 'incorrect_password');
    }
    const limited = await callFrom(from, url, { authorization: basic('alice', WRONG) });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'rest_too_many_requests');
    assert.equal(limited.body.data.status, 429);
    const wait = Number(limited.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 300, `Retry-After ${limited.headers['retry-after']}`);
    // Another login at that address is not limited, and a right (random) application password is accepted even
    // for the limited login there: it cannot be guessed, so refusing it would only lock its owner out.
    assert.equal((await callFrom(from, url, { authorization: basic('bob', users.get('bob')!) })).status, 200);
    assert.equal((await callFrom(from, url, { authorization: basic('alice', users.get('alice')!) })).status, 200);
    assert.equal((await callFrom(from, url, { authorization: basic('alice', WRONG) })).status, 429);
    // Another address is not limited.
    assert.equal((await callFrom('127.0.0.3', url, { authorization: basic('alice', WRONG) })).status, 401);
  });

  test('unknown user, wrong password and a header without a colon get the same status, code and message', async () => {
    const from = '127.0.0.4';
    const wrong = await callFrom(from, url, { authorization: basic('carol', WRONG) });
    const unknown = await callFrom(from, url, { authorization: basic('nobody-here', WRONG) });
    const noColon = await callFrom(from, url, { authorization: `Basic ${Buffer.from('carol').toString('base64')}` });
    for (const r of [wrong, unknown, noColon]) {
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { code: 'incorrect_password', message: wrong.body.message, data: { status: 401 } });
    }
    assert.equal(wrong.body.message, 'The provided password is an invalid application password.');
  });

  test('one login: failures from 10 addresses limit it at none of them, nor elsewhere', async () => {
    for (let i = 0; i < 10; i++) {
      const r = await callFrom(`127.0.1.${i + 1}`, url, { authorization: basic('dave', `${WRONG}${i}`) });
      assert.equal(r.status, 401, `attempt ${i + 1}`);
    }
    assert.equal((await callFrom('127.0.1.50', url, { authorization: basic('dave', users.get('dave')!) })).status, 200);
    assert.equal((await callFrom('127.0.1.1', url, { authorization: basic('dave', WRONG) })).status, 401);
    // The login is matched whatever its case: 8 more failures (10 in all) at one address limit it there.
    for (let i = 0; i < 8; i++) assert.equal((await callFrom('127.0.1.1', url, { authorization: basic('DAVE', WRONG) })).status, 401);
    const limited = await callFrom('127.0.1.1', url, { authorization: basic('Dave', WRONG) });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  });

  test('unknown logins are limited like known ones (a 429 tells nobody who exists)', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await callFrom('127.0.2.1', url, { authorization: basic('ghost', `${WRONG}${i}`) })).status, 401);
    assert.equal((await callFrom('127.0.2.1', url, { authorization: basic('ghost', WRONG) })).status, 429);
  });

  test('wrong API keys, as Bearer or api_key parameter, are limited per address; a right key works there and elsewhere', async () => {
    const good = await s.apiKey('Door');
    const from = '127.0.3.1';
    for (let i = 0; i < 5; i++) {
      const r = await callFrom(from, url, { authorization: `Bearer dsk_${good.id}_${'x'.repeat(30)}${i}` });
      assert.equal(r.status, 401, `bearer ${i + 1}`);
    }
    for (let i = 0; i < 5; i++) {
      // An unknown api_key parameter leaves the caller anonymous (the QR route answers that case itself).
      const r = await callFrom(from, `${s.root}evt/events/v1/events?api_key=dsk_9999_${'y'.repeat(30)}${i}`);
      assert.equal(r.status, 200, `api_key ${i + 1}`);
    }
    const limited = await callFrom(from, url, { authorization: `Bearer dsk_${good.id}_${'w'.repeat(32)}` });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await callFrom(from, `${s.root}evt/events/v1/events?api_key=dsk_9999_${'z'.repeat(30)}`)).status, 429);
    // The right key is accepted at the address where the wrong ones were refused (kiosks share it with guests).
    assert.equal((await callFrom(from, url, { authorization: `Bearer ${good.key}` })).status, 200);
    // A wrong secret for key ID N does not lock key N out for everyone else.
    assert.equal((await callFrom('127.0.3.2', url, { authorization: `Bearer ${good.key}` })).status, 200);
  });

  test('a revoked key and malformed keys are not counted: they cannot be guesses (a kiosk retrying with its revoked key locks no one out)', async () => {
    const revoked = await s.apiKey('Old door');
    await s.db.prepare("UPDATE api_keys SET revoked_at = '2030-01-01 00:00:00' WHERE id = ?").run(revoked.id);
    const good = await s.apiKey('Door');
    const from = '127.0.3.9';
    for (let i = 0; i < 12; i++) {
      const r = await callFrom(from, url, { authorization: `Bearer ${revoked.key}` });
      assert.equal(r.status, 401);
      assert.equal(r.body.code, 'rest_forbidden');
      assert.equal((await callFrom(from, `${s.root}evt/events/v1/events?api_key=not-a-door-key-${i}`)).status, 200);
    }
    assert.equal((await callFrom(from, url, { authorization: `Bearer ${good.key}` })).status, 200);
  });

  test('failures are logged with login and address, never the password', async () => {
    logged.length = 0;
    await callFrom('127.0.4.1', url, { authorization: basic('carol', 'secret-guess-123') });
    const entry = logged.find((e) => e.msg === 'sign-in failed');
    assert.ok(entry, JSON.stringify(logged));
    assert.equal(entry.level, 'warn');
    assert.equal(entry.login, 'carol');
    assert.equal(entry.ip, '127.0.4.1');
    assert.ok(!JSON.stringify(logged).includes('secret-guess-123'));
  });

  test('a right password signs in from a fresh address (the ordinary path is unchanged)', async () => {
    const r = await call(`${s.root}evt/events/v1/events`, { auth: basic('carol', users.get('carol')!) });
    assert.equal(r.status, 200);
  });

  test('30 requests at once with one right password or key are one check: all answered, none 429', async () => {
    const from = '127.0.9.1';
    const pw = await user('frank');
    const key = (await s.apiKey('Burst door')).key;
    const burst = (headers: Record<string, string>) => Promise.all(Array.from({ length: 30 }, () => callFrom(from, url, headers)));
    const statuses = (rs: Answer[]) => [...new Set(rs.map((r) => r.status))];
    assert.deepEqual(statuses(await burst({ authorization: basic('frank', pw) })), [200]);
    assert.deepEqual(statuses(await burst({ authorization: `Bearer ${key}` })), [200]);
  });

  test('the limit lifts once the failures are 5 minutes old', async () => {
    const from = '127.0.0.2'; // alice is limited there by the first test
    assert.equal((await callFrom(from, url, { authorization: basic('alice', WRONG) })).status, 429);
    s.app.state.services.clock = () => Date.now() + 5 * 60_000 + 1_000;
    try {
      assert.equal((await callFrom(from, url, { authorization: basic('alice', WRONG) })).status, 401);
    } finally {
      delete s.app.state.services.clock;
    }
  });
});
