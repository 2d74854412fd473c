import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { createEvent, createLinked, page, updateEvent } from './fixtures.ts';

let s: TestServer;
let ev: { id: number; url: string; slug: string };
let venue: { id: number; url: string; slug: string };
let organizer: { id: number; url: string; slug: string };

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

beforeAll(async () => {
  s = await startTestServer();
  venue = await createLinked(s, 'venue', { venue: 'Hall <i>A</i>', address: 'Main 1', city: 'Tallinn' });
  // The API refuses such a website; older data might hold one, so the page must not link it.
  await s.db.prepare('UPDATE venues SET website = ? WHERE post_id = ?').run('javascript:alert(1)', venue.id);
  organizer = await createLinked(s, 'organizer', { organizer: 'Org & Co', email: 'org@example.test' });
  ev = await createEvent(s, {
    title: 'Jazz <script>alert(1)</script>',
    description: 'First line <img src=x onerror=alert(1)>\n\nSecond & last',
    start_date: '2030-06-01 19:00:00',
    end_date: '2030-06-01 22:00:00',
    venue: { id: venue.id },
    organizer: [organizer.id],
    cost: '15',
  });
  await updateEvent(s, ev.id, { translation_language: 'et', title: 'Džäss' });
});
afterAll(() => s.close());

describe('public event pages', () => {
  test('an event page: escaped content, dates, venue and organizer links, oEmbed discovery, strict CSP', async () => {
    const r = await page(ev.url);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(r.headers.get('content-security-policy'), CSP);
    assert.equal(r.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(!/<script>alert|<img src=x|<i>A<\/i>/.test(r.text), 'nothing user-entered is live markup');
    assert.ok(r.text.includes('<h1>Jazz &lt;script&gt;alert(1)&lt;/script&gt;</h1>'));
    assert.ok(r.text.includes('<html lang="en">'));
    assert.ok(
      r.text.includes(
        '<time datetime="2030-06-01T19:00:00">June 1, 2030 at 7:00 PM</time> &#8211; <time datetime="2030-06-01T22:00:00">10:00 PM</time>',
      ),
    );
    assert.ok(r.text.includes(`<a href="${venue.url}">Hall &lt;i&gt;A&lt;/i&gt;</a><br>Main 1, Tallinn`));
    assert.ok(r.text.includes(`<a href="${organizer.url}">Org &amp; Co</a>`));
    assert.ok(r.text.includes('<p>First line</p>\n<p>Second &amp; last</p>'));
    assert.ok(r.text.includes('$15'));
    const enc = encodeURIComponent(ev.url);
    assert.ok(r.text.includes(`<link rel="alternate" type="application/json+oembed" href="${s.base}/wp-json/oembed/1.0/embed?url=${enc}">`));
    assert.ok(r.text.includes(`<link rel="alternate" type="text/xml+oembed" href="${s.base}/wp-json/oembed/1.0/embed?url=${enc}&amp;format=xml">`));
    assert.ok(!/<script(?! src)/.test(r.text), 'no inline script');
    // The discovery link really leads to the oEmbed answer of this page.
    const o = await call(`${s.base}/wp-json/oembed/1.0/embed?url=${enc}`);
    assert.equal(o.status, 200);
  });

  test('/et/ pages use the Estonian text and keep the segment in links', async () => {
    const r = await page(ev.url.replace(s.base, `${s.base}/et`));
    assert.equal(r.status, 200);
    assert.ok(r.text.includes('<html lang="et">'));
    assert.ok(r.text.includes('<h1>Džäss</h1>'));
    assert.ok(r.text.includes(`href="${venue.url.replace(s.base, `${s.base}/et`)}"`));
    assert.ok(r.text.includes('1. juuni 2030'));
    assert.equal((await page(ev.url.replace(s.base, `${s.base}/en`))).status, 200);
  });

  test('venue and organizer pages list their upcoming events; unsafe websites are not linked', async () => {
    const v = await page(venue.url);
    assert.equal(v.status, 200);
    assert.ok(v.text.includes('<h1>Hall &lt;i&gt;A&lt;/i&gt;</h1>'));
    assert.ok(v.text.includes(`<a href="${ev.url}">Jazz &lt;script&gt;`));
    assert.ok(!v.text.includes('javascript:'));
    const o = await page(organizer.url);
    assert.equal(o.status, 200);
    assert.ok(o.text.includes('org@example.test'));
    assert.ok(o.text.includes(`<a href="${ev.url}">`));
  });

  test('embed pages are the iframe content: framable by anyone, script from this site only', async () => {
    const r = await page(`${ev.url}embed/`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-security-policy'), CSP.replace("frame-ancestors 'self'", 'frame-ancestors *'));
    assert.equal(r.headers.get('x-frame-options'), null);
    assert.ok(r.text.includes(`<script src="${s.base}/site-assets/embed-frame.js" defer></script>`));
    assert.ok(r.text.includes(`<a href="${ev.url}" target="_top">Jazz &lt;script&gt;alert(1)&lt;/script&gt;</a>`));
    const js = await page(`${s.base}/site-assets/embed-frame.js`);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.ok(js.text.includes("postMessage({message:msg,value:v,secret:s},'*')"));
    const css = await page(`${s.base}/site-assets/site.css`);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal((await page(`${s.base}/site-assets/../package.json`)).status, 404);
  });

  test('drafts, protected, trashed and unknown content is 404 (in HTML, with the CSP)', async () => {
    const draft = await createEvent(s, { title: 'Draft', status: 'draft' });
    const locked = await createEvent(s, { title: 'Locked', password: 'sesame' });
    const trashed = await createEvent(s, { title: 'Trashed' });
    await call(`${s.root}evt/events/v1/events/${trashed.id}`, { method: 'DELETE', auth: s.admin });
    for (const slug of [draft.slug, locked.slug, trashed.slug, 'no-such-event']) {
      for (const suffix of ['', 'embed/']) {
        const r = await page(`${s.base}/event/${slug}/${suffix}`);
        assert.equal(r.status, 404, slug + suffix);
        assert.equal(r.headers.get('content-security-policy'), CSP);
        assert.ok(!r.text.includes('Locked') && !r.text.includes('Draft'));
      }
    }
    assert.equal((await page(`${s.base}/venue/${ev.slug}/`)).status, 404, 'an event slug is not a venue');
  });

  test('permalinks without the trailing slash redirect; other methods fall through', async () => {
    const r = await page(ev.url.slice(0, -1));
    assert.equal(r.status, 301);
    assert.equal(r.headers.get('location'), new URL(ev.url).pathname);
    const post = await fetch(ev.url, { method: 'POST' });
    assert.equal(post.status, 404);
  });
});

describe('the events list page', () => {
  test('lists upcoming public events only, in start order', async () => {
    await createEvent(s, { title: 'Earlier', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
    await createEvent(s, { title: 'Past', start_date: '2020-01-01 10:00:00', end_date: '2020-01-01 11:00:00' });
    await createEvent(s, { title: 'Hidden', hide_from_listings: true });
    await createEvent(s, { title: 'Secret', password: 'x' });
    const r = await page(`${s.base}/events/`);
    assert.equal(r.status, 200);
    const titles = [...r.text.matchAll(/<h2><a href="[^"]+">([^<]+)<\/a><\/h2>/g)].map((m) => m[1]);
    assert.deepEqual(titles, ['Earlier', 'Jazz &lt;script&gt;alert(1)&lt;/script&gt;']);
    assert.ok(!r.text.includes('rel="next"'));
  });

  test('pages of 20 with prev/next links; bad or past-the-end pages are 404', async () => {
    for (let i = 0; i < 20; i++)
      await createEvent(s, {
        title: `Bulk ${i}`,
        start_date: `2031-01-${String(i + 1).padStart(2, '0')} 10:00:00`,
        end_date: `2031-01-${String(i + 1).padStart(2, '0')} 11:00:00`,
      });
    const one = await page(`${s.base}/events/`);
    assert.ok(one.text.includes(`<a rel="next" href="${s.base}/events/?page=2">`));
    const two = await page(`${s.base}/events/?page=2`);
    assert.equal(two.status, 200);
    assert.ok(two.text.includes(`<a rel="prev" href="${s.base}/events/">`));
    assert.equal([...two.text.matchAll(/<li class="event">/g)].length, 2);
    for (const p of ['3', '0', 'abc', '-1']) assert.equal((await page(`${s.base}/events/?page=${p}`)).status, 404, p);
    assert.equal((await page(`${s.base}/events`)).status, 301);
  });

  test('the calendar views work without JavaScript as pages: /events/month/YYYY-MM/ and /events/list/', async () => {
    const m = await page(`${s.base}/events/month/2030-06/`);
    assert.equal(m.status, 200);
    assert.equal(m.headers.get('content-security-policy'), CSP);
    assert.ok(m.text.includes('<h2 class="tribe-events-header__title">June 2030</h2>'));
    assert.ok(m.text.includes(`<a href="${ev.url}">Jazz &lt;script&gt;alert(1)&lt;/script&gt;</a>`));
    assert.ok(m.text.includes(`<a rel="next" href="${s.base}/events/month/2030-07/"`));
    const l = await page(`${s.base}/et/events/list/`);
    assert.equal(l.status, 200);
    assert.ok(l.text.includes('Tulevased üritused'));
    assert.equal((await page(`${s.base}/events/month/2030-13/`)).status, 404);
    assert.equal((await page(`${s.base}/events/list/page/x/`)).status, 404);
  });
});
