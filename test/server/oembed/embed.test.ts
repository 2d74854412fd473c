import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { createEvent, createLinked, updateEvent } from '../site/fixtures.ts';

let s: TestServer;
let ev: { id: number; url: string; slug: string };
let venue: { id: number; url: string; slug: string };
let organizer: { id: number; url: string; slug: string };

const embed = (params: Record<string, string>, prefix = '') => call(`${s.base}${prefix}/wp-json/oembed/1.0/embed?${new URLSearchParams(params)}`);
/** The keys of core's oEmbed answer, in its order. */
const OEMBED_KEYS = ['version', 'provider_name', 'provider_url', 'author_name', 'author_url', 'title', 'type', 'width', 'height', 'html'];
const SECRET = /data-secret="([A-Za-z0-9]{10})"/;

beforeAll(async () => {
  s = await startTestServer();
  venue = await createLinked(s, 'venue', { venue: 'Hall & Co', city: 'Tallinn' });
  organizer = await createLinked(s, 'organizer', { organizer: 'Org "One"' });
  ev = await createEvent(s, { title: 'Jazz <b>Night</b> & "Friends"', venue: { id: venue.id } });
  await updateEvent(s, ev.id, { translation_language: 'et', title: 'Džässiõhtu' });
});
afterAll(() => s.close());

describe('GET /oembed/1.0/embed', () => {
  test('answers the oEmbed object of an event in core key order, with escaped HTML', async () => {
    const r = await embed({ url: ev.url });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), OEMBED_KEYS);
    const secret = SECRET.exec(r.body.html)![1];
    const title = 'Jazz &lt;b&gt;Night&lt;/b&gt; &amp; &quot;Friends&quot;';
    assert.deepEqual(
      { ...r.body, html: undefined },
      {
        version: '1.0',
        provider_name: 'Doorstep',
        provider_url: `${s.base}/`,
        author_name: 'admin',
        author_url: `${s.base}/`,
        title: 'Jazz <b>Night</b> & "Friends"',
        type: 'rich',
        width: 600,
        height: 338,
        html: undefined,
      },
    );
    const expected =
      `<blockquote class="wp-embedded-content" data-secret="${secret}"><a href="${ev.url}">${title}</a></blockquote>` +
      `<iframe sandbox="allow-scripts" security="restricted" src="${ev.url}embed/#?secret=${secret}" width="600" height="338" ` +
      `title="&#8220;${title}&#8221; &#8212; Doorstep" data-secret="${secret}" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" class="wp-embedded-content"></iframe><script>`;
    assert.ok(r.body.html.startsWith(expected), r.body.html);
    assert.ok(r.body.html.endsWith('</script>'));
    assert.ok(!r.body.html.includes('<b>'), 'no raw markup from the title');
  });

  test('a new secret per answer', async () => {
    const a = SECRET.exec((await embed({ url: ev.url })).body.html)![1];
    const b = SECRET.exec((await embed({ url: ev.url })).body.html)![1];
    assert.notEqual(a, b);
  });

  test('clamps the width to [200, 600] and derives the height (16:9, at least 200)', async () => {
    const cases: [string, number, number][] = [
      ['600', 600, 338],
      ['300', 300, 200],
      ['400', 400, 225],
      ['100', 200, 200],
      ['5000', 600, 338],
      ['-450', 450, 254],
      ['abc', 200, 200],
      ['360px', 360, 203],
    ];
    for (const [maxwidth, width, height] of cases) {
      const r = await embed({ url: ev.url, maxwidth });
      assert.equal(r.status, 200, maxwidth);
      assert.deepEqual([r.body.width, r.body.height], [width, height], maxwidth);
      assert.ok(r.body.html.includes(`width="${width}" height="${height}"`), maxwidth);
    }
  });

  test('as the original: only events embed, by permalink (venues, organizers and ?p= URLs are 404)', async () => {
    for (const url of [venue.url, organizer.url, `${s.base}/?p=${ev.id}`, `${s.base}/index.php?p=${ev.id}`, `${s.base}/?p=${venue.id}`]) {
      const r = await embed({ url });
      assert.equal(r.status, 404, url);
      assert.deepEqual(r.body, { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } }, url);
    }
  });

  test('a password-protected event embeds as the original, by its "Protected:" title only', async () => {
    const locked = await createEvent(s, { title: 'Locked room', password: 'sesame', description: 'The hidden agenda' });
    const r = await embed({ url: locked.url });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), OEMBED_KEYS);
    assert.equal(r.body.title, 'Protected: Locked room');
    assert.equal(r.body.html, `<blockquote class="wp-embedded-content"><a href="${locked.url}">Protected: Locked room</a></blockquote>`);
    assert.ok(!JSON.stringify(r.body).includes('hidden agenda'));
    // The page itself stays closed: there is nothing to frame.
    assert.equal((await call(`${locked.url}embed/`)).status, 404);
    const et = await embed({ url: locked.url, translation_language: 'et' });
    assert.equal(et.body.title, 'Kaitstud: Locked room');
  });

  test("the URL's language segment picks the text and keeps the segment in links", async () => {
    const etUrl = ev.url.replace(s.base, `${s.base}/et`);
    const r = await embed({ url: etUrl });
    assert.equal(r.status, 200);
    assert.equal(r.body.title, 'Džässiõhtu');
    assert.equal(r.body.provider_url, `${s.base}/et/`);
    assert.ok(r.body.html.includes(`href="${etUrl}"`));
    // translation_language wins over the URL.
    assert.equal((await embed({ url: etUrl, translation_language: 'en' })).body.title, 'Jazz <b>Night</b> & "Friends"');
    // The request's own segment applies when the URL has none.
    assert.equal((await embed({ url: ev.url }, '/et')).body.title, 'Džässiõhtu');
  });

  test('format=xml answers XML with each key an element, escaped as esc_html', async () => {
    const r = await embed({ url: ev.url, format: 'xml', maxwidth: '300' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/xml; charset=UTF-8');
    const head =
      `<?xml version="1.0"?>\n<oembed><version>1.0</version><provider_name>Doorstep</provider_name><provider_url>${s.base}/</provider_url>` +
      `<author_name>admin</author_name><author_url>${s.base}/</author_url><title>Jazz &lt;b&gt;Night&lt;/b&gt; &amp; &quot;Friends&quot;</title>` +
      `<type>rich</type><width>300</width><height>200</height><html>&lt;blockquote class=&quot;wp-embedded-content&quot;`;
    assert.ok(r.text.startsWith(head), r.text);
    assert.ok(r.text.endsWith('</html></oembed>\n'));
    // Entities already in the HTML are not encoded twice.
    assert.ok(r.text.includes('title=&quot;&#8220;Jazz'));
  });

  test('errors are XML in XML mode: unknown URL 404, missing url 400', async () => {
    const r = await embed({ url: `${s.base}/event/nothing-here/`, format: 'xml' });
    assert.equal(r.status, 404);
    assert.equal(r.headers.get('content-type'), 'text/xml; charset=UTF-8');
    assert.equal(
      r.text,
      '<?xml version="1.0"?>\n<oembed><code>oembed_invalid_url</code><message>Not Found</message><data><status>404</status></data></oembed>\n',
    );
    const m = await embed({ format: 'xml' });
    assert.equal(m.status, 400);
    assert.equal(
      m.text,
      '<?xml version="1.0"?>\n<oembed><code>rest_missing_callback_param</code><message>Missing parameter(s): url</message><data><status>400</status><params><oembed>url</oembed></params></data></oembed>\n',
    );
  });

  test('any other format is coerced to JSON', async () => {
    const r = await embed({ url: ev.url, format: 'yaml' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=UTF-8');
    assert.equal(r.body.type, 'rich');
  });

  test('404 oembed_invalid_url for anything that is not a public page of this site', async () => {
    const draft = await createEvent(s, { title: 'Draft', status: 'draft' });
    const trashed = await createEvent(s, { title: 'Gone' });
    assert.equal((await call(`${s.root}evt/events/v1/events/${trashed.id}`, { method: 'DELETE', auth: s.admin })).status, 200);
    const urls = [
      `${s.base}/event/nothing-here/`,
      `${s.base}/event/${draft.slug}/`,
      `${s.base}/?p=${draft.id}`,
      `${s.base}/event/${trashed.slug}/`,
      ev.url.replace('127.0.0.1', 'example.org'),
      ev.url.replace(/:\d+\//, ':1/'),
      `${s.base}/fr/event/${ev.slug}/`,
      `${s.base}/tag/${ev.slug}/`,
      `javascript:alert(1)`,
      'not a url',
    ];
    for (const url of urls) {
      const r = await embed({ url });
      assert.equal(r.status, 404, url);
      assert.deepEqual(r.body, { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } }, url);
    }
  });

  test('missing url is 400 rest_missing_callback_param; a non-string url is 400 rest_invalid_param', async () => {
    const r = await embed({});
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): url', data: { status: 400, params: ['url'] } });
    const a = await call(`${s.root}oembed/1.0/embed?url[]=x`);
    assert.equal(a.status, 400);
    assert.equal(a.body.code, 'rest_invalid_param');
  });

  test('wrong method is 404 rest_no_route', async () => {
    const r = await call(`${s.root}oembed/1.0/embed?url=${encodeURIComponent(ev.url)}`, { method: 'POST', body: {} });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'rest_no_route');
  });

  test('the namespace is listed first, with its index and an OpenAPI /doc', async () => {
    const idx = await call(s.root);
    assert.equal(idx.body.namespaces[0], 'oembed/1.0');
    const args = idx.body.routes['/oembed/1.0/embed'].endpoints[0].args;
    assert.deepEqual(args.url, {
      description: 'The URL of the resource for which to fetch oEmbed data.',
      type: 'string',
      format: 'uri',
      required: true,
    });
    assert.deepEqual(args.maxwidth, { default: 600, required: false });
    const doc = await call(`${s.root}oembed/1.0/doc`);
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, '3.0.0');
    assert.ok(doc.body.paths['/embed'] && doc.body.paths['/proxy']);
  });
});
