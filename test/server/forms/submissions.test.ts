import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { createForm, postStatus, seedSubmission } from './fixtures.ts';

let s: TestServer;
const NS = () => `${s.root}forms-submissions`;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function values(id: number): Promise<Record<string, unknown>> {
  const rows = (await s.db
    .prepare('SELECT f.key, v.value FROM submission_values v JOIN form_fields f ON f.id = v.field_id WHERE v.submission_id = ?')
    .all(id)) as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
}

describe('forms-submissions: permissions', () => {
  test('every route: anonymous 401, door 403, API key 403', async () => {
    const routes: [string, string, unknown][] = [
      ['GET', '/submissions/get?form_ids=1', undefined],
      ['POST', '/submissions/delete', { submissions: [1] }],
      ['POST', '/submissions/update', { singleSubmission: '{"submissionRecordId":"1"}' }],
      ['POST', '/submissions/restore', { restore: true, submissions: [1] }],
      ['POST', '/submissions/handle-extra', { singleSubmission: '{"submissionRecordId":"1"}', handleExtra: 'read' }],
      ['POST', '/export', { form_ids: [1] }],
      ['POST', '/download-all', { form_ids: [1] }],
      ['POST', '/delete-download-file', { file_path: 'x.csv' }],
      ['POST', '/set-submissions-settings', { settingName: 'pageSize', data: { value: 5 } }],
      ['GET', '/get-submissions-settings', undefined],
      ['POST', '/email-action', { submission: 1, action_settings: { to: 'a@example.test', email_subject: 'S' } }],
    ];
    const door = await s.userAuth('door');
    const key = (await s.apiKey()).key;
    for (const [method, path, body] of routes) {
      const anon = await call(`${NS()}${path}`, { method, body });
      assert.equal(anon.status, 401, path);
      assert.equal(anon.body.code, 'rest_forbidden', path);
      const d = await call(`${NS()}${path}`, { method, body, auth: door });
      assert.equal(d.status, 403, path);
      const k = await call(`${NS()}${path}`, { method, body, headers: { authorization: `Bearer ${key}` } });
      assert.equal(k.status, 403, path);
    }
  });
});

describe('forms-submissions: get', () => {
  test('data (SingleSubmission entities, paged, with count) and columns', async () => {
    const form = await createForm(s, 'Get');
    const a = await seedSubmission(s, form.id, { name: 'Ann', email: 'ann@example.test', topics: ['music', 'food'] }, '2026-10-01 09:00:00');
    const b = await seedSubmission(s, form.id, { name: 'Ben', email: 'ben@example.test' }, '2026-10-02 09:00:00');
    const r = await call(`${NS()}/submissions/get?form_ids=${form.id}`, { auth: await s.userAuth('organizer') });
    assert.equal(r.status, 200);
    assert.equal(r.body.count, 2);
    assert.deepEqual(
      r.body.data.map((d: { submissionRecordId: string }) => d.submissionRecordId),
      [String(b), String(a)],
    );
    const ann = r.body.data[1];
    assert.equal(ann.formId, String(form.id));
    assert.deepEqual(ann.status, ['publish']);
    assert.equal(ann.timestamp, '2026-10-01 09:00:00');
    assert.deepEqual(ann.submissionFieldCollection.topics.value, ['music', 'food']);
    assert.equal(ann.submissionFieldCollection.name.label, 'Name');
    assert.equal(ann.submissionFieldCollection.age.value, null);
    assert.deepEqual(ann.extraValues, { seq_num: 1, read: false, starred: false, spam: false, note: '' });

    const paged = await call(`${NS()}/submissions/get?form_ids[]=${form.id}&page_size=1&current_page=2`, { auth: s.admin });
    assert.equal(paged.body.count, 2);
    assert.deepEqual(
      paged.body.data.map((d: { submissionRecordId: string }) => d.submissionRecordId),
      [String(a)],
    );

    const search = await call(`${NS()}/submissions/get?form_ids=${form.id}&search_term=ben@`, { auth: s.admin });
    assert.deepEqual(
      search.body.data.map((d: { submissionRecordId: string }) => d.submissionRecordId),
      [String(b)],
    );

    const dated = await call(`${NS()}/submissions/get?form_ids=${form.id}&start_date=2026-10-02`, { auth: s.admin });
    assert.equal(dated.body.count, 1);
    const unix = await call(`${NS()}/submissions/get?form_ids=${form.id}&end_date=${Date.UTC(2026, 9, 1, 12) / 1000}`, { auth: s.admin });
    assert.equal(unix.body.count, 1);

    const cols = await call(`${NS()}/submissions/get?form_ids=${form.id}&type=columns`, { auth: s.admin });
    assert.equal(cols.status, 200);
    assert.deepEqual(
      cols.body.map((c: { slug: string }) => c.slug),
      ['name', 'email', 'age', 'ticket_type', 'topics', 'newsletter', 'message'],
    );
  });

  test('bad input: missing form_ids, unknown form IDs, bad dates', async () => {
    const missing = await call(`${NS()}/submissions/get`, { auth: s.admin });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const unknown = await call(`${NS()}/submissions/get?form_ids=999998,999999`, { auth: s.admin });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'rest_invalid_param');
    assert.equal(unknown.body.data.params.form_ids, 'Unknown form ID(s): 999998, 999999.');
    const form = await createForm(s, 'Get bad');
    const date = await call(`${NS()}/submissions/get?form_ids=${form.id}&start_date=not-a-date`, { auth: s.admin });
    assert.equal(date.status, 400);
    assert.equal(date.body.data.params.start_date, 'start_date is not a valid date.');
    const size = await call(`${NS()}/submissions/get?form_ids=${form.id}&page_size=101`, { auth: s.admin });
    assert.equal(size.status, 400);
  });
});

describe('forms-submissions: delete, restore', () => {
  test('delete moves to the trash; restore=true brings back; restore=false deletes for good', async () => {
    const form = await createForm(s, 'Trash');
    const a = await seedSubmission(s, form.id, { name: 'A', email: 'a@example.test' });
    const b = await seedSubmission(s, form.id, { name: 'B', email: 'b@example.test' });
    const del = await call(`${NS()}/submissions/delete`, {
      method: 'POST',
      auth: s.admin,
      body: { submissions: [{ submissionRecordId: String(a) }, b] },
    });
    assert.equal(del.status, 200);
    assert.equal(del.body, 'ok');
    assert.equal(await postStatus(s, a), 'trash');
    assert.equal(await postStatus(s, b), 'trash');
    const trash = await call(`${NS()}/submissions/get?form_ids=${form.id}&status=trash`, { auth: s.admin });
    assert.equal(trash.body.count, 2);
    const active = await call(`${NS()}/submissions/get?form_ids=${form.id}`, { auth: s.admin });
    assert.equal(active.body.count, 0);

    const back = await call(`${NS()}/submissions/restore`, { method: 'POST', auth: s.admin, form: { restore: 'true', submissions: String(a) } });
    assert.equal(back.status, 200);
    assert.equal(await postStatus(s, a), 'publish');
    const gone = await call(`${NS()}/submissions/restore`, { method: 'POST', auth: s.admin, body: { restore: false, submissions: [b] } });
    assert.equal(gone.body, 'ok');
    assert.equal(await postStatus(s, b), undefined);
    assert.deepEqual(await values(b), {});
  });

  test('unknown IDs change nothing; missing and malformed arguments are 400', async () => {
    const form = await createForm(s, 'Trash bad');
    const a = await seedSubmission(s, form.id, { name: 'A', email: 'a@example.test' });
    const r = await call(`${NS()}/submissions/delete`, { method: 'POST', auth: s.admin, body: { submissions: [a, 999999] } });
    assert.equal(r.status, 400);
    assert.equal(r.body.data.params.submissions, 'Unknown submission ID(s): 999999.');
    assert.equal(await postStatus(s, a), 'publish');
    const noRestore = await call(`${NS()}/submissions/restore`, { method: 'POST', auth: s.admin, body: { submissions: [a] } });
    assert.equal(noRestore.status, 400);
    assert.deepEqual(noRestore.body.data.params, ['restore']);
    const badBool = await call(`${NS()}/submissions/restore`, { method: 'POST', auth: s.admin, body: { restore: 'maybe', submissions: [a] } });
    assert.equal(badBool.status, 400);
    const empty = await call(`${NS()}/submissions/delete`, { method: 'POST', auth: s.admin, body: { submissions: [] } });
    assert.equal(empty.status, 200);
    assert.equal(empty.body, 'ok');
    const zero = await call(`${NS()}/submissions/delete`, { method: 'POST', auth: s.admin, body: { submissions: [0] } });
    assert.equal(zero.status, 400);
    const text = await call(`${NS()}/submissions/delete`, { method: 'POST', auth: s.admin, body: { submissions: ['abc'] } });
    assert.equal(text.status, 400);
  });
});

describe('forms-submissions: update', () => {
  test('updates values by slug (JSON-encoded entity) and validates them', async () => {
    const form = await createForm(s, 'Update');
    const a = await seedSubmission(s, form.id, { name: 'A', email: 'a@example.test', age: 20 });
    const entity = {
      submissionRecordId: String(a),
      formId: String(form.id),
      submissionFieldCollection: {
        email: { slug: 'email', value: 'new@example.test' },
        age: { slug: 'age', value: '21' },
        message: { slug: 'message', value: '' },
      },
    };
    const r = await call(`${NS()}/submissions/update`, { method: 'POST', auth: s.admin, body: { singleSubmission: JSON.stringify(entity) } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body, 'ok');
    assert.deepEqual(await values(a), { name: 'A', email: 'new@example.test', age: 21 });

    // The original also reads the entity as a plain JSON object.
    const obj = await call(`${NS()}/submissions/update`, {
      method: 'POST',
      auth: s.admin,
      body: { singleSubmission: { submissionRecordId: a, submissionFieldCollection: [{ slug: 'ticket_type', value: 'Adult' }] } },
    });
    assert.equal(obj.status, 200);
    assert.equal((await values(a)).ticket_type, 'Adult');

    const bad = await call(`${NS()}/submissions/update`, {
      method: 'POST',
      auth: s.admin,
      body: {
        singleSubmission: JSON.stringify({
          submissionRecordId: String(a),
          submissionFieldCollection: { email: { value: 'nope' }, name: { value: '' } },
        }),
      },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
    assert.equal(bad.body.data.params.singleSubmission, 'Email must be an e-mail address. Name is required.');
    assert.equal((await values(a)).email, 'new@example.test');
  });

  test('invalid JSON, missing ID, unknown ID, unknown field', async () => {
    const form = await createForm(s, 'Update bad');
    const a = await seedSubmission(s, form.id, { name: 'A', email: 'a@example.test' });
    const cases: [unknown, string][] = [
      ['{"submissionRecordId": ', 'singleSubmission is not valid JSON.'],
      ['[1,2]', 'singleSubmission is not a JSON-encoded submission object.'],
      [JSON.stringify({ submissionFieldCollection: {} }), 'singleSubmission needs a submissionRecordId.'],
      [JSON.stringify({ submissionRecordId: '999999', submissionFieldCollection: {} }), 'Unknown submission ID(s): 999999.'],
      [JSON.stringify({ submissionRecordId: String(a), submissionFieldCollection: { shoe_size: { value: '42' } } }), 'Unknown field: shoe_size.'],
      [JSON.stringify({ submissionRecordId: String(a) }), 'singleSubmission needs a submissionFieldCollection.'],
    ];
    for (const [singleSubmission, message] of cases) {
      const r = await call(`${NS()}/submissions/update`, { method: 'POST', auth: s.admin, body: { singleSubmission } });
      assert.equal(r.status, 400, String(singleSubmission));
      assert.equal(r.body.code, 'rest_invalid_param');
      assert.equal(r.body.data.params.singleSubmission, message);
    }
    const missing = await call(`${NS()}/submissions/update`, { method: 'POST', auth: s.admin, body: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
  });
});

describe('forms-submissions: handle-extra', () => {
  test('read, star, spam, note flags; csv download; unknown handler', async () => {
    const form = await createForm(s, 'Extra');
    const a = await seedSubmission(s, form.id, { name: '=HYPERLINK("http://evil")', email: 'a@example.test' });
    const ss = JSON.stringify({ submissionRecordId: String(a) });
    for (const h of ['read', 'star', 'spam']) {
      const r = await call(`${NS()}/submissions/handle-extra`, { method: 'POST', auth: s.admin, body: { singleSubmission: ss, handleExtra: h } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { responseType: 'none', download: '', blobType: '', result: 'ok', filename: '' });
    }
    await call(`${NS()}/submissions/handle-extra`, { method: 'POST', auth: s.admin, body: { singleSubmission: ss, handleExtra: 'not_spam' } });
    const note = await call(`${NS()}/submissions/handle-extra`, {
      method: 'POST',
      auth: s.admin,
      body: { singleSubmission: JSON.stringify({ submissionRecordId: String(a), extraValues: { note: 'Called back' } }), handleExtra: 'note' },
    });
    assert.equal(note.status, 200);
    const got = await call(`${NS()}/submissions/get?form_ids=${form.id}`, { auth: s.admin });
    assert.deepEqual(got.body.data[0].extraValues, { seq_num: 1, read: true, starred: true, spam: false, note: 'Called back' });

    const csv = await call(`${NS()}/submissions/handle-extra`, { method: 'POST', auth: s.admin, body: { singleSubmission: ss, handleExtra: 'csv' } });
    assert.equal(csv.body.responseType, 'download');
    assert.equal(csv.body.blobType, 'text/csv');
    const text = Buffer.from(csv.body.download, 'base64').toString('utf8');
    assert.ok(text.startsWith('\uFEFF"#","Date Submitted","Name"'), 'text.startsWith(\'\\uFEFF"#","Date Submitted","Name"\')');
    assert.ok(text.includes(`"'=HYPERLINK(""http://evil"")"`), text);

    const unknown = await call(`${NS()}/submissions/handle-extra`, {
      method: 'POST',
      auth: s.admin,
      body: { singleSubmission: ss, handleExtra: 'Evil\\Class' },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'rest_invalid_param');
    const noNote = await call(`${NS()}/submissions/handle-extra`, {
      method: 'POST',
      auth: s.admin,
      body: { singleSubmission: ss, handleExtra: 'note' },
    });
    assert.equal(noNote.status, 400);
    const badJson = await call(`${NS()}/submissions/handle-extra`, {
      method: 'POST',
      auth: s.admin,
      body: { singleSubmission: '{oops', handleExtra: 'read' },
    });
    assert.equal(badJson.status, 400);
  });
});

describe('forms-submissions: export', () => {
  test('CSV per form with BOM, quoting and formula injection neutralised', async () => {
    const form = await createForm(s, 'Export');
    await seedSubmission(s, form.id, { name: '=1+1', email: 'a@example.test', message: 'line1\nline2, "quoted"' }, '2026-09-01 08:00:00');
    await seedSubmission(s, form.id, { name: '+cmd', email: 'b@example.test', message: '-2' }, '2026-09-02 08:00:00');
    await seedSubmission(s, form.id, { name: '@SUM(A1)', email: 'c@example.test', message: '\tTab' }, '2026-09-03 08:00:00');
    await seedSubmission(s, form.id, { name: '\rCR', email: 'd@example.test', message: 'plain' }, '2026-09-04 08:00:00');
    const r = await call(`${NS()}/export`, {
      method: 'POST',
      auth: s.admin,
      body: { form_ids: String(form.id), start_date: '2026-08-01', end_date: '2026-12-31' },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), [String(form.id)]);
    const csv: string = r.body[String(form.id)];
    assert.ok(csv.startsWith('\uFEFF'), "csv.startsWith('\\uFEFF')");
    const lines = csv.slice(1).split('\r\n');
    assert.equal(lines[0], '"#","Date Submitted","Name","Email","Age","Ticket type","Topics","Newsletter","Message"');
    assert.equal(lines[1], `"1","2026-09-01 08:00:00","'=1+1","a@example.test","","","","","line1\nline2, ""quoted"""`);
    assert.equal(lines[2], `"2","2026-09-02 08:00:00","'+cmd","b@example.test","","","","","'-2"`);
    assert.equal(lines[3], `"3","2026-09-03 08:00:00","'@SUM(A1)","c@example.test","","","","","'\tTab"`);
    assert.equal(lines[4], `"4","2026-09-04 08:00:00","'\rCR","d@example.test","","","","","plain"`);
    assert.equal(lines[5], '');
  });

  test('by date range, by submission IDs, by single submission; missing data is 400', async () => {
    const form = await createForm(s, 'Export 2');
    const a = await seedSubmission(s, form.id, { name: 'Old', email: 'o@example.test' }, '2026-01-01 08:00:00');
    const b = await seedSubmission(s, form.id, { name: 'New', email: 'n@example.test' }, '2026-06-01 08:00:00');
    const range = await call(`${NS()}/export`, {
      method: 'POST',
      auth: s.admin,
      body: { form_ids: [form.id], start_date: '2026-05-01', end_date: '2026-07-01' },
    });
    assert.ok(range.body[form.id].includes('"New"'), 'range.body[form.id].includes(\'"New"\')');
    assert.ok(!range.body[form.id].includes('"Old"'), '!range.body[form.id].includes(\'"Old"\')');
    const ids = await call(`${NS()}/export`, { method: 'POST', auth: s.admin, body: { submissions: [a] } });
    assert.ok(ids.body[form.id].includes('"Old"'), 'ids.body[form.id].includes(\'"Old"\')');
    assert.ok(!ids.body[form.id].includes('"New"'), '!ids.body[form.id].includes(\'"New"\')');
    const single = await call(`${NS()}/export`, {
      method: 'POST',
      auth: s.admin,
      body: { singleSubmission: JSON.stringify({ submissionRecordId: String(b) }) },
    });
    assert.equal(single.body[form.id].split('\r\n').length, 3);
    const none = await call(`${NS()}/export`, { method: 'POST', auth: s.admin, body: {} });
    assert.equal(none.status, 400);
    assert.equal(none.body.code, 'malformed_request');
    const unknown = await call(`${NS()}/export`, { method: 'POST', auth: s.admin, body: { form_ids: [999999] } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'rest_invalid_param');
  });
});
