import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { ensureAdmin } from '../../../server/auth/credentials.ts';
import { passwordWeaknesses } from '../../../server/security/password-strength.ts';

const NS = 'security/v1';

describe('security/v1', () => {
  let s: TestServer;
  const url = (r: string) => `${s.root}${NS}${r}`;
  const scan = () => call(url('/scan'), { method: 'POST', auth: s.admin });
  const issues = async (group = 'all') => (await call(url(`/scan/issues?group=${group}`), { auth: s.admin })).body;
  const types = async () => ((await issues()).issues as { type: string }[]).map((i) => i.type).sort();

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  test('password strength verdicts', () => {
    assert.deepEqual(passwordWeaknesses('boss', 'password123'), ['too_short', 'common']);
    assert.ok(passwordWeaknesses('boss', 'P@ssw0rd2024!').includes('common'));
    assert.ok(passwordWeaknesses('boss', 'bossbossboss1!A').includes('contains_login'));
    assert.ok(passwordWeaknesses('boss', 'aaaaaaaaaaaaaaaa').includes('repetitive'));
    assert.ok(passwordWeaknesses('boss', 'abcdefghijklmnop').includes('single_character_class'));
    assert.deepEqual(passwordWeaknesses('boss', 'Tq8#vL2m!Zr9wX4p'), []);
  });

  test("a scan finds this site's real weaknesses and stores them", async () => {
    assert.deepEqual(await issues(), { count: 0, 'last-scan-time': null, issues: [] });
    const r = await scan();
    assert.equal(r.status, 200);
    assert.equal(r.body.success, true);
    // The test server's administrator logs in as "admin" and the public URL is plain HTTP on loopback.
    assert.deepEqual(await types(), ['default_admin_login', 'public_url_not_https']);
    const https = (await issues()).issues.find((i: { type: string }) => i.type === 'public_url_not_https');
    assert.equal(https.severity, 25);
    assert.equal(https.status, 'new');

    const unused = await s.apiKey('Door 1');
    const idle = await s.apiKey('Door 2');
    await s.db.prepare("UPDATE api_keys SET last_used = datetime('now', '-120 days') WHERE id = ?").run(idle.id);
    await s.db.prepare("INSERT INTO options (name, value) VALUES ('users_can_register', '1'), ('default_role', 'administrator')").run();
    for (let i = 0; i < 3; i++) await s.userAuth('administrator');
    await ensureAdmin(s.db, 'boss', 'password123');
    const second = await scan();
    assert.equal(second.body.scan.issue_count, 7);
    assert.deepEqual(await types(), [
      'api_key_never_used',
      'api_key_unused',
      'default_admin_login',
      'open_registration',
      'public_url_not_https',
      'too_many_administrators',
      'weak_admin_password',
    ]);
    const list = (await issues()).issues as { type: string; severity: number; data: Record<string, unknown>; shortMsg: string }[];
    assert.equal(list[0].severity, 100, 'most severe first');
    const weak = list.find((i) => i.type === 'weak_admin_password')!;
    assert.deepEqual(weak.data, { login: 'boss', weaknesses: ['too_short', 'common'] });
    assert.equal(JSON.stringify(list).includes('password123'), false, 'the password itself is never stored or shown');
    assert.equal(list.find((i) => i.type === 'api_key_never_used')!.data.key_id, unused.id);
    assert.equal(list.find((i) => i.type === 'api_key_unused')!.data.key_id, idle.id);
    assert.equal(list.find((i) => i.type === 'open_registration')!.severity, 100);
    assert.equal(list.find((i) => i.type === 'too_many_administrators')!.data.count, 5);

    // Fixing a problem makes it disappear from the next scan.
    await ensureAdmin(s.db, 'boss', 'Tq8#vL2m!Zr9wX4p-long');
    await s.db.prepare("UPDATE options SET value = '0' WHERE name = 'users_can_register'").run();
    await scan();
    assert.deepEqual(await types(), [
      'api_key_never_used',
      'api_key_unused',
      'default_admin_login',
      'public_url_not_https',
      'too_many_administrators',
    ]);
  });

  test('issues page, filter, read one and dismiss (permanently or until changed) across scans', async () => {
    await scan();
    const all = await issues();
    assert.equal(all.count, 5);
    const page = (await call(url('/scan/issues?offset=1&limit=2'), { auth: s.admin })).body;
    assert.deepEqual(
      page.issues.map((i: { id: number }) => i.id),
      all.issues.slice(1, 3).map((i: { id: number }) => i.id),
    );
    const https = all.issues.find((i: { type: string }) => i.type === 'public_url_not_https');
    const admins = all.issues.find((i: { type: string }) => i.type === 'too_many_administrators');
    const one = await call(url(`/scan/issue?id=${https.id}`), { auth: s.admin });
    assert.deepEqual(one.body, https);

    assert.deepEqual((await call(url('/scan/issue'), { method: 'POST', auth: s.admin, body: { issue: { id: https.id, status: 'ignoreP' } } })).body, {
      success: true,
    });
    assert.deepEqual(
      (await call(url('/scan/issue'), { method: 'PATCH', auth: s.admin, body: { issue: { id: String(admins.id), status: 'ignoreC' } } })).body,
      { success: true },
    );
    assert.equal((await issues('pending')).count, 3);
    await scan();
    const after1 = await issues();
    assert.equal(after1.issues.find((i: { type: string }) => i.type === 'public_url_not_https').status, 'ignoreP');
    assert.equal(after1.issues.find((i: { type: string }) => i.type === 'too_many_administrators').status, 'ignoreC');
    await s.userAuth('administrator');
    await scan();
    const after2 = await issues();
    assert.equal(after2.issues.find((i: { type: string }) => i.type === 'public_url_not_https').status, 'ignoreP');
    assert.equal(
      after2.issues.find((i: { type: string }) => i.type === 'too_many_administrators').status,
      'new',
      'ignore-until-changed lapses when the details change',
    );
    const again = after2.issues.find((i: { type: string }) => i.type === 'public_url_not_https');
    await call(url('/scan/issue'), { method: 'PUT', auth: s.admin, body: { issue: { id: again.id, status: 'new' } } });
    await scan();
    assert.equal((await issues()).issues.find((i: { type: string }) => i.type === 'public_url_not_https').status, 'new');

    assert.deepEqual((await call(url('/scan/issue'), { method: 'POST', auth: s.admin, body: { issue: { id: 999999, status: 'ignoreP' } } })).body, {
      success: false,
      error: 'Issue not found.',
    });
    assert.deepEqual((await call(url('/scan/issue'), { method: 'POST', auth: s.admin, body: { issue: { status: 'new' } } })).body, {
      success: false,
      error: 'Issue not found.',
    });
    const badStatus = await call(url('/scan/issue'), {
      method: 'POST',
      auth: s.admin,
      body: { issue: { id: again.id, status: 'delete-everything' } },
    });
    assert.equal(badStatus.status, 400);
    assert.deepEqual(Object.keys(badStatus.body.data.params), ['issue']);
    assert.equal((await call(url('/scan/issue?id=999999'), { auth: s.admin })).status, 404);
    const noId = await call(url('/scan/issue'), { auth: s.admin });
    assert.equal(noId.status, 400);
    assert.equal(noId.body.code, 'rest_missing_callback_param');
    assert.deepEqual((await call(url('/scan'), { method: 'DELETE', auth: s.admin })).body, { success: true, running: false });
  });

  test('config reads and saves settings, refusing bad values with 422 and changing nothing', async () => {
    const r = await call(url('/config'), { auth: s.admin });
    assert.equal(r.status, 200);
    assert.equal(r.body.config.apiKeyMaxIdleDays, 90);
    assert.equal(r.body.info.https, false);
    assert.equal(typeof r.body.info.last_scan_time, 'number');
    const some = await call(url('/config?fields=maxAdministrators,apiKeyMaxIdleDays'), { auth: s.admin });
    assert.deepEqual(some.body.config, { apiKeyMaxIdleDays: 90, maxAdministrators: 3 });

    const empty = await call(url('/config'), { method: 'POST', auth: s.admin, body: { fields: {} } });
    assert.equal(empty.status, 422);
    assert.equal(empty.body.code, 'rest_save_config_error');
    const bad = await call(url('/config'), { method: 'POST', auth: s.admin, body: { fields: { maxAdministrators: 0, nope: 1 } } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.message, 'Errors occurred while saving the configuration: Invalid value for maxAdministrators, Unknown option: nope');
    const email = await call(url('/config'), { method: 'PATCH', auth: s.admin, body: { fields: { alertEmails: 'ops@example.org, not an email' } } });
    assert.equal(email.body.message, 'An error occurred while saving the configuration: Invalid value for alertEmails');
    assert.equal((await call(url('/config'), { auth: s.admin })).body.config.maxAdministrators, 3);

    const form = await call(url('/config'), {
      method: 'POST',
      auth: s.admin,
      form: { 'fields[scansEnabled_https]': 'false', 'fields[maxAdministrators]': '10' },
    });
    assert.deepEqual(form.body, { success: true });
    const saved = (await call(url('/config'), { auth: s.admin })).body.config;
    assert.equal(saved.scansEnabled_https, false);
    assert.equal(saved.maxAdministrators, 10);
    await scan();
    const t = await types();
    assert.equal(t.includes('public_url_not_https'), false);
    assert.equal(t.includes('too_many_administrators'), false);
  });

  test('premium license, account connection, signed authentication and disconnect', async () => {
    const account = crypto.generateKeyPairSync('ed25519');
    const accountHex = account.publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
    const siteId = crypto.randomUUID();
    const notConnected = await call(url('/authenticate'), { method: 'POST', body: { data: 'x|y', signature: '00' } });
    assert.equal(notConnected.status, 401);
    assert.equal(notConnected.body.message, 'Site is not connected to the security service.');
    const early = await call(url('/premium-connect'), { method: 'POST', auth: s.admin, body: { 'public-key': accountHex, 'site-id': siteId } });
    assert.equal(early.status, 403);

    const badKey = await call(url('/authenticate-premium'), { method: 'POST', auth: s.admin, body: { license_key: 'not-a-key' } });
    assert.equal(badKey.status, 400);
    const license = 'ab'.repeat(40);
    const prem = await call(url('/authenticate-premium'), { method: 'POST', auth: s.admin, body: { license_key: license } });
    assert.deepEqual(prem.body, { success: true, premium: true, key_last4: 'abab' });
    const stored = (await s.db.prepare("SELECT value FROM options WHERE name = 'security.premium'").get()) as { value: string };
    assert.equal(stored.value.includes(license), false, 'the license key is stored hashed');

    for (const body of [
      { 'public-key': 'xyz', 'site-id': siteId },
      { 'public-key': accountHex, 'site-id': 'nope' },
      { 'public-key': accountHex, 'site-id': siteId, 'site-data': 'str' },
    ]) {
      const r = await call(url('/premium-connect'), { method: 'POST', auth: s.admin, body });
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    const conn = await call(url('/premium-connect'), {
      method: 'PUT',
      auth: s.admin,
      body: { 'public-key': accountHex, 'site-id': siteId, 'site-data': { plan: 'care' } },
    });
    assert.equal(conn.body.success, true);
    assert.match(conn.body['public-key'], /^[0-9a-f]{64}$/);
    assert.equal((await call(url('/config'), { auth: s.admin })).body.info.connected, true);

    const n = await call(url('/authenticate'));
    assert.equal(n.status, 200);
    assert.match(n.body.nonce, /^[0-9a-f]{64}$/);
    const data = `${n.body.nonce}|${siteId}`;
    const signature = crypto.sign(null, Buffer.from(data), account.privateKey).toString('hex');
    const auth = await call(url('/authenticate'), { method: 'POST', body: { data, signature } });
    assert.equal(auth.status, 200);
    assert.match(auth.body.token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const forged = crypto.sign(null, Buffer.from(data), crypto.generateKeyPairSync('ed25519').privateKey).toString('hex');
    const cases: [Record<string, string>, string][] = [
      [{ data, signature: forged }, 'Signature is invalid.'],
      [{ data: `${'0'.repeat(64)}|${siteId}`, signature }, 'Nonce is invalid.'],
      [{ data: `${n.body.nonce}|${crypto.randomUUID()}`, signature }, 'Site ID is invalid.'],
      [{ data: 'nonsense', signature }, 'Data is invalid.'],
      [{ data: `short|${siteId}`, signature }, 'Nonce format is invalid.'],
    ];
    for (const [body, message] of cases) {
      const r = await call(url('/authenticate'), { method: 'POST', body });
      assert.equal(r.status, 401, message);
      assert.equal(r.body.code, 'rest_forbidden_context');
      assert.equal(r.body.message, message);
    }
    assert.equal((await call(url('/authenticate'), { method: 'POST', auth: s.admin, body: cases[0][0] })).status, 403);

    const d = await call(url('/disconnect'), { method: 'POST', auth: s.admin });
    assert.deepEqual(d.body, { success: true, was_connected: true });
    const info = (await call(url('/config'), { auth: s.admin })).body.info;
    assert.equal(info.connected, false);
    assert.equal(typeof info.disconnect_time, 'number');
    assert.equal((await call(url('/authenticate'), { method: 'POST', body: { data, signature } })).status, 401);
  });

  test('permissions: anonymous 401, organizer 403 on every guarded route', async () => {
    const organizer = await s.userAuth('organizer');
    const routes: [string, string][] = [
      ['POST', '/authenticate-premium'],
      ['GET', '/config'],
      ['POST', '/config'],
      ['PUT', '/config'],
      ['PATCH', '/disconnect'],
      ['POST', '/premium-connect'],
      ['GET', '/scan/issues'],
      ['POST', '/scan'],
      ['DELETE', '/scan'],
      ['POST', '/scan/issue'],
      ['GET', '/scan/issue?id=1'],
    ];
    for (const [method, r] of routes) {
      const anon = await call(url(r), { method });
      assert.equal(anon.status, 401, `${method} ${r}`);
      assert.equal((await call(url(r), { method, auth: organizer })).status, 403, `${method} ${r}`);
    }
  });
});

describe('security/v1 with a configured start-up password and an HTTPS public URL', () => {
  test('the configured weak password is reported; HTTPS is not', async () => {
    const s = await startTestServer({ EVT_ADMIN_USER: 'site', EVT_ADMIN_PASSWORD: 'qwerty', EVT_PUBLIC_URL: 'https://tickets.example.org' });
    try {
      await call(`${s.root}${NS}/scan`, { method: 'POST', auth: s.admin });
      const body = (await call(`${s.root}${NS}/scan/issues`, { auth: s.admin })).body;
      const found = body.issues.map((i: { type: string }) => i.type).sort();
      assert.deepEqual(found, ['default_admin_login', 'weak_admin_password']);
      assert.deepEqual(body.issues.find((i: { type: string }) => i.type === 'weak_admin_password').data.weaknesses, [
        'too_short',
        'common',
        'single_character_class',
      ]);
    } finally {
      await s.close();
    }
  });
});
