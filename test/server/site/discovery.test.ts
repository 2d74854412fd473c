import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startTestServer, call, type TestServer } from '../../helpers/server.ts';

/**
 * Interface discovery as WordPress offers it: every site page, `/` first, sends
 * `Link: <{base}/wp-json/>; rel="https://api.w.org/"`, so a client given only the site's address finds the
 * interface (the real `wpapi` client's `WPAPI.discover(siteUrl)` here).
 */

// wpapi is CommonJS without type declarations.
const WPAPI = createRequire(import.meta.url)('wpapi') as any;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // Within the default window of an events list (from today on).
  const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const made = await call(`${s.root}evt/events/v1/events`, {
    method: 'POST',
    auth: s.admin,
    body: { title: 'Discovered event', start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, status: 'publish' },
  });
  assert.equal(made.status, 201, made.text);
});
afterAll(async () => {
  await s.close();
});

const link = () => `<${s.base}/wp-json/>; rel="https://api.w.org/"`;

test('GET / and HEAD / answer 200 with the discovery Link header', async () => {
  for (const method of ['GET', 'HEAD']) {
    const res = await fetch(`${s.base}/`, { method, redirect: 'manual' });
    assert.equal(res.status, 200, method);
    assert.equal(res.headers.get('link'), link(), method);
    await res.arrayBuffer();
  }
  // The front page lists the upcoming events.
  const home = await fetch(`${s.base}/`);
  assert.match(await home.text(), /Discovered event/);
});

test('other site pages send it too, 404 pages included; a language segment points at its own root', async () => {
  for (const p of ['/events/', '/events/list/', '/event/discovered-event/', '/robots.txt', '/no-such-page/']) {
    const res = await fetch(`${s.base}${p}`, { redirect: 'manual' });
    assert.equal(res.headers.get('link'), link(), p);
    await res.arrayBuffer();
  }
  const et = await fetch(`${s.base}/et/`, { method: 'HEAD' });
  assert.equal(et.status, 200);
  assert.equal(et.headers.get('link'), `<${s.base}/et/wp-json/>; rel="https://api.w.org/"`);
  // Static files carry none (WordPress sends it from its PHP pages only).
  const asset = await fetch(`${s.base}/site-assets/no-such-asset.css`);
  assert.equal(asset.headers.get('link'), null);
  await asset.arrayBuffer();
});

test('WPAPI.discover(siteUrl) finds the interface and reads the events namespace through it', async () => {
  const site = await WPAPI.discover(s.base);
  assert.equal(site._options.endpoint, s.root);
  // A raw call through the client's own transport to the renamed events namespace.
  const list = await site.root('evt/events/v1/events').param('per_page', 5).get();
  assert.ok(Array.isArray(list.events));
  assert.deepEqual(
    list.events.map((e: { title: string }) => e.title),
    ['Discovered event'],
  );
  // The routes the client bootstrapped from the interface root include the namespace.
  const events = await site.namespace('evt/events/v1').events().get();
  assert.deepEqual(
    events.events.map((e: { title: string }) => e.title),
    ['Discovered event'],
  );
});
