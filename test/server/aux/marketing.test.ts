import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

const NS = 'marketing/v1';
const KEY = '0123456789abcdef0123456789abcdef-us21';

describe('marketing/v1', () => {
  let s: TestServer;
  let door: string;
  let organizer: string;
  let ticketId = 0;
  let eventId = 0;
  const url = (r: string) => `${s.root}${NS}${r}`;
  const post = async (type: string, title: string) =>
    Number(
      (
        await s.db
          .prepare(
            "INSERT INTO posts (type, status, title, date, date_gmt, modified, modified_gmt) VALUES (?, 'publish', ?, '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00') RETURNING id",
          )
          .run(type, title)
      ).lastInsertRowid,
    );
  async function attendee(name: string, email: string): Promise<number> {
    const id = await post('attendee', name);
    await s.db
      .prepare("INSERT INTO attendees (post_id, ticket_id, event_id, provider, full_name, email, security_code) VALUES (?, ?, ?, 'rsvp', ?, ?, ?)")
      .run(id, ticketId, eventId, name, email, crypto.randomBytes(8).toString('hex'));
    return id;
  }
  const consent = (attendee_id: number, value: boolean, auth = door) =>
    call(url('/opt-ins'), { method: 'POST', auth, body: { attendee_id, consent: value, source: 'door' } });

  beforeAll(async () => {
    s = await startTestServer();
    door = await s.userAuth('door');
    organizer = await s.userAuth('organizer');
    eventId = await post('event', 'Gig');
    ticketId = await post('ticket', 'Entry');
    await s.db.prepare("INSERT INTO tickets (post_id, event_id, provider) VALUES (?, ?, 'rsvp')").run(ticketId, eventId);
  });
  afterAll(() => s.close());

  test('connection stores the API key encrypted and never shows it', async () => {
    assert.deepEqual((await call(url('/connection'), { auth: s.admin })).body, {
      connected: false,
      provider: null,
      list_id: null,
      key_last4: null,
      connected_at: null,
      last_sync: null,
    });
    const r = await call(url('/connection'), { method: 'POST', auth: s.admin, body: { provider: 'mailchimp', api_key: KEY, list_id: 'a1b2c3' } });
    assert.equal(r.status, 200);
    assert.equal(r.body.connected, true);
    assert.equal(r.body.key_last4, 'us21');
    assert.equal(JSON.stringify(r.body).includes(KEY), false);
    const raw = ((await s.db.prepare("SELECT value FROM options WHERE name = 'marketing.connection'").get()) as { value: string }).value;
    assert.equal(raw.includes(KEY), false, 'stored encrypted');
    for (const body of [
      { provider: 'mailchimp', api_key: 'short', list_id: 'x' },
      { provider: 'nope', api_key: KEY, list_id: 'x' },
      { provider: 'brevo', api_key: KEY, list_id: 'bad list' },
      { provider: 'brevo', api_key: `${KEY}\n`.repeat(2), list_id: 'x' },
    ]) {
      const bad = await call(url('/connection'), { method: 'PUT', auth: s.admin, body });
      assert.equal(bad.status, 400, JSON.stringify(body));
    }
    assert.equal((await call(url('/connection'), { auth: s.admin })).body.provider, 'mailchimp');
  });

  test("audience sync follows each address's latest consent", async () => {
    const ann = await attendee('Ann', 'ann@example.org');
    const bob = await attendee('Bob', 'bob@example.org');
    const bob2 = await attendee('Bob Again', 'BOB@example.org');
    await attendee('Cid', 'cid@example.org');
    assert.equal((await consent(ann, true)).status, 201);
    await consent(bob, true);
    let r = await call(url('/audience/sync'), { method: 'POST', auth: s.admin });
    assert.equal(r.status, 200);
    assert.deepEqual([r.body.added, r.body.updated, r.body.unsubscribed, r.body.subscribed], [2, 0, 0, 2]);
    const list = await call(url('/audience'), { auth: s.admin });
    assert.deepEqual(
      list.body.map((m: { email: string; status: string }) => [m.email, m.status]),
      [
        ['ann@example.org', 'subscribed'],
        ['bob@example.org', 'subscribed'],
      ],
    );
    assert.equal(list.headers.get('x-wp-total'), '2');

    // Bob withdraws through his second ticket (same address, different case); Ann's attendee is trashed.
    await s.db.prepare("UPDATE marketing_optins SET time = '2000-01-01 00:00:00' WHERE attendee_id = ?").run(bob);
    await consent(bob2, false);
    await s.db.prepare("UPDATE posts SET status = 'trash' WHERE id = ?").run(ann);
    r = await call(url('/audience/sync'), { method: 'POST', auth: s.admin });
    assert.deepEqual([r.body.added, r.body.unsubscribed, r.body.subscribed], [0, 2, 0]);
    const unsub = await call(url('/audience?status=unsubscribed&per_page=1&page=2'), { auth: s.admin });
    assert.deepEqual(
      unsub.body.map((m: { email: string }) => m.email),
      ['bob@example.org'],
    );
    assert.equal(unsub.headers.get('x-wp-totalpages'), '2');
    const st = await call(url('/status'), { auth: s.admin });
    assert.deepEqual(st.body.audience, { subscribed: 0, unsubscribed: 2 });
    assert.equal(st.body.opted_in_attendees, 0);
    assert.equal(typeof st.body.last_sync, 'string');
  });

  test('consent and sync refuse bad input; sync needs a connection', async () => {
    const missing = await call(url('/opt-ins'), { method: 'POST', auth: door, body: { attendee_id: 1 } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.data.params, ['consent']);
    assert.equal((await consent(999999, true)).status, 400);
    assert.equal((await consent(eventId, true)).status, 400, 'an event is not an attendee');
    assert.equal((await call(url('/audience?per_page=500'), { auth: s.admin })).status, 400);
    const d = await call(url('/connection'), { method: 'DELETE', auth: s.admin });
    assert.equal(d.body.deleted, true);
    assert.equal(d.body.connected, false);
    const r = await call(url('/audience/sync'), { method: 'POST', auth: s.admin });
    assert.equal(r.status, 409);
    assert.equal(r.body.code, 'marketing_not_connected');
  });

  test('a key sealed under another secret is detected rather than used', async () => {
    await call(url('/connection'), { method: 'POST', auth: s.admin, body: { provider: 'brevo', api_key: KEY, list_id: 'l1' } });
    const real = s.app.state.secret;
    s.app.state.secret = 'a-different-site-secret-value';
    try {
      const r = await call(url('/audience/sync'), { method: 'POST', auth: s.admin });
      assert.equal(r.status, 409);
      assert.equal(r.body.code, 'marketing_key_unreadable');
    } finally {
      s.app.state.secret = real;
    }
    assert.equal((await call(url('/audience/sync'), { method: 'POST', auth: s.admin })).status, 200);
  });

  test('permissions: consent needs manage_attendees, the rest manage_options', async () => {
    const a = await attendee('Dee', 'dee@example.org');
    // An organizer records consent only for attendees of events it authored (issue 10 item 8).
    assert.equal((await consent(a, true, organizer)).status, 403);
    await s.db.prepare("UPDATE posts SET author = (SELECT MAX(id) FROM users WHERE role = 'organizer') WHERE id = ?").run(eventId);
    assert.equal((await consent(a, true, organizer)).status, 201);
    await s.db.prepare('UPDATE posts SET author = 0 WHERE id = ?').run(eventId);
    assert.equal((await call(url('/opt-ins'), { method: 'POST', body: { attendee_id: a, consent: true } })).status, 401);
    for (const [method, r] of [
      ['GET', '/connection'],
      ['POST', '/connection'],
      ['DELETE', '/connection'],
      ['GET', '/audience'],
      ['POST', '/audience/sync'],
      ['GET', '/status'],
    ]) {
      // A valid body: parameter errors come before the permission check.
      const body = r === '/connection' && method === 'POST' ? { provider: 'brevo', api_key: KEY, list_id: 'l1' } : undefined;
      assert.equal((await call(url(r), { method, body })).status, 401, `${method} ${r}`);
      assert.equal((await call(url(r), { method, body, auth: organizer })).status, 403, `${method} ${r}`);
    }
  });
});
