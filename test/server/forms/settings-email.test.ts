import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { createForm, seedSubmission } from './fixtures.ts';
import { mailIdle, setMailTransport } from '../../../server/mail/service.ts';

let s: TestServer;
const NS = () => `${s.root}forms-submissions`;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** The logged message about a submission once the mail queue is idle, and the text of its .eml file. */
async function formMail(submission: number): Promise<{ row: Record<string, string>; eml: string }> {
  await mailIdle(s.app.state);
  const row = (await s.db.prepare("SELECT * FROM mail_log WHERE source = 'forms' AND related_id = ?").get(submission)) as Record<string, string>;
  return { row, eml: fs.readFileSync(path.join(s.dir, 'mail', row.eml_file), 'utf8') };
}

describe('forms-submissions: settings', () => {
  test('get before any save is "false"; add, unchanged, update; answers are JSON-encoded text', async () => {
    const get0 = await call(`${NS()}/get-submissions-settings`, { auth: s.admin });
    assert.equal(get0.status, 200);
    assert.equal(get0.body, 'false');

    const form = await createForm(s, 'Settings');
    const set = async (body: unknown) => call(`${NS()}/set-submissions-settings`, { method: 'POST', auth: await s.userAuth('organizer'), body });
    const add = await set({ settingName: 'pageSize', data: { value: 25 }, formID: String(form.id) });
    assert.equal(add.status, 200);
    assert.equal(add.body, '{"message":"add_option","status":true}');
    const same = await set({ settingName: 'pageSize', data: { value: '25' }, formID: String(form.id) });
    assert.equal(same.body, '{"message":"unchanged","status":false}');
    const upd = await set({ settingName: 'hiddenFields', data: { fields: [form.fields[2].id] }, formID: String(form.id) });
    assert.equal(upd.body, '{"message":"update_option","status":true}');
    const global = await set({ settingName: 'sort', data: { field: 'timestamp', order: 'desc' } });
    assert.equal(global.body, '{"message":"update_option","status":true}');

    const get1 = await call(`${NS()}/get-submissions-settings`, { auth: s.admin });
    assert.deepEqual(JSON.parse(get1.body), {
      [String(form.id)]: { pageSize: { value: 25 }, hiddenFields: { fields: [form.fields[2].id] } },
      '': { sort: { field: 'timestamp', order: 'desc' } },
    });
  });

  test('each setting is validated', async () => {
    const form = await createForm(s, 'Settings bad');
    const other = await createForm(s, 'Other');
    const cases: [unknown, string][] = [
      [{ settingName: 'evil', data: {} }, 'settingName'],
      [{ settingName: 'pageSize' }, 'data'],
      [{ settingName: 'pageSize', data: { value: 0 } }, 'data'],
      [{ settingName: 'pageSize', data: { value: 5, extra: 1 } }, 'data'],
      [{ settingName: 'sort', data: { field: 'x; DROP', order: 'asc' } }, 'data'],
      [{ settingName: 'dateFormat', data: { value: '<script>' } }, 'data'],
      [{ settingName: 'hiddenFields', data: { fields: [other.fields[0].id] }, formID: String(form.id) }, 'data'],
      [{ settingName: 'hiddenFields', data: { fields: [] } }, 'formID'],
      [{ settingName: 'pageSize', data: { value: 5 }, formID: '999999' }, 'formID'],
      [{ settingName: 'pageSize', data: { value: 5 }, formID: 'abc' }, 'formID'],
    ];
    const before = (await call(`${NS()}/get-submissions-settings`, { auth: s.admin })).body;
    for (const [body, param] of cases) {
      const r = await call(`${NS()}/set-submissions-settings`, { method: 'POST', auth: s.admin, body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'rest_invalid_param');
      assert.ok(param in r.body.data.params, JSON.stringify(r.body));
    }
    const missing = await call(`${NS()}/set-submissions-settings`, { method: 'POST', auth: s.admin, body: { data: {} } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.equal((await call(`${NS()}/get-submissions-settings`, { auth: s.admin })).body, before);
  });
});

describe('forms-submissions: email-action', () => {
  test('sends the submission through the mail service with merge tags; answers true', async () => {
    const form = await createForm(s, 'Mail <b>form</b>');
    const id = await seedSubmission(s, form.id, { name: '<script>x</script>', email: 'sender@example.test', topics: ['food'] });
    const r = await call(`${NS()}/email-action`, {
      method: 'POST',
      auth: s.admin,
      body: {
        submission: id,
        action_settings: {
          to: 'office@example.test, {field:email}',
          email_subject: 'New entry #{submission:sequence} from {field:name}',
          email_message: '<p>Form {form:title}</p>{all_fields_table}',
          from_name: 'Forms',
          from_address: 'forms@example.test',
          reply_to: '{field:email}',
          active: true,
          label: 'ignored by the server',
        },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body, true);
    const { row, eml } = await formMail(id);
    assert.equal(row.status, 'sent');
    assert.equal(row.to_header, 'office@example.test, sender@example.test');
    assert.equal(row.reply_to_header, 'sender@example.test');
    assert.equal(row.from_header, '"Forms" <forms@example.test>');
    assert.equal(row.subject, 'New entry #1 from <script>x</script>');
    assert.ok(
      row.html_body.includes('<p>Form Mail &lt;b&gt;form&lt;/b&gt;</p>'),
      "row.html_body.includes('<p>Form Mail &lt;b&gt;form&lt;/b&gt;</p>')",
    );
    assert.ok(row.html_body.includes('<td>&lt;script&gt;x&lt;/script&gt;</td>'), "row.html_body.includes('<td>&lt;script&gt;x&lt;/script&gt;</td>')");
    assert.ok(!row.html_body.includes('<script>'), "!row.html_body.includes('<script>')");
    assert.ok(row.text_body.includes('Topics: food'), "row.text_body.includes('Topics: food')");
    assert.match(eml, /^To: office@example\.test, sender@example\.test$/m);
  });

  test('a field value cannot inject headers or recipients', async () => {
    const form = await createForm(s, 'Mail inject');
    const id = await seedSubmission(s, form.id, {
      name: 'Eve\r\nBcc: evil@example.test',
      email: 'eve@example.test',
      message: 'x\r\nTo: evil@example.test',
    });
    const r = await call(`${NS()}/email-action`, {
      method: 'POST',
      auth: s.admin,
      body: {
        submission: id,
        action_settings: { to: 'office@example.test', email_subject: 'From {field:name}', email_message: '{field:message}', email_format: 'plain' },
      },
    });
    assert.equal(r.body, true);
    const { row, eml } = await formMail(id);
    assert.equal(row.to_header, 'office@example.test');
    assert.equal(row.bcc_header, '');
    assert.equal(row.subject, 'From Eve Bcc: evil@example.test');
    const head = eml.slice(0, eml.indexOf('\n\n'));
    assert.doesNotMatch(head, /^Bcc:/im);
    assert.equal(head.match(/^To:/gim)?.length, 1);
    assert.match(head, /^To: office@example\.test$/m);
  });

  test('a failed delivery answers the submission number; bad input is 400 and sends nothing', async () => {
    const form = await createForm(s, 'Mail fail');
    await seedSubmission(s, form.id, { name: 'First', email: 'f@example.test' });
    const id = await seedSubmission(s, form.id, { name: 'Second', email: 's@example.test' });
    setMailTransport(s.app.state, async () => ({ ok: false, transport: 'test', messageId: null, emlFile: null, transcript: '', error: 'refused' }));
    try {
      const r = await call(`${NS()}/email-action`, {
        method: 'POST',
        auth: s.admin,
        body: { submission: id, action_settings: { to: 'x@example.test', email_subject: 'S', email_format: 'plain' } },
      });
      assert.equal(r.status, 200);
      assert.equal(r.body, 2);
    } finally {
      const { fileDeliver } = await import('../../../server/mail/transport.ts');
      setMailTransport(s.app.state, fileDeliver(path.join(s.dir, 'mail')));
    }
    const count = async () => ((await s.db.prepare('SELECT COUNT(*) AS n FROM mail_log').get()) as { n: number }).n;
    const before = await count();
    const cases: [unknown, number, string][] = [
      [{ submission: 999999, action_settings: { to: 'x@example.test', email_subject: 'S' } }, 400, 'rest_invalid_param'],
      [{ submission: id, action_settings: { email_subject: 'S' } }, 400, 'rest_invalid_param'],
      [{ submission: id, action_settings: { to: 'x@example.test', email_subject: 'S', email_format: 'rtf' } }, 400, 'rest_invalid_param'],
      [{ submission: id, action_settings: { to: 'not an address', email_subject: 'S' } }, 400, 'evt_mail_invalid'],
      [{ submission: id, action_settings: 'nope' }, 400, 'rest_invalid_param'],
      [{ submission: 'abc', action_settings: {} }, 400, 'rest_invalid_param'],
      [{ action_settings: {} }, 400, 'rest_missing_callback_param'],
    ];
    for (const [body, status, code] of cases) {
      const r = await call(`${NS()}/email-action`, { method: 'POST', auth: s.admin, body });
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.code, code, JSON.stringify(r.body));
    }
    assert.equal(await count(), before);
  });
});
