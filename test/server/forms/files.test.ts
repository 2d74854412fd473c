import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { createForm, seedSubmission } from './fixtures.ts';
import { signToken } from '../../../server/routes/forms/signing.ts';
import { isPostgresSpec } from '../../../server/db/engine/types.ts';

let s: TestServer;
const NS = () => `${s.root}forms-submissions`;
const downloads = () => path.join(s.dir, 'downloads');
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function fetchRaw(url: string): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer; json: any }> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes, json };
}

describe('forms-submissions: download-all and its signed link', () => {
  test('one form: a CSV in the private directory, served by the link without a password', async () => {
    const form = await createForm(s, 'Download one');
    await seedSubmission(s, form.id, { name: '=cmd|/c calc', email: 'a@example.test' });
    const r = await call(`${NS()}/download-all`, { method: 'POST', auth: s.admin, body: { form_ids: [form.id] } });
    assert.equal(r.status, 200);
    assert.equal(r.body.formId, String(form.id));
    assert.match(r.body.filePath, /^[0-9a-f]{32}\.csv$/);
    assert.ok(
      r.body.downloadUrl.startsWith(`${s.root}forms-submissions/download?token=`),
      'r.body.downloadUrl.startsWith(`${s.root}forms-submissions/download?token=`)',
    );
    assert.ok(Date.parse(r.body.expires) > Date.now(), 'Date.parse(r.body.expires) > Date.now()');
    const file = path.join(downloads(), r.body.filePath);
    assert.ok(fs.existsSync(file), 'fs.existsSync(file)');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    const got = await fetchRaw(r.body.downloadUrl);
    assert.equal(got.status, 200);
    assert.equal(got.type, 'text/csv; charset=utf-8');
    assert.match(got.disposition ?? '', /^attachment; filename="form-submissions\.csv"$/);
    const text = got.bytes.toString('utf8');
    assert.ok(text.startsWith('\uFEFF"#"'), 'text.startsWith(\'\\uFEFF"#"\')');
    assert.ok(text.includes(`"'=cmd|/c calc"`), 'text.includes(`"\'=cmd|/c calc"`)');
  });

  test('several forms: a ZIP with one CSV per form; no form_ids means every form', async () => {
    const a = await createForm(s, 'Zip A');
    const b = await createForm(s, 'Zip B');
    await seedSubmission(s, a.id, { name: 'Alpha', email: 'a@example.test' });
    await seedSubmission(s, b.id, { name: 'Beta', email: 'b@example.test' });
    const r = await call(`${NS()}/download-all`, { method: 'POST', auth: s.admin, body: { form_ids: `${a.id},${b.id}` } });
    assert.match(r.body.filePath, /^[0-9a-f]{32}\.zip$/);
    const got = await fetchRaw(r.body.downloadUrl);
    assert.equal(got.type, 'application/zip');
    const files = unzipSync(new Uint8Array(got.bytes));
    assert.deepEqual(Object.keys(files).sort(), [`form-${a.id}-zip-a.csv`, `form-${b.id}-zip-b.csv`]);
    assert.ok(strFromU8(files[`form-${b.id}-zip-b.csv`]).includes('"Beta"'), 'strFromU8(files[`form-${b.id}-zip-b.csv`]).includes(\'"Beta"\')');
    const all = await call(`${NS()}/download-all`, { method: 'POST', auth: s.admin, body: {} });
    assert.equal(all.status, 200);
    assert.ok(
      all.body.formIds.includes(String(a.id)) && all.body.formIds.includes(String(b.id)),
      'all.body.formIds.includes(String(a.id)) && all.body.formIds.includes(String(b.id))',
    );
  });

  test('expired, tampered, foreign-purpose and demoted-user links are refused', async () => {
    const form = await createForm(s, 'Download refuse');
    const organizer = await s.userAuth('organizer', 'org-download');
    const r = await call(`${NS()}/download-all`, { method: 'POST', auth: organizer, body: { form_ids: [form.id] } });
    assert.equal(r.status, 200);
    const token = decodeURIComponent(new URL(r.body.downloadUrl).searchParams.get('token')!);
    const user = (await s.db.prepare("SELECT id FROM users WHERE login = 'org-download'").get()) as { id: number };
    const link = (t: string) => `${s.root}forms-submissions/download?token=${encodeURIComponent(t)}`;

    const expired = signToken(s.app.state.secret, 'download', { f: r.body.filePath, u: user.id, exp: Math.floor(Date.now() / 1000) - 1 });
    const e = await fetchRaw(link(expired));
    assert.equal(e.status, 403);
    assert.equal(e.json.code, 'download_link_expired');

    const [body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ f: r.body.filePath, u: user.id, exp: Math.floor(Date.now() / 1000) + 99999 })).toString('base64url');
    for (const bad of [
      `${forged}.${mac}`,
      `${body}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      'garbage',
      signToken(s.app.state.secret, 'views', { f: r.body.filePath, u: user.id, exp: 9999999999 }),
    ]) {
      const t = await fetchRaw(link(bad));
      assert.equal(t.status, 403, bad);
      assert.equal(t.json.code, 'download_link_invalid');
    }
    // A link signed for a file outside the directory is refused even with a good signature.
    const outside = signToken(s.app.state.secret, 'download', { f: '../evt.sqlite', u: user.id, exp: 9999999999 });
    assert.equal((await fetchRaw(link(outside))).status, 403);

    assert.equal((await fetchRaw(link(token))).status, 200);
    await s.db.prepare("UPDATE users SET role = 'door' WHERE id = ?").run(user.id);
    const demoted = await fetchRaw(link(token));
    assert.equal(demoted.status, 403);
    const missing = await fetchRaw(`${s.root}forms-submissions/download`);
    assert.equal(missing.status, 400);
  });

  test('bad input: unknown form IDs', async () => {
    const r = await call(`${NS()}/download-all`, { method: 'POST', auth: s.admin, body: { form_ids: [999999] } });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'rest_invalid_param');
  });
});

describe('forms-submissions: delete-download-file', () => {
  test('deletes a download-all file, once', async () => {
    const form = await createForm(s, 'Delete file');
    const r = await call(`${NS()}/download-all`, { method: 'POST', auth: s.admin, body: { form_ids: [form.id] } });
    const del = await call(`${NS()}/delete-download-file`, { method: 'POST', auth: s.admin, body: { file_path: r.body.filePath } });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { result: 'File was deleted' });
    assert.ok(!fs.existsSync(path.join(downloads(), r.body.filePath)), '!fs.existsSync(path.join(downloads(), r.body.filePath))');
    const again = await call(`${NS()}/delete-download-file`, { method: 'POST', auth: s.admin, body: { file_path: r.body.filePath } });
    assert.deepEqual(again.body, { result: 'File could not be found for deletion' });
    const link = await fetchRaw(r.body.downloadUrl);
    assert.equal(link.status, 404);
    assert.equal(link.json.code, 'download_not_found');
  });

  test('never deletes outside the downloads directory: traversal, absolute, encoded, NUL, symlink', async () => {
    const form = await createForm(s, 'Traversal');
    await call(`${NS()}/download-all`, { method: 'POST', auth: s.admin, body: { form_ids: [form.id] } });
    const sentinel = path.join(s.dir, 'sentinel.csv');
    fs.writeFileSync(sentinel, 'keep me');
    const nested = path.join(downloads(), 'sub');
    fs.mkdirSync(nested, { recursive: true });
    fs.writeFileSync(path.join(nested, 'inner.csv'), 'keep me too');
    const link = path.join(downloads(), 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.csv');
    fs.symlinkSync(sentinel, link);
    const dirLink = path.join(downloads(), 'up');
    fs.symlinkSync(s.dir, dirLink);

    const attempts = [
      '../sentinel.csv',
      '..\\sentinel.csv',
      'sub/../../sentinel.csv',
      sentinel,
      `/${path.relative('/', sentinel)}`,
      'C:\\sentinel.csv',
      '%2e%2e%2fsentinel.csv',
      '..%2fsentinel.csv',
      '%2e%2e/sentinel.csv',
      '%252e%252e%252fsentinel.csv',
      '....//sentinel.csv',
      'sentinel.csv\0.csv',
      `${path.basename(link)}`,
      'up/sentinel.csv',
      'sub/inner.csv',
      '.',
      '..',
      '',
    ];
    for (const file_path of attempts) {
      const r = await call(`${NS()}/delete-download-file`, { method: 'POST', auth: s.admin, body: { file_path } });
      assert.equal(r.status, 403, JSON.stringify(file_path));
      assert.equal(r.body.code, 'forbidden_path');
      assert.equal(r.body.message, 'Permission denied to delete a file in that directory.');
    }
    // The same through a form body (one URL-decoding by the server, as a browser would send it).
    const formBody = await call(`${NS()}/delete-download-file`, { method: 'POST', auth: s.admin, form: { file_path: '../sentinel.csv' } });
    assert.equal(formBody.status, 403);
    assert.equal(fs.readFileSync(sentinel, 'utf8'), 'keep me');
    assert.equal(fs.readFileSync(path.join(nested, 'inner.csv'), 'utf8'), 'keep me too');
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'fs.lstatSync(link).isSymbolicLink()');
    assert.ok(fs.statSync(downloads()).isDirectory(), 'the downloads directory itself is kept');
    if (isPostgresSpec(s.dbSpec)) {
      // On PostgreSQL the data directory holds no database file: it is kept, and the database still answers.
      assert.ok(fs.statSync(s.dir).isDirectory(), 'the data directory is kept');
      assert.equal((await call(`${s.root}evt/events/v1/events`)).status, 200);
    } else assert.ok(fs.existsSync(path.join(s.dir, 'evt.sqlite')), "fs.existsSync(path.join(s.dir, 'evt.sqlite'))");
    const missing = await call(`${NS()}/delete-download-file`, { method: 'POST', auth: s.admin, body: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
  });
});
