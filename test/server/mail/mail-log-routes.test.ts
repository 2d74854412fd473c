import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import jsQR from 'jsqr';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { mailIdle, sendMail, setMailTransport } from '../../../server/mail/index.ts';
import { generateLicenseKey } from '../../../server/mail/license.ts';

/** Post SMTP's error answer as this server sends it: the contract's envelope plus the plugin's fields. */
function failBody(status: number, data: Record<string, string>) {
  const message = data.error ?? data.message;
  return {
    code: `mail_log_${message
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')}`,
    message,
    data: { status, ...data },
    success: false,
  };
}

/**
 * mail-log/v1 and mail-log/v2 through real HTTP: each route, who may call it (administrators, connected
 * apps by their token), bad input, and the stored state behind connect/disconnect and the license.
 */

let s: TestServer;
let v1: string;
let v2: string;
let organizer: string;
const ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  v1 = `${s.root}mail-log/v1/`;
  v2 = `${s.root}mail-log/v2/`;
  organizer = await s.userAuth('organizer');
  // Deliveries succeed unless the subject says FAIL (the log, not the transport, is under test here).
  setMailTransport(s.app.state, async (msg, meta) =>
    String(msg.subject).includes('FAIL')
      ? {
          ok: false,
          transport: 'test',
          messageId: null,
          emlFile: null,
          transcript: `attempt ${meta.attempt}: 550 mailbox unavailable\n`,
          error: '550 mailbox unavailable',
        }
      : { ok: true, transport: 'test', messageId: `<m${meta.id}@test>`, emlFile: null, transcript: `attempt ${meta.attempt}: 250 OK\n`, error: null },
  );
  const send = async (key: string, subject: string, to = 'guest@example.test') =>
    (ids[key] = await sendMail(s.app.state, { to, subject, text: `Body of ${subject}`, html: `<p>${subject}</p>` }));
  await send('a', 'Welcome aboard');
  await send('b', 'FAIL delivery one', 'broken@example.test');
  await send('c', 'Your tickets for Jazz');
  await send('d', 'FAIL delivery two', 'broken@example.test');
  await send('e', 'Newsletter <June>');
  await mailIdle(s.app.state);
});
afterAll(() => s.close());

const idsOf = (logs: { id: string }[]) => logs.map((l) => Number(l.id));

describe('route table', () => {
  test('both namespaces are in the site index, each route declares only translation_language, /doc is OpenAPI', async () => {
    const index = await call(s.root);
    assert.ok(index.body.namespaces.includes('mail-log/v1'));
    assert.ok(index.body.namespaces.includes('mail-log/v2'));
    const names = ['get-logs', 'get-log', 'resend-email', 'connect-app', 'disconnect-site', 'email-count', 'get-failed-logs', 'get-details'];
    for (const n of names) {
      const route = index.body.routes[`/mail-log/v1/${n}`];
      assert.ok(route, n);
      for (const e of route.endpoints) assert.deepEqual(Object.keys(e.args), ['translation_language'], n);
    }
    for (const n of ['get-logs', 'validate-license']) assert.ok(index.body.routes[`/mail-log/v2/${n}`], n);
    const doc = await call(`${v2}doc`);
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, '3.0.0');
    assert.ok(doc.body.paths['/get-logs']);
  });
});

describe('permissions', () => {
  const routes: [string, string, string?][] = [
    ['GET', `mail-log/v1/get-logs`],
    ['GET', `mail-log/v1/get-log?id=1`],
    ['GET', `mail-log/v1/get-details?id=1`],
    ['GET', `mail-log/v1/email-count`],
    ['GET', `mail-log/v1/get-failed-logs`],
    ['POST', `mail-log/v1/resend-email`, '{"id":1}'],
    ['POST', `mail-log/v1/disconnect-site`],
    ['GET', `mail-log/v1/connect-app`],
    ['GET', `mail-log/v2/get-logs`],
    ['GET', `mail-log/v2/validate-license`],
    ['POST', `mail-log/v2/validate-license`, '{"license_key":"x"}'],
  ];
  test('anonymous callers get 401 rest_forbidden, signed-in non-administrators 403', async () => {
    for (const [method, path, body] of routes) {
      const anon = await call(s.root + path, { method, body });
      assert.equal(anon.status, 401, `${method} ${path}`);
      assert.equal(anon.body.code, 'rest_forbidden');
      for (const auth of [organizer, await s.userAuth('door')]) {
        const r = await call(s.root + path, { method, body, auth });
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.equal(r.body.code, 'rest_forbidden');
      }
    }
    const key = (await s.apiKey('Door 1')).key;
    const r = await call(`${v1}get-logs`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(r.status, 403);
  });

  test('nothing changed for the refused callers', async () => {
    const r = await call(`${v1}get-logs?end=100`, { auth: s.admin });
    assert.equal(r.body.data.length, 5);
    for (const row of r.body.data) assert.notEqual(row.success, 'In Queue');
  });
});

describe('get-logs (v1 and v2)', () => {
  test('newest first, as the original rows (strings), paged with start/end and X-WP-Total', async () => {
    const r = await call(`${v1}get-logs`, { auth: s.admin });
    assert.equal(r.status, 200);
    assert.equal(r.body.success, true);
    assert.deepEqual(idsOf(r.body.data), [ids.e, ids.d, ids.c, ids.b, ids.a]);
    assert.deepEqual(Object.keys(r.body.data[0]), ['id', 'original_subject', 'to_header', 'success', 'time']);
    assert.equal(r.body.data[0].original_subject, 'Newsletter <June>');
    assert.equal(r.body.data[0].success, '1');
    assert.equal(r.body.data[1].success, '550 mailbox unavailable');
    assert.match(r.body.data[0].time, /^\d{10}$/);
    assert.equal(r.headers.get('x-wp-total'), '5');
    const page = await call(`${v1}get-logs?start=1&end=2`, { auth: s.admin });
    assert.deepEqual(idsOf(page.body.data), [ids.d, ids.c]);
  });

  test('filter and query (a query ignores the filter, as in the original)', async () => {
    const failed = await call(`${v1}get-logs?filter=failed`, { auth: s.admin });
    assert.deepEqual(idsOf(failed.body.data), [ids.d, ids.b]);
    const ok = await call(`${v1}get-logs?filter=success`, { auth: s.admin });
    assert.deepEqual(idsOf(ok.body.data), [ids.e, ids.c, ids.a]);
    const q = await call(`${v1}get-logs?filter=success&query=${encodeURIComponent('broken@')}`, { auth: s.admin });
    assert.deepEqual(idsOf(q.body.data), [ids.d, ids.b]);
    const like = await call(`${v1}get-logs?query=${encodeURIComponent('%')}`, { auth: s.admin });
    assert.deepEqual(like.body.data, [], '% is matched literally');
  });

  test('app_build_number >= 14 and v2 wrap the rows with plugin_version', async () => {
    const wrapped = await call(`${v1}get-logs?end=1`, { auth: s.admin, headers: { app_build_number: '14' } });
    assert.deepEqual(Object.keys(wrapped.body.data), ['logs', 'plugin_version']);
    const r2 = await call(`${v2}get-logs?end=2&filter=failed`, { auth: s.admin });
    assert.equal(r2.status, 200);
    assert.deepEqual(idsOf(r2.body.data.logs), [ids.d, ids.b]);
    assert.equal(typeof r2.body.data.plugin_version, 'string');
  });

  test('bad paging or filter values are 400 rest_invalid_param', async () => {
    for (const q of ['end=0', 'end=101', 'start=-1', 'start=abc', 'filter=bogus']) {
      for (const base of [v1, v2]) {
        const r = await call(`${base}get-logs?${q}`, { auth: s.admin });
        assert.equal(r.status, 400, q);
        assert.equal(r.body.code, 'rest_invalid_param', q);
      }
    }
  });
});

describe('get-log, get-details, get-failed-logs, email-count', () => {
  test('get-log gives the address of the message; get-details serves it', async () => {
    const r = await call(`${v1}get-log?id=${ids.e}`, { auth: s.admin });
    assert.equal(r.status, 200);
    assert.equal(r.body.data, `${v1}get-details?id=${ids.e}&type=show_view`);
    const d = await call(r.body.data, { auth: s.admin });
    assert.equal(d.status, 200);
    assert.equal(d.body.success, true);
    assert.equal(d.body.message, 'Details fetched successfully');
    const det = d.body.details;
    assert.equal(det.id, String(ids.e));
    assert.equal(det.original_subject, 'Newsletter &lt;June&gt;', 'escaped like esc_html');
    assert.equal(det.original_message, '<p>Newsletter <June></p>', 'the message itself is kept');
    assert.equal(det.to_header, 'guest@example.test');
    assert.equal(det.success, '1');
    assert.match(det.time, /^[A-Z][a-z]+ \d{1,2}, \d{4} \d{1,2}:\d{2} [ap]m$/);
    assert.equal(det.status, 'sent');
    assert.deepEqual(det.attachments, []);
    const t = await call(`${v1}get-log?id=${ids.b}&type=transcript`, { auth: s.admin });
    const tr = await call(t.body.data, { auth: s.admin });
    assert.deepEqual(tr.body.details, { session_transcript: 'attempt 1: 550 mailbox unavailable\n' });
  });

  test('unknown IDs and bad input', async () => {
    const missing = await call(`${v1}get-details?id=999999`, { auth: s.admin });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, failBody(404, { message: 'Details not found' }));
    const noLog = await call(`${v1}get-log?id=999999`, { auth: s.admin });
    assert.equal(noLog.status, 404);
    assert.deepEqual(noLog.body, failBody(404, { error: 'Invalid email id.' }));
    const noId = await call(`${v1}get-details`, { auth: s.admin });
    assert.equal(noId.status, 400);
    assert.equal(noId.body.code, 'rest_missing_callback_param');
    for (const q of [
      'get-details?id=abc',
      `get-details?id=${ids.a}&type=bogus`,
      'get-log?id=0',
      `get-log?id=${ids.a}&type=x`,
      'email-count?period=year',
    ]) {
      const r = await call(v1 + q, { auth: s.admin });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'rest_invalid_param', q);
    }
  });

  test('get-failed-logs: failed messages, newest first, with PHP array_filter keys', async () => {
    const r = await call(`${v1}get-failed-logs`, { auth: s.admin });
    assert.equal(r.status, 200);
    assert.equal(r.body.message, 'Failed logs fetched successfully');
    // All logs newest first are e, d, c, b, a: the failed ones sit at positions 1 and 3.
    assert.deepEqual(Object.keys(r.body.logs), ['1', '3']);
    const d = r.body.logs['1'];
    assert.deepEqual(Object.keys(d), ['id', 'subject', 'sent_to', 'status', 'delivery_time', 'opened', 'error']);
    assert.equal(d.id, String(ids.d));
    assert.equal(d.status, 'failed');
    assert.equal(d.error, '550 mailbox unavailable');
    assert.equal(d.opened, false);
    assert.match(d.delivery_time, /^\d+ secs?$/);
  });

  test('email-count counts today, the last week and the last month (site time)', async () => {
    const old = (days: number, id: number) =>
      s.db.prepare("UPDATE mail_log SET created_utc = datetime('now', ?) WHERE id = ?").run(`-${days} days`, id);
    await old(3, ids.a);
    await old(20, ids.b);
    await old(60, ids.c);
    try {
      const count = async (period?: string) => (await call(`${v1}email-count${period ? `?period=${period}` : ''}`, { auth: s.admin })).body;
      const day = await count();
      assert.deepEqual(day, { success: true, message: 'Email count fetched successfully', status: 200, count: { success: 1, failed: 1, total: 2 } });
      assert.deepEqual((await count('week')).count, { success: 2, failed: 1, total: 3 });
      assert.deepEqual((await count('month')).count, { success: 2, failed: 2, total: 4 });
    } finally {
      await s.db.prepare("UPDATE mail_log SET created_utc = datetime('now') WHERE id IN (?, ?, ?)").run(ids.a, ids.b, ids.c);
    }
  });
});

describe('resend-email', () => {
  test('resends the same entry, or a copy to other recipients; the outcome is the answer', async () => {
    const r = await call(`${v1}resend-email`, { method: 'POST', auth: s.admin, body: { id: ids.a } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      success: true,
      data: { message: 'Email successfully resend.', id: ids.a, status: 'sent', resend_count: 1, transport: 'test' },
    });
    const f = await call(`${v1}resend-email`, { method: 'POST', auth: s.admin, form: { id: String(ids.b) } });
    assert.equal(f.status, 200);
    assert.equal(f.body.success, false);
    assert.equal(f.body.data.message, 'Email not send.');
    assert.equal(f.body.data.error, '550 mailbox unavailable');
    assert.equal(f.body.data.resend_count, 1);
    const copy = await call(`${v1}resend-email`, {
      method: 'POST',
      auth: s.admin,
      body: { id: ids.c, sent_to: 'one@example.test, two@example.test' },
    });
    assert.equal(copy.body.success, true);
    assert.equal(copy.body.data.resent_from, ids.c);
    assert.notEqual(copy.body.data.id, ids.c);
    const logs = await call(`${v1}get-logs?end=1`, { auth: s.admin });
    assert.equal(logs.body.data[0].to_header, 'one@example.test, two@example.test');
    assert.equal(logs.body.data[0].original_subject, 'Your tickets for Jazz');
  });

  test('missing, unknown and malformed input', async () => {
    const total = Number((await call(`${v1}get-logs`, { auth: s.admin })).headers.get('x-wp-total'));
    const post = (body: unknown) => call(`${v1}resend-email`, { method: 'POST', auth: s.admin, body });
    assert.deepEqual((await post({})).body, failBody(401, { error: 'Enter email id.' }));
    assert.equal((await post({})).status, 401);
    assert.deepEqual((await post({ id: 999999 })).body, failBody(401, { error: 'Invalid email id.' }));
    const abc = await post({ id: 'abc' });
    assert.equal(abc.status, 400);
    assert.equal(abc.body.code, 'rest_invalid_param');
    const badTo = await post({ id: ids.a, sent_to: 'nobody' });
    assert.equal(badTo.status, 400);
    assert.deepEqual(Object.keys(badTo.body.data.params), ['sent_to']);
    assert.equal(Number((await call(`${v1}get-logs`, { auth: s.admin })).headers.get('x-wp-total')), total);
  });
});

describe('connected apps', () => {
  const token = 'fcm-token-0123456789abcdefghijklmnopqrstuvwxyz';

  test('pairing key with its QR code; connect-app trades it (once) for a connection', async () => {
    const anon = await call(`${v1}connect-app`, { method: 'POST', headers: { auth_key: 'guess', fcm_token: token, device: 'Pixel' } });
    assert.equal(anon.status, 200);
    assert.deepEqual(anon.body, failBody(200, { error: 'Regenerate QR Code, and scan again.' }));

    const p = await call(`${v1}connect-app`, { auth: s.admin });
    assert.equal(p.status, 200);
    const { auth_key: key, connect_url: url, qr_code: qr, connected } = p.body.data;
    assert.match(key, /^[\w-]{32}$/);
    assert.deepEqual(connected, []);
    const png = PNG.sync.read(Buffer.from(qr.replace(/^data:image\/png;base64,/, ''), 'base64'));
    assert.equal(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data, url);
    assert.equal(new URL(url).searchParams.get('authkey'), key);

    // A malformed token is refused and leaves the key usable.
    const bad = await call(`${v1}connect-app`, { method: 'POST', headers: { auth_key: key, fcm_token: 'short', device: 'Pixel' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    const badUrl = await call(`${v1}connect-app`, {
      method: 'POST',
      headers: { auth_key: key, fcm_token: token, device: 'Pixel', server_url: 'file:///etc/passwd' },
    });
    assert.equal(badUrl.status, 400);

    const ok = await call(`${v1}connect-app`, {
      method: 'POST',
      headers: { auth_key: key, 'fcm-token': token, device: 'Pixel 9', server_url: 'https://push.example.test' },
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { success: true, data: { fcm_token: token, plugin_version: '1.0.0' } });
    const again = await call(`${v1}connect-app`, { method: 'POST', headers: { auth_key: key, fcm_token: `${token}2`, device: 'Other' } });
    assert.equal(again.body.success, false, 'a pairing key serves once');

    const listed = await call(`${v1}connect-app`, { auth: s.admin });
    assert.equal(listed.body.data.connected.length, 1);
    assert.equal(listed.body.data.connected[0].device, 'Pixel 9');
    assert.equal(listed.body.data.connected[0].server_url, 'https://push.example.test');
    assert.notEqual(listed.body.data.auth_key, key, 'each visit issues a fresh key');
    const stored = (await s.db.prepare('SELECT token_hash FROM mail_apps').get()) as { token_hash: string };
    assert.notEqual(stored.token_hash, token, 'only a hash of the token is stored');
  });

  test('the app reads the log with its token; empty or unknown tokens are refused as in the original', async () => {
    const r = await call(`${v1}get-logs?end=2`, { headers: { fcm_token: token } });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.length, 2);
    const r2 = await call(`${v2}get-logs?end=1`, { headers: { fcm_token: token } });
    assert.equal(r2.body.data.logs.length, 1);
    const empty = await call(`${v1}get-logs`, { headers: { fcm_token: '' } });
    assert.equal(empty.status, 400);
    assert.deepEqual(empty.body, failBody(400, { error: 'Auth token missing.' }));
    const wrong = await call(`${v1}get-logs`, { headers: { fcm_token: 'x'.repeat(40) } });
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.body, failBody(401, { error: 'Invalid Auth Token.' }));
    const link = await call(`${v1}get-log?id=${ids.e}`, { headers: { fcm_token: token } });
    assert.equal(new URL(link.body.data).searchParams.get('access_token'), token);
    const view = await call(link.body.data);
    assert.equal(view.status, 200);
    assert.equal(view.body.details.id, String(ids.e));
    const resend = await call(`${v1}resend-email`, { method: 'POST', headers: { fcm_token: token }, body: { id: ids.e } });
    assert.equal(resend.body.success, true);
    const seen = (await s.db.prepare('SELECT last_seen_utc FROM mail_apps').get()) as { last_seen_utc: string | null };
    assert.ok(seen.last_seen_utc);
    // The dashboard routes stay administrator-only.
    assert.equal((await call(`${v1}email-count`, { headers: { fcm_token: token } })).status, 401);
  });

  test('disconnect-site removes the app; then its token no longer works', async () => {
    const r = await call(`${v1}disconnect-site`, { method: 'PUT', headers: { fcm_token: token } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { success: true, data: { message: 'Site Disconnected.' } });
    assert.equal((await call(`${v1}get-logs`, { headers: { fcm_token: token } })).status, 401);
    const none = await call(`${v1}disconnect-site`, { method: 'POST', auth: s.admin });
    assert.equal(none.status, 403);
    assert.deepEqual(none.body, failBody(403, { error: 'Invalid Request.' }));
  });

  test('an administrator disconnects every app at once', async () => {
    for (const t of ['app-one-token-aaaaaaaaaaaaaaaa', 'app-two-token-bbbbbbbbbbbbbbbb']) {
      const key = (await call(`${v1}connect-app`, { auth: s.admin })).body.data.auth_key;
      const c = await call(`${v1}connect-app`, { method: 'POST', headers: { auth_key: key, fcm_token: t, device: t.slice(0, 7) } });
      assert.equal(c.body.success, true);
    }
    assert.equal(((await s.db.prepare('SELECT COUNT(*) AS n FROM mail_apps').get()) as { n: number }).n, 2);
    const r = await call(`${v1}disconnect-site`, { method: 'PATCH', auth: s.admin });
    assert.equal(r.body.success, true);
    assert.equal(((await s.db.prepare('SELECT COUNT(*) AS n FROM mail_apps').get()) as { n: number }).n, 0);
  });
});

describe('validate-license (v2)', () => {
  test('no license yet: 404 License not found', async () => {
    const r = await call(`${v2}validate-license`, { auth: s.admin });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, failBody(404, { message: 'License not found.' }));
  });

  test('a key of the wrong format or with a wrong check symbol is refused and not stored', async () => {
    const good = generateLicenseKey();
    const last = good.at(-1)!;
    const wrongCheck = good.slice(0, -1) + (last === '0' ? '1' : '0');
    for (const k of ['', 'hello', 'DSMAIL-11111-11111-11111', wrongCheck, good.replace('DSMAIL', 'XXMAIL')]) {
      const r = await call(`${v2}validate-license`, { method: 'POST', auth: s.admin, body: { license_key: k } });
      assert.equal(r.status, 400, k);
      assert.equal(r.body.code, 'rest_invalid_param');
    }
    const none = await call(`${v2}validate-license`, { method: 'POST', auth: s.admin, body: {} });
    assert.equal(none.status, 400);
    assert.equal(none.body.code, 'rest_missing_callback_param');
    assert.equal((await call(`${v2}validate-license`, { auth: s.admin })).status, 404);
  });

  test('a valid key (any case, spaces for dashes) is stored masked and then validates', async () => {
    const key = generateLicenseKey();
    const typed = key.toLowerCase().replace(/-/g, ' ');
    const r = await call(`${v2}validate-license`, { method: 'POST', auth: s.admin, body: { license_key: typed } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.license, 'valid');
    assert.equal(r.body.data.key, `DSMAIL-*****-*****-*****-${key.slice(-5)}`);
    assert.equal(((await s.db.prepare('SELECT license_key FROM mail_license').get()) as { license_key: string }).license_key, key);
    const v = await call(`${v2}validate-license`, { auth: s.admin });
    assert.equal(v.status, 200);
    assert.equal(v.body.success, true);
    assert.equal(v.body.data.license, 'valid');
    assert.match(v.body.data.checked, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});
