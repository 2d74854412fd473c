import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { createForm, seedSubmission, submitUrl } from './fixtures.ts';
import { signToken } from '../../../server/routes/forms/signing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('forms-views: forms, fields, create', () => {
  test('create a form (manager), list it, read its fields', async () => {
    const form = await createForm(s, 'Volunteer sign-up');
    const list = await call(`${s.root}forms-views/forms`, { auth: s.admin });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.find((f: { formID: number }) => f.formID === form.id),
      { formID: form.id, formTitle: 'Volunteer sign-up' },
    );

    const fields = await call(`${s.root}forms-views/forms/${form.id}/fields`, { auth: await s.userAuth('organizer') });
    assert.equal(fields.status, 200);
    assert.deepEqual(
      fields.body.map((f: { label: string }) => f.label),
      ['Name', 'Email', 'Age', 'Ticket type', 'Topics', 'Newsletter', 'Message'],
    );
    const select = fields.body[3];
    assert.deepEqual(select, {
      id: select.id,
      label: 'Ticket type',
      key: 'ticket_type',
      type: 'listselect',
      required: false,
      options: [
        { label: 'Adult', value: 'Adult' },
        { label: 'Child', value: 'Child' },
      ],
    });
    assert.equal(fields.body[0].required, true);
  });

  test('create validates fields and needs manage_forms', async () => {
    const bad = await call(`${s.root}forms-views/forms`, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'X', fields: [{ label: 'Pick', type: 'listselect' }] },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    const badType = await call(`${s.root}forms-views/forms`, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'X', fields: [{ label: 'A', type: 'file' }] },
    });
    assert.equal(badType.status, 400);
    const missing = await call(`${s.root}forms-views/forms`, { method: 'POST', auth: s.admin, body: { title: 'X' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const anon = await call(`${s.root}forms-views/forms`, { method: 'POST', body: { title: 'X', fields: [{ label: 'A', type: 'textbox' }] } });
    assert.equal(anon.status, 401);
    const door = await call(`${s.root}forms-views/forms`, {
      method: 'POST',
      auth: await s.userAuth('door'),
      body: { title: 'X', fields: [{ label: 'A', type: 'textbox' }] },
    });
    assert.equal(door.status, 403);
    assert.equal(door.body.code, 'rest_forbidden');
  });

  test('reads need a manager or a token: anonymous 401, door 403', async () => {
    const form = await createForm(s);
    for (const url of [
      `${s.root}forms-views/forms`,
      `${s.root}forms-views/forms/${form.id}/fields`,
      `${s.root}forms-views/forms/${form.id}/submissions`,
    ]) {
      const anon = await call(url);
      assert.equal(anon.status, 401, url);
      assert.equal(anon.body.code, 'rest_forbidden');
      const door = await call(url, { auth: await s.userAuth('door') });
      assert.equal(door.status, 403, url);
      const key = await call(url, { headers: { authorization: `Bearer ${(await s.apiKey()).key}` } });
      assert.equal(key.status, 403, url);
    }
    const refresh = await call(`${s.root}forms-views/token/refresh`, { method: 'POST' });
    assert.equal(refresh.status, 401);
    const refreshDoor = await call(`${s.root}forms-views/token/refresh`, { method: 'POST', auth: await s.userAuth('door') });
    assert.equal(refreshDoor.status, 403);
  });

  test('unknown form: 404 form_not_found', async () => {
    for (const url of [`${s.root}forms-views/forms/999999/fields`, `${s.root}forms-views/forms/999999/submissions`]) {
      const r = await call(url, { auth: s.admin });
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'form_not_found');
    }
    const submit = await call(submitUrl(s, 999999), { method: 'POST', body: { values: {} } });
    assert.equal(submit.status, 404);
  });
});

describe('forms-views: public submit', () => {
  test('valid values are stored; IP stored only as a hash', async () => {
    const form = await createForm(s, 'Submit test');
    const r = await call(submitUrl(s, form.id), {
      method: 'POST',
      body: {
        values: { name: 'Mari', email: 'mari@example.test', age: '34', ticket_type: 'Child', topics: ['music'], newsletter: true, message: 'Hi' },
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.formID, form.id);
    assert.equal(r.body.seq_num, 1);
    const row = (await s.db.prepare('SELECT ip_hash FROM submissions WHERE post_id = ?').get(r.body.id)) as { ip_hash: string };
    assert.match(row.ip_hash, /^[0-9a-f]{32}$/);
    assert.ok(!row.ip_hash.includes('127.0.0.1'), "!row.ip_hash.includes('127.0.0.1')");
    const all =
      JSON.stringify(await s.db.prepare('SELECT * FROM submissions').all()) +
      JSON.stringify(await s.db.prepare('SELECT * FROM posts WHERE type = ?').all('submission'));
    assert.ok(!all.includes('127.0.0.1'), "!all.includes('127.0.0.1')");

    const subs = await call(`${s.root}forms-views/forms/${form.id}/submissions`, { auth: s.admin });
    assert.equal(subs.status, 200);
    const byLabel = Object.fromEntries(form.fields.map((f) => [f.label, subs.body[0][String(f.id)]]));
    assert.deepEqual(byLabel, {
      Name: 'Mari',
      Email: 'mari@example.test',
      Age: '34',
      'Ticket type': 'Child',
      Topics: 'music',
      Newsletter: 'checked',
      Message: 'Hi',
    });
  });

  test('form-encoded submit by field key, JSON submit by field ID', async () => {
    const form = await createForm(s, 'Form-encoded');
    const r = await call(submitUrl(s, form.id), {
      method: 'POST',
      form: { 'values[name]': 'Jaan', 'values[email]': 'jaan@example.test', 'values[topics][]': 'food' },
    });
    assert.equal(r.status, 201, r.text);
    const [name, email] = form.fields;
    const byId = await call(submitUrl(s, form.id), { method: 'POST', body: { values: { [name.id]: 'Juku', [email.id]: 'juku@example.test' } } });
    assert.equal(byId.status, 201, byId.text);
    assert.equal(byId.body.seq_num, 2);
  });

  test('field keys that name Object.prototype members are ordinary fields', async () => {
    const form = await createForm(s, 'Proto', [
      { label: 'Constructor', type: 'textbox' },
      { label: 'x', key: 'tostring', type: 'textbox', required: true },
    ]);
    assert.deepEqual(
      form.fields.map((f) => f.key),
      ['constructor', 'tostring'],
    );
    const r = await call(submitUrl(s, form.id), { method: 'POST', body: { values: { tostring: 'ok' } } });
    assert.equal(r.status, 201, r.text);
    const proto = await call(submitUrl(s, form.id), { method: 'POST', body: '{"values": {"__proto__": {"tostring": "x"}, "tostring": "y"}}' });
    // A `__proto__` key never reaches the handler as data, and pollutes nothing.
    assert.equal(proto.status, 201, proto.text);
    assert.equal(({} as Record<string, unknown>).tostring, undefined);
  });

  test('invalid values: required, email, number, select option, unknown field; nothing stored', async () => {
    const form = await createForm(s, 'Validation');
    const before = ((await s.db.prepare('SELECT COUNT(*) AS n FROM submissions').get()) as { n: number }).n;
    const r = await call(submitUrl(s, form.id), {
      method: 'POST',
      body: { values: { email: 'not-an-email', age: 'twelve', ticket_type: 'Senior', topics: ['music', 'sport'], bogus: 'x' } },
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'form_validation_failed');
    assert.deepEqual(Object.keys(r.body.data.errors).sort(), ['age', 'bogus', 'email', 'name', 'ticket_type', 'topics']);
    assert.equal(r.body.data.errors.name, 'Name is required.');
    assert.equal(r.body.data.errors.email, 'Email must be an e-mail address.');
    assert.equal(((await s.db.prepare('SELECT COUNT(*) AS n FROM submissions').get()) as { n: number }).n, before);
    const noValues = await call(submitUrl(s, form.id), { method: 'POST', body: {} });
    assert.equal(noValues.status, 400);
    assert.equal(noValues.body.code, 'rest_missing_callback_param');
  });
});

describe('forms-views: paged submissions', () => {
  test('perPage and page, newest first, totals in headers', async () => {
    const form = await createForm(s, 'Paging');
    for (let i = 1; i <= 12; i++)
      await seedSubmission(s, form.id, { name: `P${i}`, email: `p${i}@example.test` }, `2026-11-01 10:${String(i).padStart(2, '0')}:00`);
    const nameId = String(form.fields[0].id);
    const p1 = await call(`${s.root}forms-views/forms/${form.id}/submissions?perPage=5`, { auth: s.admin });
    assert.equal(p1.status, 200);
    assert.equal(p1.headers.get('x-wp-total'), '12');
    assert.equal(p1.headers.get('x-wp-totalpages'), '3');
    assert.deepEqual(
      p1.body.map((r: Record<string, string>) => r[nameId]),
      ['P12', 'P11', 'P10', 'P9', 'P8'],
    );
    const p3 = await call(`${s.root}forms-views/forms/${form.id}/submissions?perPage=5&page=3`, { auth: s.admin });
    assert.deepEqual(
      p3.body.map((r: Record<string, string>) => r[nameId]),
      ['P2', 'P1'],
    );
    const past = await call(`${s.root}forms-views/forms/${form.id}/submissions?perPage=5&page=4`, { auth: s.admin });
    assert.deepEqual(past.body, []);
    const all = await call(`${s.root}forms-views/forms/${form.id}/submissions`, { auth: s.admin });
    assert.equal(all.body.length, 12);
  });

  test('perPage 0 and 101, page 0 are invalid', async () => {
    const form = await createForm(s, 'Bounds');
    for (const [q, param, message] of [
      ['perPage=0', 'perPage', 'perPage must be greater than or equal to 1'],
      ['perPage=101', 'perPage', 'perPage must be less than or equal to 100'],
      ['page=0', 'page', 'page must be greater than or equal to 1'],
    ] as const) {
      const r = await call(`${s.root}forms-views/forms/${form.id}/submissions?${q}`, { auth: s.admin });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'rest_invalid_param');
      assert.equal(r.body.data.params[param], message);
    }
    // Parameter errors come before the permission check, as in WordPress.
    const anon = await call(`${s.root}forms-views/forms/${form.id}/submissions?perPage=0`);
    assert.equal(anon.status, 400);
  });
});

describe('forms-views: token refresh', () => {
  test('a token reads the views of its form without a password, and a refresh revokes it', async () => {
    const a = await createForm(s, 'Token A');
    const b = await createForm(s, 'Token B');
    const organizer = await s.userAuth('organizer');
    const t = await call(`${s.root}forms-views/token/refresh`, { method: 'POST', auth: organizer, body: { formID: a.id } });
    assert.equal(t.status, 200);
    assert.equal(t.body.expiresIn, 900);
    assert.equal(t.body.formID, a.id);
    assert.equal(typeof t.body.publicKey, 'string');
    const h = { 'X-EVT-FormsViews-Auth': t.body.token };

    const fields = await call(`${s.root}forms-views/forms/${a.id}/fields`, { headers: h });
    assert.equal(fields.status, 200);
    const other = await call(`${s.root}forms-views/forms/${b.id}/fields`, { headers: h });
    assert.equal(other.status, 403);
    assert.equal(other.body.code, 'unauthorized_form_access');
    const list = await call(`${s.root}forms-views/forms`, { headers: { 'X-NinjaFormsViews-Auth': t.body.token } });
    assert.deepEqual(list.body, [{ formID: a.id, formTitle: 'Token A' }]);

    const tampered = t.body.token.slice(0, -2) + (t.body.token.endsWith('AA') ? 'BB' : 'AA');
    const bad = await call(`${s.root}forms-views/forms/${a.id}/fields`, { headers: { 'X-EVT-FormsViews-Auth': tampered } });
    assert.equal(bad.status, 403);
    assert.equal(bad.body.code, 'invalid_token');

    const again = await call(`${s.root}forms-views/token/refresh`, { method: 'POST', auth: organizer, headers: h });
    assert.equal(again.status, 200);
    assert.equal(again.body.formID, null);
    const old = await call(`${s.root}forms-views/forms/${a.id}/fields`, { headers: h });
    assert.equal(old.status, 403);
    assert.equal(old.body.code, 'invalid_token');
    const fresh = await call(`${s.root}forms-views/forms/${b.id}/fields`, { headers: { 'X-EVT-FormsViews-Auth': again.body.token } });
    assert.equal(fresh.status, 200);

    const unknown = await call(`${s.root}forms-views/token/refresh`, { method: 'POST', auth: organizer, body: { formID: 999999 } });
    assert.equal(unknown.status, 404);
  });

  test('an expired token is refused; a token of a user who lost the role is refused', async () => {
    const a = await createForm(s, 'Expiry');
    const organizer = await s.userAuth('organizer', 'org-expiry');
    const t = await call(`${s.root}forms-views/token/refresh`, { method: 'POST', auth: organizer });
    const jti = t.body.publicKey as string;
    const user = (await s.db.prepare("SELECT id FROM users WHERE login = 'org-expiry'").get()) as { id: number };
    const expired = signToken(s.app.state.secret, 'views', { jti, u: user.id, exp: Math.floor(Date.now() / 1000) - 10 });
    const r = await call(`${s.root}forms-views/forms/${a.id}/fields`, { headers: { 'X-EVT-FormsViews-Auth': expired } });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'expired_token');

    await s.db.prepare("UPDATE users SET role = 'door' WHERE id = ?").run(user.id);
    const demoted = await call(`${s.root}forms-views/forms/${a.id}/fields`, { headers: { 'X-EVT-FormsViews-Auth': t.body.token } });
    assert.equal(demoted.status, 403);
    assert.equal(demoted.body.code, 'invalid_token');
  });
});

describe('forms-views: submit rate limit', () => {
  test('past 10 submits a minute from one address: 429 with Retry-After', async () => {
    const own = await startTestServer();
    try {
      const form = await createForm(own, 'Rate');
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const r = await call(submitUrl(own, form.id), { method: 'POST', body: { values: { name: `R${i}`, email: `r${i}@example.test` } } });
        statuses.push(r.status);
        if (r.status === 429) {
          assert.equal(r.body.code, 'rest_too_many_requests');
          assert.match(r.headers.get('retry-after') ?? '', /^\d+$/);
        }
      }
      assert.deepEqual(statuses, [...Array(10).fill(201), 429]);
      assert.equal(((await own.db.prepare('SELECT COUNT(*) AS n FROM submissions').get()) as { n: number }).n, 10);
    } finally {
      await own.close();
    }
  });
});

describe('forms namespaces: index and /doc', () => {
  test('the namespace indexes list every route with the original argument names', async () => {
    const sub = await call(`${s.root}forms-submissions`);
    assert.equal(sub.status, 200);
    const routes = sub.body.routes as Record<
      string,
      { endpoints: { methods: string[]; args: Record<string, { type?: string; required: boolean; minimum?: number; maximum?: number }> }[] }
    >;
    const argsOf = (r: string) => routes[`/forms-submissions${r}`].endpoints[0].args;
    assert.deepEqual(
      Object.keys(routes).filter((k) => k !== '/forms-submissions' && k !== '/forms-submissions/doc'),
      [
        '/submissions/get',
        '/submissions/delete',
        '/submissions/update',
        '/submissions/restore',
        '/submissions/handle-extra',
        '/export',
        '/download-all',
        '/delete-download-file',
        '/set-submissions-settings',
        '/get-submissions-settings',
        '/email-action',
        '/download',
      ].map((r) => `/forms-submissions${r}`),
    );
    assert.equal(argsOf('/submissions/get').form_ids.required, true);
    assert.equal(argsOf('/submissions/get').form_ids.type, 'array');
    assert.equal(argsOf('/submissions/update').singleSubmission.required, true);
    assert.equal(argsOf('/submissions/restore').restore.type, 'boolean');
    assert.equal(argsOf('/submissions/handle-extra').handleExtra.required, true);
    assert.equal(argsOf('/delete-download-file').file_path.required, true);
    assert.equal(argsOf('/set-submissions-settings').settingName.required, true);
    assert.equal(argsOf('/set-submissions-settings').data.type, 'object');
    assert.equal(argsOf('/email-action').submission.type, 'integer');
    assert.equal(argsOf('/email-action').action_settings.required, true);

    const views = await call(`${s.root}forms-views`);
    const vr = views.body.routes as typeof routes;
    const sargs = vr['/forms-views/forms/(?P<id>\\d+)/submissions'].endpoints[0].args;
    assert.deepEqual([sargs.perPage.minimum, sargs.perPage.maximum, sargs.page.minimum], [1, 100, 1]);
    assert.equal(sargs.id.required, true);
    assert.deepEqual(
      vr['/forms-views/forms'].endpoints.map((e) => e.methods[0]),
      ['GET', 'POST'],
    );
    assert.ok('/forms-views/token/refresh' in vr, 'token/refresh listed');

    for (const ns of ['forms-submissions', 'forms-views']) {
      const doc = await call(`${s.root}${ns}/doc`);
      assert.equal(doc.status, 200);
      assert.equal(doc.body.openapi, '3.0.0');
    }
    const index = await call(s.root);
    assert.ok(
      index.body.namespaces.includes('forms-submissions') && index.body.namespaces.includes('forms-views'),
      'both namespaces in the site index',
    );
  });
});
