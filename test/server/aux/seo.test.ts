import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { checkWellFormed } from '../../../shared/xml/well-formed.ts';

const NS = 'seo/v1';

describe('seo/v1', () => {
  let s: TestServer;
  let organizer: string;
  const ids: Record<string, number> = {};
  const url = (r: string) => `${s.root}${NS}${r}`;
  // The organizer's own events: an organizer changes the meta only of posts it authored (CONTRACT section 3).
  async function event(title: string, extra: Record<string, unknown> = {}) {
    const r = await call(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      auth: organizer,
      body: {
        title,
        description: `<p>About ${title} &amp; more</p>`,
        start_date: '2026-12-01 19:00:00',
        end_date: '2026-12-01 22:00:00',
        status: 'publish',
        ...extra,
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  }
  beforeAll(async () => {
    s = await startTestServer();
    organizer = await s.userAuth('organizer');
    ids.pub = await event('Jazz & Blues');
    ids.draft = await event('Secret rehearsal', { status: 'draft' });
    ids.locked = await event('Members only', { password: 'pw' });
    ids.hidden = await event('Unlisted', { hide_from_listings: true });
    ids.noindex = await event('Private party');
  });
  afterAll(() => s.close());

  test('meta: defaults from the post, updates by an organizer, validation', async () => {
    const r = await call(url(`/meta/${ids.pub}`));
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      post_id: ids.pub,
      title: '',
      description: '',
      canonical: '',
      noindex: false,
      nofollow: false,
      effective: {
        title: 'Jazz & Blues – Doorstep',
        description: 'About Jazz & Blues more',
        canonical: `${s.base}/event/jazz-blues/`,
        robots: 'index, follow',
      },
    });
    const u = await call(url(`/meta/${ids.pub}`), {
      method: 'POST',
      auth: organizer,
      body: { title: 'Jazz night\nin town', description: 'Live music.', canonical: 'https://example.org/jazz' },
    });
    assert.equal(u.status, 200);
    assert.equal(u.body.title, 'Jazz night in town', 'control characters cannot break the page head');
    assert.equal(u.body.effective.canonical, 'https://example.org/jazz');
    const p = await call(url(`/meta/${ids.pub}`), { method: 'PATCH', auth: organizer, body: { nofollow: true } });
    assert.equal(p.body.description, 'Live music.', 'a partial update keeps the other fields');
    assert.equal(p.body.effective.robots, 'index, nofollow');
    for (const canonical of ['javascript:alert(1)', 'ftp://example.org/', 'https://user:pw@example.org/', 'not a url']) {
      const bad = await call(url(`/meta/${ids.pub}`), { method: 'POST', auth: organizer, body: { canonical } });
      assert.equal(bad.status, 400, canonical);
      assert.deepEqual(Object.keys(bad.body.data.params), ['canonical']);
    }
    const long = await call(url(`/meta/${ids.pub}`), { method: 'POST', auth: organizer, body: { description: 'x'.repeat(321) } });
    assert.equal(long.status, 400);
    assert.equal((await call(url(`/meta/${ids.pub}`))).body.effective.canonical, 'https://example.org/jazz');
    assert.equal((await call(url(`/meta/${ids.noindex}`), { method: 'PUT', auth: organizer, body: { noindex: 'true' } })).body.noindex, true);
  });

  test('meta of unpublished, protected and non-content posts is hidden from the public', async () => {
    for (const id of [ids.draft, ids.locked]) {
      const r = await call(url(`/meta/${id}`));
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'rest_post_invalid_id');
      assert.equal((await call(url(`/meta/${id}`), { auth: organizer })).status, 200);
    }
    assert.equal((await call(url('/meta/999999'))).status, 404);
    assert.equal((await call(url('/meta/abc'))).body.code, 'rest_no_route');
  });

  test('sitemap lists only published, open, listed, indexable content, as JSON and as XML', async () => {
    const r = await call(url('/sitemap'));
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.urls.map((u: { id: number }) => u.id).sort(), [ids.pub]);
    assert.match(r.body.urls[0].lastmod, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    const x = await call(url('/sitemap?format=xml'));
    assert.equal(x.headers.get('content-type'), 'application/xml; charset=UTF-8');
    assert.equal(checkWellFormed(x.text).ok, true);
    assert.match(x.text, new RegExp(`<loc>${s.base}/event/jazz-blues/</loc>`));
    const root = await fetch(`${s.base}/sitemap.xml`);
    assert.equal(root.status, 200);
    assert.equal(checkWellFormed(await root.text()).ok, true);
    assert.equal((await call(url('/sitemap?format=html'))).status, 400);
  });

  test('robots settings produce robots.txt; path rules cannot inject lines', async () => {
    const r = await call(url('/robots'));
    assert.equal(r.body.robots_txt, `User-agent: *\nDisallow: /wp-json/\nDisallow: /private/\n\nSitemap: ${s.base}/sitemap.xml\n`);
    const u = await call(url('/robots'), { method: 'POST', auth: s.admin, body: { disallow: ['/drafts/', '/tmp/'], crawl_delay: 5 } });
    assert.equal(u.status, 200);
    assert.equal(u.body.robots_txt, `User-agent: *\nDisallow: /drafts/\nDisallow: /tmp/\nCrawl-delay: 5\n\nSitemap: ${s.base}/sitemap.xml\n`);
    const txt = await fetch(`${s.base}/robots.txt`);
    assert.equal(await txt.text(), u.body.robots_txt);
    for (const disallow of [['/ok/', '/x\nDisallow: /'], ['relative/'], ['/a b']]) {
      const bad = await call(url('/robots'), { method: 'POST', auth: s.admin, body: { disallow } });
      assert.equal(bad.status, 400, JSON.stringify(disallow));
    }
    const block = await call(url('/robots'), { method: 'PATCH', auth: s.admin, form: { block_all: '1' } });
    assert.equal(block.body.robots_txt, 'User-agent: *\nDisallow: /\nCrawl-delay: 5\n');
  });

  test('permissions: meta writes need edit_events, robots writes manage_options', async () => {
    const door = await s.userAuth('door');
    assert.equal((await call(url(`/meta/${ids.pub}`), { method: 'POST', body: { title: 'x' } })).status, 401);
    assert.equal((await call(url(`/meta/${ids.pub}`), { method: 'POST', auth: door, body: { title: 'x' } })).status, 403);
    assert.equal((await call(url('/robots'), { method: 'POST', body: { crawl_delay: 1 } })).status, 401);
    assert.equal((await call(url('/robots'), { method: 'POST', auth: organizer, body: { crawl_delay: 1 } })).status, 403);
  });
});
