import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { signLink } from '../../../server/files/links.ts';
import { MAX_UPLOAD_BYTES } from '../../../shared/routes/protected-files.ts';

const NS = 'protected-files/v1';
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da6364f8ffbf1e000502027f3c6e2c0a0000000049454e44ae426082',
  'hex',
);
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');

describe('protected-files/v1', () => {
  let s: TestServer;
  let organizer: string;
  let door: string;
  const url = (r: string) => `${s.root}${NS}${r}`;

  async function upload(name: string, content: Buffer | string, auth = organizer) {
    return call(url('/files'), { method: 'POST', auth, body: { filename: name, content: b64(content) } });
  }

  beforeAll(async () => {
    s = await startTestServer();
    organizer = await s.userAuth('organizer', 'files-organizer');
    door = await s.userAuth('door');
  });
  afterAll(() => s.close());

  test('upload stores the file under a random name and serves it publicly by ID', async () => {
    const r = await upload('logo.png', PNG);
    assert.equal(r.status, 201);
    assert.equal(r.body.is_protected, false);
    assert.equal(r.body.file.name, 'logo.png');
    assert.equal(r.body.file.mime_type, 'image/png');
    assert.equal(r.body.file.filesize, PNG.length);
    assert.match(r.body.file.sha256, /^[0-9a-f]{64}$/);
    const stored = fs.readdirSync(path.join(s.dir, 'files', 'public'));
    assert.equal(stored.length, 1);
    assert.match(stored[0], /^[0-9a-f]{32}\.png$/);
    const got = await fetch(r.body.file.url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'image/png');
    assert.equal(got.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), PNG);
  });

  test('protect moves the file, blocks the public URL and serves it through a signed private link', async () => {
    const up = await upload('ticket.pdf', '%PDF-1.4\n% test\n');
    const id = up.body.file.id;
    const publicUrl = up.body.file.url;
    const p = await call(url(`/files/${id}`), { method: 'POST', auth: s.admin });
    assert.equal(p.status, 200);
    assert.equal(p.body.post_id, id);
    assert.equal(p.body.is_prevented, 1);
    assert.equal(p.body.full_url, `${s.base}/private/${p.body.url}`);
    assert.ok(p.body.expired_date > Date.now() / 1000);
    assert.equal((await fetch(publicUrl)).status, 404);
    const info = await call(url(`/files/${id}`), { auth: s.admin });
    assert.equal(info.body.is_protected, true);
    assert.equal(info.body.file.url, null);
    assert.equal(info.body.post.is_file_deleted, false);
    assert.ok(fs.readdirSync(path.join(s.dir, 'files', 'protected')).length >= 1);

    const priv = await fetch(p.body.full_url);
    assert.equal(priv.status, 200);
    assert.equal(await priv.text(), '%PDF-1.4\n% test\n');
    assert.equal(priv.headers.get('cache-control'), 'private, no-store');

    const links = await call(url(`/private-urls/${id}`), { auth: s.admin });
    assert.equal(links.status, 200);
    assert.equal(links.body.length, 1);
    assert.equal(links.body[0].hits_count, 1);
    assert.equal(links.body[0].full_url, p.body.full_url);

    const un = await call(url(`/un-protect-files/${id}`), { method: 'POST', auth: s.admin });
    assert.equal(un.status, 200);
    assert.equal(un.body.is_prevented, 0);
    assert.equal(un.body.revoked_links, 1);
    assert.equal((await fetch(p.body.full_url)).status, 404, 'unprotecting revokes the private links');
    assert.equal((await fetch(publicUrl)).status, 200);
    assert.deepEqual((await call(url(`/private-urls/${id}`), { auth: s.admin })).body, []);
  });

  test('expired and tampered private-link tokens are refused', async () => {
    const up = await upload('secret.txt', 'top secret');
    const id = up.body.file.id;
    const p = await call(url(`/files/${id}`), { method: 'POST', auth: s.admin });
    const [linkId, exp, sig] = (p.body.url as string).split('.');
    const expired = signLink(s.app.state.secret, Number(linkId), id, Math.floor(Date.now() / 1000) - 10);
    const r1 = await fetch(`${s.base}/private/${expired}`);
    assert.equal(r1.status, 410);
    assert.doesNotMatch(await r1.text(), /top secret/);
    const longer = `${linkId}.${Number(exp) + 999999}.${sig}`;
    assert.equal((await fetch(`${s.base}/private/${longer}`)).status, 404);
    const flipped = `${linkId}.${exp}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await fetch(`${s.base}/private/${flipped}`)).status, 404);
    const forged = signLink('not-the-secret-of-this-site', Number(linkId), id, Number(exp));
    assert.equal((await fetch(`${s.base}/private/${forged}`)).status, 404);
    for (const bad of ['..%2F..%2Fevt.sqlite', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'abc', `${linkId}.${exp}.${sig}%00`]) {
      const r = await fetch(`${s.base}/private/${bad}`);
      assert.equal(r.status, 404, bad);
    }
    assert.equal((await fetch(`${s.base}/private/${p.body.url}`)).status, 200);
  });

  test('the public route never leaves the files directory and needs the exact stored name', async () => {
    const up = await upload('notes.txt', 'hello');
    const id = up.body.file.id;
    for (const tail of [
      `${id}/..%2F..%2Fevt.sqlite`,
      `${id}/%2e%2e%2fevt.sqlite`,
      `${id}/..%5Cevt.sqlite`,
      `${id}/notes.txt%00.png`,
      `${id}/NOTES.TXT`,
      `..%2F${id}/notes.txt`,
      `${id}x/notes.txt`,
    ]) {
      const r = await fetch(`${s.base}/files/${tail}`);
      assert.equal(r.status, 404, tail);
      assert.doesNotMatch(await r.text(), /SQLite/);
    }
    assert.equal((await fetch(`${s.base}/files/${id}/notes.txt`)).status, 200);
  });

  test('a malformed stored path (planted in the database) is never served', async () => {
    const up = await upload('plain.txt', 'plain');
    const id = up.body.file.id;
    // A NUL cannot be stored in PostgreSQL text at all (the server refuses it), so that path is planted on SQLite only.
    const nul = s.db.engine === 'sqlite' ? ['public/x\u0000.txt'] : [];
    for (const bad of ['../evt.sqlite', 'public/../../evt.sqlite', path.join(s.dir, 'evt.sqlite'), ...nul]) {
      await s.db.prepare('UPDATE attachments SET file_path = ? WHERE post_id = ?').run(bad, id);
      const r = await fetch(`${s.base}/files/${id}/plain.txt`);
      assert.equal(r.status, 404, bad);
      const info = await call(url(`/files/${id}`), { auth: s.admin });
      assert.equal(info.body.post.is_file_deleted, true);
      const p = await call(url(`/files/${id}`), { method: 'POST', auth: s.admin });
      assert.equal(p.status, 404);
      assert.equal(p.body.code, 'file_not_found');
    }
  });

  test('upload refuses path-like, absolute, NUL and encoded names, wrong types and oversize content', async () => {
    const names = [
      '../evil.png',
      '..\\evil.png',
      '/etc/passwd.txt',
      'a/b.png',
      '%2e%2e%2fevil.png',
      'evil.png\u0000.txt',
      '.hidden.png',
      'x.svg',
      'x.html',
      'noext',
      'a..png',
    ];
    for (const name of names) {
      const r = await upload(name, PNG);
      assert.equal(r.status, 400, name);
      assert.equal(r.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(r.body.data.params), ['filename']);
    }
    const mismatch = await upload('fake.png', '<script>alert(1)</script>');
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.data.details.content.code, 'rest_upload_type_mismatch');
    const binText = await upload('bin.txt', Buffer.from([0x41, 0, 0x42]));
    assert.equal(binText.status, 400);
    const notB64 = await call(url('/files'), { method: 'POST', auth: organizer, body: { filename: 'a.txt', content: 'not base64!' } });
    assert.equal(notB64.status, 400);
    assert.equal(notB64.body.data.details.content.code, 'rest_invalid_base64');
    const big = await upload('big.txt', 'a'.repeat(MAX_UPLOAD_BYTES + 1));
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'rest_upload_too_large');
    const missing = await call(url('/files'), { method: 'POST', auth: organizer, body: { filename: 'a.txt' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const badParent = await call(url('/files'), { method: 'POST', auth: organizer, body: { filename: 'a.txt', content: b64('x'), post_id: 999999 } });
    assert.equal(badParent.status, 400);
    assert.deepEqual(Object.keys(badParent.body.data.params), ['post_id']);
    const count = (await s.db
      .prepare("SELECT COUNT(*) AS n FROM posts WHERE type = 'attachment' AND title IN ('a.txt', 'big.txt', 'fake.png', 'bin.txt')")
      .get()) as { n: number };
    assert.equal(count.n, 0, 'refused uploads store nothing');
  });

  test('upload attaches to a parent post', async () => {
    // The organizer's own event: attaching changes the post, so only its author or an administrator may.
    const parent = await s.db
      .prepare(
        "INSERT INTO posts (type, status, author, title, date, date_gmt, modified, modified_gmt) VALUES ('event', 'publish', (SELECT id FROM users WHERE login = 'files-organizer'), 'E', '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00') RETURNING id",
      )
      .run();
    const r = await call(url('/files'), {
      method: 'POST',
      auth: organizer,
      body: { filename: 'map.gif', content: b64(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')), post_id: Number(parent.lastInsertRowid) },
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.file.parent, Number(parent.lastInsertRowid));
  });

  test('an attachment that was never uploaded (an image by URL) reads, but has no file to protect', async () => {
    const info = await s.db
      .prepare(
        "INSERT INTO posts (type, status, title, date, date_gmt, modified, modified_gmt) VALUES ('attachment', 'inherit', 'remote', '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00') RETURNING id",
      )
      .run();
    const id = Number(info.lastInsertRowid);
    await s.db.prepare("INSERT INTO attachments (post_id, url, mime_type) VALUES (?, 'https://images.example.org/a.jpg', 'image/jpeg')").run(id);
    const r = await call(url(`/files/${id}`), { auth: s.admin });
    assert.equal(r.status, 200);
    assert.equal(r.body.post.edit_url, 'https://images.example.org/a.jpg');
    assert.equal(r.body.post.is_file_deleted, true);
    const p = await call(url(`/files/${id}`), { method: 'POST', auth: s.admin });
    assert.equal(p.status, 404);
    assert.equal(p.body.code, 'file_not_found');
  });

  test('permissions: anonymous 401, wrong role 403; unknown IDs 404', async () => {
    const up = await upload('p.txt', 'p');
    const id = up.body.file.id;
    const routes: [string, string][] = [
      ['GET', `/files/${id}`],
      ['POST', `/files/${id}`],
      ['GET', `/private-urls/${id}`],
      ['POST', `/un-protect-files/${id}`],
    ];
    for (const [method, r] of routes) {
      const anon = await call(url(r), { method });
      assert.equal(anon.status, 401, `${method} ${r}`);
      assert.equal(anon.body.code, 'rest_forbidden');
      for (const who of [door, organizer]) assert.equal((await call(url(r), { method, auth: who })).status, 403, `${method} ${r}`);
      const unknown = await call(url(r.replace(String(id), '99999')), { method, auth: s.admin });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'rest_post_invalid_id');
    }
    assert.equal((await call(url('/files'), { method: 'POST', body: { filename: 'a.txt', content: b64('a') } })).status, 401);
    assert.equal((await upload('a.txt', 'a', door)).status, 403);
    assert.equal((await call(url(`/files/${id}`), { method: 'DELETE', auth: s.admin })).body.code, 'rest_no_route');
    // IDs only: anything path-like in the REST routes matches no route at all.
    for (const bad of [`/files/..%2F${id}`, `/files/${id}%00`, `/private-urls/%2Fetc%2Fpasswd`, `/un-protect-files/${id}/..`, '/files/-1']) {
      const r = await call(url(bad), { auth: s.admin });
      assert.equal(r.status, 404, bad);
      assert.equal(r.body.code, 'rest_no_route', bad);
    }
  });

  test('the namespace index lists only the language parameter on the original routes', async () => {
    const r = await call(`${s.root}${NS}`);
    assert.equal(r.status, 200);
    const route = r.body.routes['/protected-files/v1/files/(?P<id>\\d+)'];
    assert.deepEqual(route.methods, ['POST', 'GET']);
    for (const e of route.endpoints) assert.deepEqual(Object.keys(e.args), ['translation_language']);
    const doc = await call(`${s.root}${NS}/doc`);
    assert.equal(doc.body.openapi, '3.0.0');
    // The undeclared path ID is still described, as OpenAPI requires.
    assert.deepEqual(doc.body.paths['/files/{id}'].get.parameters[0], {
      name: 'id',
      in: 'path',
      description: '',
      required: true,
      schema: { type: 'integer' },
      example: 42,
    });
    assert.deepEqual(doc.body.paths['/un-protect-files/{id}'].post.parameters[0].name, 'id');
  });
});
