// Issue 10 item 8 (CONTRACT section 3) beyond evt/events/v1: the auxiliary namespaces' writes onto one post
// follow the same ownership rule. An organizer changes the search meta of, and attaches files to, only the
// events, venues and organizers it authored (and its events' tickets, attendees and orders); an administrator
// changes all. Anyone else's post: 403 rest_forbidden, after the parameter checks, and nothing stored changes.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { draftBody, userWithId } from '../helpers/ownership.ts';
import { seedTicketsFixture } from '../helpers/tickets-fixture.ts';

let s: TestServer;
let X: { auth: string; id: number };
let Y: { auth: string; id: number };
let door: string;
let n = 0;
const uniq = (p: string) => `${p} ${++n}`;
const FORBIDDEN = { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } };

const user = (role: 'organizer' | 'door', login: string) => userWithId(s, role, login);

type Kind = 'event' | 'venue' | 'organizer' | 'ticket' | 'attendee' | 'order';

/** A draft event, venue or organizer made by `auth` through the API; its ID. */
async function make(kind: 'event' | 'venue' | 'organizer', auth: string): Promise<number> {
  const name = uniq(`${kind} of someone`);
  const body = draftBody(kind, name);
  const r = await call(`${s.root}evt/events/v1/${kind}s`, { method: 'POST', auth, body });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** A post of `kind` belonging to `owner`: tickets, attendees and orders hang off an event `owner` authored. */
async function makePost(kind: Kind, owner: { auth: string; id: number }): Promise<number> {
  if (kind === 'event' || kind === 'venue' || kind === 'organizer') return make(kind, owner.auth);
  const f = await seedTicketsFixture(s.db, { attendees: 1, eventTitle: uniq('Ticketed event') });
  await s.db.prepare('UPDATE posts SET author = ? WHERE id = ?').run(owner.id, f.eventId);
  return kind === 'ticket' ? f.ticketId : kind === 'attendee' ? f.attendeeIds[0]! : f.orderId;
}

beforeAll(async () => {
  s = await startTestServer();
  X = await user('organizer', 'organizer-x');
  Y = await user('organizer', 'organizer-y');
  door = (await user('door', 'door-d')).auth;
});
afterAll(() => s.close());

// ---- seo/v1: POST|PUT|PATCH /meta/{id} ------------------------------------------------------------------------

const seoRow = (id: number) => s.db.prepare('SELECT * FROM seo_meta WHERE post_id = ?').get(id);
const seoMeta = (auth: string, method: string, id: number, body: Record<string, unknown>) =>
  call(`${s.root}seo/v1/meta/${id}`, { method, auth, body });

describe("seo/v1 meta of organizer Y's post: organizer X gets 403 rest_forbidden and the meta stays; Y and an administrator may", () => {
  const hostile = {
    title: 'Cheap knock-off tickets',
    description: 'Go elsewhere',
    canonical: 'https://attacker.example/',
    noindex: true,
    nofollow: true,
  };
  for (const kind of ['event', 'venue', 'organizer'] as const) {
    for (const method of ['POST', 'PUT', 'PATCH']) {
      test(`${method} /meta/{id} of Y's ${kind}`, async () => {
        const id = await makePost(kind, Y);
        // Y's own meta first, so "unchanged" covers a stored row, not only its absence.
        const own = await seoMeta(Y.auth, method, id, { title: 'Y title', description: 'Y description' });
        assert.equal(own.status, 200, `owner: ${own.text}`);
        assert.equal(own.body.title, 'Y title');
        const before = await seoRow(id);
        assert.ok(before, "the owner's meta is stored");
        for (const [who, auth] of [
          ['organizer X', X.auth],
          ['door user', door],
        ] as const) {
          const r = await seoMeta(auth, method, id, hostile);
          assert.equal(r.status, 403, `${who}: ${r.text}`);
          assert.deepEqual(r.body, FORBIDDEN, who);
          assert.deepEqual(await seoRow(id), before, who);
        }
        const other = await makePost(kind, Y);
        const a = await seoMeta(s.admin, method, other, { noindex: true });
        assert.equal(a.status, 200, `administrator: ${a.text}`);
        assert.equal(a.body.noindex, true);
      });
    }
  }

  test('a post with no meta yet gains none from organizer X', async () => {
    const id = await makePost('event', Y);
    const r = await seoMeta(X.auth, 'POST', id, hostile);
    assert.equal(r.status, 403, r.text);
    assert.equal(await seoRow(id), undefined);
  });

  test('the original order of checks: invalid parameters (400) before the permission (403), unknown post 404', async () => {
    const id = await makePost('event', Y);
    const bad = await seoMeta(X.auth, 'POST', id, { canonical: 'javascript:alert(1)' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.code, 'rest_invalid_param');
    const long = await seoMeta(X.auth, 'POST', id, { title: 'x'.repeat(121) });
    assert.equal(long.status, 400, long.text);
    assert.equal(long.body.code, 'rest_invalid_param');
    assert.equal((await seoMeta(X.auth, 'POST', 99_999_999, { canonical: 'javascript:alert(1)' })).status, 400);
    assert.equal((await seoMeta(X.auth, 'POST', 99_999_999, { title: 'x' })).status, 404);
    assert.equal(await seoRow(id), undefined);
    // A trashed post is still someone's: 403 to others, 404 (nothing to edit) to its author.
    assert.equal((await call(`${s.root}evt/events/v1/events/${id}`, { method: 'DELETE', auth: Y.auth })).status, 200);
    const trashed = await seoMeta(X.auth, 'POST', id, { title: 'x' });
    assert.equal(trashed.status, 403, trashed.text);
    assert.equal((await seoMeta(Y.auth, 'POST', id, { title: 'x' })).body.code, 'rest_post_invalid_id');
    assert.equal(await seoRow(id), undefined);
  });

  test("an organizer's meta of a post it authored, and of an event it was given, still work", async () => {
    const mine = await makePost('venue', X);
    assert.equal((await seoMeta(X.auth, 'PATCH', mine, { noindex: true })).status, 200);
    const given = await makePost('event', Y);
    assert.equal((await call(`${s.root}evt/events/v1/events/${given}`, { method: 'POST', auth: s.admin, body: { author: X.id } })).status, 200);
    const r = await seoMeta(X.auth, 'POST', given, { title: 'Now mine' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.title, 'Now mine');
    assert.equal((await seoMeta(Y.auth, 'POST', given, { title: 'Not mine any more' })).status, 403);
  });
});

// ---- protected-files/v1: POST /files with post_id (attach an upload to a post) -------------------------------

const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64');
const attached = (id: number) => s.db.prepare("SELECT id, author, title FROM posts WHERE type = 'attachment' AND parent = ? ORDER BY id").all(id);
const uploadCount = async () => ((await s.db.prepare("SELECT COUNT(*) AS n FROM posts WHERE type = 'attachment'").get()) as { n: number }).n;
const storedFiles = () => {
  const dir = path.join(s.dir, 'files', 'public');
  return fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
};
const attach = (auth: string, postId: number, filename = 'plan.gif', content = GIF) =>
  call(`${s.root}protected-files/v1/files`, { method: 'POST', auth, body: { filename, content, post_id: postId } });

describe("protected-files/v1 upload attached to organizer Y's post: organizer X gets 403 rest_forbidden and nothing is stored; Y and an administrator may", () => {
  for (const kind of ['event', 'venue', 'organizer', 'ticket', 'attendee', 'order'] as const) {
    test(`POST /files with post_id of Y's ${kind}`, async () => {
      const id = await makePost(kind, Y);
      const before = { rows: await attached(id), uploads: await uploadCount(), files: storedFiles() };
      for (const [who, auth] of [
        ['organizer X', X.auth],
        ['door user', door],
      ] as const) {
        const r = await attach(auth, id);
        assert.equal(r.status, 403, `${who}: ${r.text}`);
        assert.deepEqual(r.body, FORBIDDEN, who);
        assert.deepEqual({ rows: await attached(id), uploads: await uploadCount(), files: storedFiles() }, before, who);
      }
      const own = await attach(Y.auth, id);
      assert.equal(own.status, 201, `owner: ${own.text}`);
      assert.equal(own.body.file.parent, id);
      const other = await makePost(kind, Y);
      const a = await attach(s.admin, other);
      assert.equal(a.status, 201, `administrator: ${a.text}`);
      assert.equal(a.body.file.parent, other);
    });
  }

  test('the original order of checks: invalid parameters (400) before the permission (403)', async () => {
    const id = await makePost('event', Y);
    const before = await uploadCount();
    const badName = await attach(X.auth, id, '../evil.gif');
    assert.equal(badName.status, 400, badName.text);
    assert.equal(badName.body.code, 'rest_invalid_param');
    const badContent = await attach(X.auth, id, 'plan.gif', 'not base64!');
    assert.equal(badContent.status, 400, badContent.text);
    assert.equal(badContent.body.code, 'rest_invalid_param');
    const missing = await call(`${s.root}protected-files/v1/files`, { method: 'POST', auth: X.auth, body: { post_id: id } });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.equal(await uploadCount(), before);
  });

  test('an organizer still uploads unattached files and attaches to its own posts', async () => {
    const free = await call(`${s.root}protected-files/v1/files`, { method: 'POST', auth: X.auth, body: { filename: 'flyer.gif', content: GIF } });
    assert.equal(free.status, 201, free.text);
    assert.equal(free.body.file.parent, 0);
    for (const kind of ['event', 'organizer', 'attendee'] as const) {
      const id = await makePost(kind, X);
      const r = await attach(X.auth, id);
      assert.equal(r.status, 201, `${kind}: ${r.text}`);
      assert.equal(r.body.file.parent, id);
    }
  });
});
