// Issue 10 item 8 (CONTRACT section 3): an organizer changes only the events, venues, organizers and terms it
// authored; any organizer may use and create them; only an administrator gives a post to someone else.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { draftBody, userWithId } from '../helpers/ownership.ts';

let s: TestServer;
let E: string;
let X: { auth: string; id: number };
let Y: { auth: string; id: number };
let door: string;
let n = 0;
const uniq = (p: string) => `${p} ${++n}`;

const user = (role: 'organizer' | 'door', login: string) => userWithId(s, role, login);

type Kind = 'event' | 'venue' | 'organizer' | 'tag' | 'category';
const PLURAL: Record<Kind, string> = { event: 'events', venue: 'venues', organizer: 'organizers', tag: 'tags', category: 'categories' };
const isTerm = (k: Kind) => k === 'tag' || k === 'category';

/** Creates a draft object of `kind` as `auth`; returns its ID and slug. */
async function make(kind: Kind, auth: string): Promise<{ id: number; slug: string }> {
  const name = uniq(`${kind} of someone`);
  const body = draftBody(kind, name);
  const r = await call(`${E}/${PLURAL[kind]}`, { method: 'POST', auth, body });
  assert.equal(r.status, 201, r.text);
  return { id: r.body.id, slug: r.body.slug };
}

/** Everything stored about one object: its row and detail row (posts) or its term row. */
async function stored(kind: Kind, id: number): Promise<unknown> {
  if (isTerm(kind)) return await s.db.prepare('SELECT * FROM terms WHERE id = ?').get(id);
  const detail = kind === 'event' ? 'events' : kind === 'venue' ? 'venues' : 'organizers';
  return {
    post: await s.db.prepare('SELECT * FROM posts WHERE id = ?').get(id),
    detail: await s.db.prepare(`SELECT * FROM ${detail} WHERE post_id = ?`).get(id),
    links: await s.db.prepare('SELECT * FROM term_relationships WHERE post_id = ? ORDER BY term_id').all(id),
  };
}

interface Write {
  name: string;
  kinds: Kind[];
  request: (kind: Kind, o: { id: number; slug: string }) => { method: string; path: string; body?: Record<string, unknown> };
  /** What the write does when it is allowed. */
  took: (kind: Kind, id: number) => Promise<boolean>;
}

const titleKey = (k: Kind) => (k === 'event' ? 'title' : k === 'venue' ? 'venue' : k === 'organizer' ? 'organizer' : 'name');
const postTitle = async (id: number) => ((await s.db.prepare('SELECT title FROM posts WHERE id = ?').get(id)) as { title: string }).title;
const postStatus = async (id: number) =>
  ((await s.db.prepare('SELECT status FROM posts WHERE id = ?').get(id)) as { status: string } | undefined)?.status;
const termName = async (id: number) => ((await s.db.prepare('SELECT name FROM terms WHERE id = ?').get(id)) as { name: string } | undefined)?.name;
const changedName = async (k: Kind, id: number) => (isTerm(k) ? await termName(id) : await postTitle(id))?.startsWith('Renamed') ?? false;

const WRITES: Write[] = [
  {
    name: 'update (POST)',
    kinds: ['event', 'venue', 'organizer', 'tag', 'category'],
    request: (k, o) => ({ method: 'POST', path: `/${PLURAL[k]}/${o.id}`, body: { [titleKey(k)]: uniq('Renamed') } }),
    took: changedName,
  },
  {
    name: 'update (PUT)',
    kinds: ['event', 'venue', 'organizer', 'tag', 'category'],
    request: (k, o) => ({ method: 'PUT', path: `/${PLURAL[k]}/${o.id}`, body: { [titleKey(k)]: uniq('Renamed'), description: 'defaced' } }),
    took: changedName,
  },
  {
    name: 'update by slug (PATCH)',
    kinds: ['event', 'venue', 'organizer'],
    request: (k, o) => ({ method: 'PATCH', path: `/${PLURAL[k]}/by-slug/${o.slug}`, body: { [titleKey(k)]: uniq('Renamed') } }),
    took: changedName,
  },
  {
    name: 'publish via status',
    kinds: ['event', 'venue', 'organizer'],
    request: (k, o) => ({ method: 'PATCH', path: `/${PLURAL[k]}/${o.id}`, body: { status: 'publish' } }),
    took: async (_k, id) => (await postStatus(id)) === 'publish',
  },
  {
    name: 'trash (DELETE)',
    kinds: ['event', 'venue', 'organizer'],
    request: (k, o) => ({ method: 'DELETE', path: `/${PLURAL[k]}/${o.id}` }),
    took: async (_k, id) => (await postStatus(id)) === 'trash',
  },
  {
    name: 'trash by slug (DELETE)',
    kinds: ['event', 'venue', 'organizer'],
    request: (k, o) => ({ method: 'DELETE', path: `/${PLURAL[k]}/by-slug/${o.slug}` }),
    took: async (_k, id) => (await postStatus(id)) === 'trash',
  },
  {
    name: 'delete (terms are deleted for good)',
    kinds: ['tag', 'category'],
    request: (k, o) => ({ method: 'DELETE', path: `/${PLURAL[k]}/${o.id}` }),
    took: async (_k, id) => (await termName(id)) === undefined,
  },
];

const CASES = WRITES.flatMap((w) => w.kinds.map((kind) => ({ w, kind })));

async function send(auth: string, req: { method: string; path: string; body?: Record<string, unknown> }) {
  return call(`${E}${req.path}`, { method: req.method, auth, body: req.body });
}

beforeAll(async () => {
  s = await startTestServer();
  E = `${s.root}evt/events/v1`;
  X = await user('organizer', 'organizer-x');
  Y = await user('organizer', 'organizer-y');
  door = (await user('door', 'door-d')).auth;
});
afterAll(() => s.close());

// One row per write and kind. Each row fails on the code before the fix at its first refusal; the owner's and
// the administrator's writes in the same row show the refusal is about ownership, not the write itself.
describe("organizer X against organizer Y's objects: 403 rest_forbidden and nothing stored changes; Y and an administrator may", () => {
  for (const { w, kind } of CASES) {
    test(`${w.name} of Y's ${kind}`, async () => {
      const o = await make(kind, Y.auth);
      const before = await stored(kind, o.id);
      for (const [who, auth] of [
        ['organizer X', X.auth],
        ['door user', door],
      ] as const) {
        const r = await send(auth, w.request(kind, o));
        assert.equal(r.status, 403, `${who}: ${r.text}`);
        assert.deepEqual(r.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
        assert.deepEqual(await stored(kind, o.id), before, who);
      }
      const own = await send(Y.auth, w.request(kind, o));
      assert.equal(own.status, 200, `owner: ${own.text}`);
      assert.ok(await w.took(kind, o.id), "the owner's write took effect");
      const other = await make(kind, Y.auth);
      const a = await send(s.admin, w.request(kind, other));
      assert.equal(a.status, 200, `administrator: ${a.text}`);
      assert.ok(await w.took(kind, other.id), "the administrator's write took effect");
    });
  }
});

describe('terms made before terms had an author (author 0)', () => {
  for (const kind of ['tag', 'category'] as const) {
    test(`a ${kind}: organizers may use it but not change it; an administrator may`, async () => {
      const taxonomy = kind === 'tag' ? 'post_tag' : 'tribe_events_cat';
      const name = uniq('Legacy');
      const slug = name.toLowerCase().replace(/\s+/g, '-');
      const id = Number(
        (await s.db.prepare('INSERT INTO terms (taxonomy, name, slug) VALUES (?, ?, ?) RETURNING id').run(taxonomy, name, slug)).lastInsertRowid,
      );
      const before = await stored(kind, id);
      const u = await send(X.auth, { method: 'PATCH', path: `/${PLURAL[kind]}/${id}`, body: { name: uniq('Renamed') } });
      assert.equal(u.status, 403, u.text);
      assert.equal(u.body.code, 'rest_forbidden');
      const d = await send(X.auth, { method: 'DELETE', path: `/${PLURAL[kind]}/${id}` });
      assert.equal(d.status, 403, d.text);
      assert.deepEqual(await stored(kind, id), before);
      // Use: tag X's own event with it.
      const e = await make('event', X.auth);
      const use = await send(X.auth, { method: 'PATCH', path: `/events/${e.id}`, body: { [PLURAL[kind]]: [id] } });
      assert.equal(use.status, 200, use.text);
      assert.deepEqual(
        use.body[PLURAL[kind]].map((t: { id: number }) => t.id),
        [id],
      );
      const a = await send(s.admin, { method: 'PATCH', path: `/${PLURAL[kind]}/${id}`, body: { name: uniq('Renamed') } });
      assert.equal(a.status, 200, a.text);
    });
  }
});

describe('any organizer uses and creates what others authored', () => {
  test("X links Y's venue, organizer, tag and category to its own event", async () => {
    const [venue, organizer, tag, category] = [
      await make('venue', Y.auth),
      await make('organizer', Y.auth),
      await make('tag', Y.auth),
      await make('category', Y.auth),
    ];
    const before = [await stored('venue', venue.id), await stored('organizer', organizer.id)];
    const r = await send(X.auth, {
      method: 'POST',
      path: '/events',
      body: {
        title: 'Borrowing',
        start_date: '2033-06-01 10:00',
        end_date: '2033-06-01 12:00',
        venue: venue.id,
        organizer: [organizer.id],
        tags: [tag.id],
        categories: [category.id],
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.venue.id, venue.id);
    assert.equal(r.body.organizer[0].id, organizer.id);
    assert.deepEqual([await stored('venue', venue.id), await stored('organizer', organizer.id)], before);
  });

  test("an event write naming Y's venue and organizer inline links them and changes neither", async () => {
    const venue = await make('venue', Y.auth);
    const organizer = await make('organizer', Y.auth);
    const vName = await postTitle(venue.id);
    const oName = await postTitle(organizer.id);
    const before = [await stored('venue', venue.id), await stored('organizer', organizer.id)];
    const e = await make('event', X.auth);
    const r = await send(X.auth, {
      method: 'PATCH',
      path: `/events/${e.id}`,
      body: {
        venue: { venue: vName, city: 'Defaced', status: 'publish', author: X.id },
        organizer: [{ organizer: oName, email: 'attacker@example.test', author: X.id }],
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.venue.id, venue.id);
    assert.equal(r.body.organizer[0].id, organizer.id);
    assert.deepEqual([await stored('venue', venue.id), await stored('organizer', organizer.id)], before);
  });

  test('terms an organizer creates (on their route or inline in an event) are its own to change', async () => {
    const c = await call(`${E}/tags`, { method: 'POST', auth: X.auth, body: { name: uniq('X tag') } });
    assert.equal(c.status, 201);
    const e = await send(X.auth, {
      method: 'POST',
      path: '/events',
      body: { title: 'Inline', start_date: '2033-07-01', end_date: '2033-07-01', categories: [uniq('Inline cat')] },
    });
    assert.equal(e.status, 201, e.text);
    const inline = e.body.categories[0].id as number;
    assert.equal((await send(X.auth, { method: 'PATCH', path: `/tags/${c.body.id}`, body: { description: 'mine' } })).status, 200);
    assert.equal((await send(X.auth, { method: 'PATCH', path: `/categories/${inline}`, body: { description: 'mine' } })).status, 200);
    const yBefore = [await stored('tag', c.body.id), await stored('category', inline)];
    assert.equal((await send(Y.auth, { method: 'PATCH', path: `/tags/${c.body.id}`, body: { description: 'theirs' } })).status, 403);
    assert.equal((await send(Y.auth, { method: 'DELETE', path: `/categories/${inline}` })).status, 403);
    assert.deepEqual([await stored('tag', c.body.id), await stored('category', inline)], yBefore);
  });
});

describe('only an administrator sets author to someone else', () => {
  const postCount = async () => ((await s.db.prepare('SELECT COUNT(*) AS n FROM posts').get()) as { n: number }).n;

  for (const kind of ['event', 'venue', 'organizer'] as const) {
    test(`create a ${kind} for Y: organizer X 403 and nothing created, X for itself 201, admin for Y 201`, async () => {
      const body = (author: number): Record<string, unknown> =>
        kind === 'event'
          ? { title: uniq('Gift'), start_date: '2033-08-01 10:00', end_date: '2033-08-01 12:00', author }
          : { [kind]: uniq('Gift'), author };
      const count = await postCount();
      const r = await call(`${E}/${PLURAL[kind]}`, { method: 'POST', auth: X.auth, body: body(Y.id) });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.body.code, 'rest_forbidden');
      assert.equal(await postCount(), count);
      const own = await call(`${E}/${PLURAL[kind]}`, { method: 'POST', auth: X.auth, body: body(X.id) });
      assert.equal(own.status, 201, own.text);
      assert.equal(own.body.author, String(X.id));
      const a = await call(`${E}/${PLURAL[kind]}`, { method: 'POST', auth: s.admin, body: body(Y.id) });
      assert.equal(a.status, 201, a.text);
      assert.equal(a.body.author, String(Y.id));
    });

    test(`update its own ${kind} to author Y (or 0): organizer X 403 and unchanged; admin 200`, async () => {
      const o = await make(kind, X.auth);
      const before = await stored(kind, o.id);
      for (const author of [Y.id, 0]) {
        const r = await send(X.auth, { method: 'PATCH', path: `/${PLURAL[kind]}/${o.id}`, body: { author } });
        assert.equal(r.status, 403, r.text);
        assert.equal(r.body.code, 'rest_forbidden');
        assert.deepEqual(await stored(kind, o.id), before);
      }
      assert.equal((await send(X.auth, { method: 'PATCH', path: `/${PLURAL[kind]}/${o.id}`, body: { author: X.id } })).status, 200);
      const a = await send(s.admin, { method: 'PATCH', path: `/${PLURAL[kind]}/${o.id}`, body: { author: Y.id } });
      assert.equal(a.status, 200, a.text);
      assert.equal(a.body.author, String(Y.id));
      // Now Y's: X has lost it.
      assert.equal((await send(X.auth, { method: 'PATCH', path: `/${PLURAL[kind]}/${o.id}`, body: { [titleKey(kind)]: 'Back' } })).status, 403);
    });
  }

  test("a venue created inline in X's event write cannot be given to Y", async () => {
    const e = await make('event', X.auth);
    const before = await stored('event', e.id);
    const count = await postCount();
    const r = await send(X.auth, { method: 'PATCH', path: `/events/${e.id}`, body: { venue: { venue: uniq('Inline gift'), author: Y.id } } });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.body.code, 'rest_forbidden');
    assert.equal(await postCount(), count);
    assert.deepEqual(await stored('event', e.id), before);
  });
});

describe('the order of checks holds: invalid parameters before permission', () => {
  test("X sends an invalid status or author to Y's event: 400 rest_invalid_param", async () => {
    const o = await make('event', Y.auth);
    const before = await stored('event', o.id);
    const bad = await send(X.auth, { method: 'PATCH', path: `/events/${o.id}`, body: { status: 'nonsense' } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.code, 'rest_invalid_param');
    const nobody = await send(X.auth, { method: 'PATCH', path: `/events/${o.id}`, body: { author: 987654 } });
    assert.equal(nobody.status, 400, nobody.text);
    assert.equal(nobody.body.code, 'rest_invalid_param');
    assert.equal((await send(X.auth, { method: 'PATCH', path: '/events/987654', body: { title: 'x' } })).status, 404);
    assert.deepEqual(await stored('event', o.id), before);
  });

  test("a trashed event of Y's is 403 for X (permission before the 410 already-trashed answer)", async () => {
    const o = await make('event', Y.auth);
    assert.equal((await send(Y.auth, { method: 'DELETE', path: `/events/${o.id}` })).status, 200);
    const r = await send(X.auth, { method: 'DELETE', path: `/events/${o.id}` });
    assert.equal(r.status, 403, r.text);
    assert.equal((await send(Y.auth, { method: 'DELETE', path: `/events/${o.id}` })).status, 410);
  });
});

describe('batch items follow the same rules', () => {
  test("X's batch: Y's event, venue and tag refused per item, X's own event updated", async () => {
    const [ev, venue, tag, mine] = [await make('event', Y.auth), await make('venue', Y.auth), await make('tag', Y.auth), await make('event', X.auth)];
    const before = [await stored('event', ev.id), await stored('venue', venue.id), await stored('tag', tag.id)];
    const p = '/evt/events/v1';
    const r = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: X.auth,
      body: {
        requests: [
          { method: 'PATCH', path: `${p}/events/${ev.id}`, body: { status: 'publish' } },
          { method: 'DELETE', path: `${p}/venues/${venue.id}` },
          { method: 'PATCH', path: `${p}/tags/${tag.id}`, body: { name: 'Renamed in batch' } },
          { method: 'PATCH', path: `${p}/events/${mine.id}`, body: { status: 'publish' } },
        ],
      },
    });
    assert.equal(r.status, 207, r.text);
    const statuses = r.body.responses.map((x: { status: number }) => x.status);
    assert.deepEqual(statuses, [403, 403, 403, 200]);
    for (const x of r.body.responses.slice(0, 3)) assert.equal(x.body.code, 'rest_forbidden');
    assert.deepEqual([await stored('event', ev.id), await stored('venue', venue.id), await stored('tag', tag.id)], before);
    assert.equal(await postStatus(mine.id), 'publish');
  });
});
