import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { buy, makeEvent, ticketId, tix } from './fixtures.ts';

let s: TestServer;
let door: string;
let e1: number;
let e2: number;
let draftEvent: number;
const t: Record<string, number> = {};

const ids = (r: { body: { tickets: { id: number }[] } }) => r.body.tickets.map((x) => x.id);
const list = (query: string, auth?: string) =>
  call(`${tix(s)}/tickets?per_page=100&${query}`, auth ? { auth } : { headers: { authorization: door } });

beforeAll(async () => {
  s = await startTestServer();
  door = `Bearer ${(await s.apiKey('Door')).key}`;
  e1 = await makeEvent(s, { title: 'First' });
  e2 = await makeEvent(s, { title: 'Second' });
  draftEvent = await makeEvent(s, { title: 'Draft', status: 'draft' });
  t.alpha = await ticketId(s, e1, { name: 'Alpha', description: 'early bird', 'ticket[capacity]': '2' });
  t.bravo = await ticketId(s, e1, {
    name: 'Bravo',
    provider: 'tc',
    price: '15',
    currency: 'EUR',
    'ticket[capacity]': '100',
    start_date: '2030-01-01',
    end_date: '2030-02-01',
  });
  t.charlie = await ticketId(s, e2, { name: 'Charlie', provider: 'tc', price: '5', 'ticket[capacity]': '50' });
  t.delta = await ticketId(s, e2, { name: 'Delta' });
  t.echo = await ticketId(s, draftEvent, { name: 'Echo' });
  assert.equal((await buy(s, [{ ticket_id: t.alpha, quantity: 2 }])).status, 201);
  assert.equal((await buy(s, [{ ticket_id: t.delta, quantity: 1 }])).status, 201);
});
afterAll(() => s.close());

describe('GET /tickets', () => {
  test('anonymous: published tickets of published posts, by title, with ET headers and rest_url', async () => {
    const r = await call(`${tix(s)}/tickets?per_page=10`);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['rest_url', 'total', 'total_pages', 'tickets']);
    assert.deepEqual(ids(r), [t.alpha, t.bravo, t.charlie, t.delta]);
    assert.equal(r.body.total, 4);
    assert.equal(r.body.total_pages, 1);
    assert.equal(r.headers.get('x-et-total'), '4');
    assert.equal(r.headers.get('x-et-total-pages'), '1');
    assert.equal(r.body.rest_url, `${s.root}evt/tickets/v1/tickets/?per_page=10`);
    assert.deepEqual(r.body.tickets[0].attendees, []);
    assert.equal('max' in r.body.tickets[0].capacity_details, false);
  });

  test('default per_page is 3; paging; page past the end is 400 invalid-page-number', async () => {
    const p1 = await call(`${tix(s)}/tickets`);
    assert.equal(p1.body.tickets.length, 3);
    assert.equal(p1.body.total_pages, 2);
    const p2 = await call(`${tix(s)}/tickets?page=2`);
    assert.deepEqual(ids(p2), [t.delta]);
    const p3 = await call(`${tix(s)}/tickets?page=3`);
    assert.equal(p3.status, 400);
    assert.deepEqual(p3.body, {
      code: 'invalid-page-number',
      message: 'The page number requested is larger than the number of pages available.',
      data: { status: 400 },
    });
    // As the original: page=0 or a word is the first page.
    for (const p of ['0', 'x']) {
      const first = await call(`${tix(s)}/tickets?page=${p}`);
      assert.equal(first.status, 200, p);
      assert.deepEqual(ids(first), ids(p1), p);
    }
    // include_post naming no post is a parameter error, as in the original.
    const noPost = await call(`${tix(s)}/tickets?include_post=999999`);
    assert.equal(noPost.status, 400);
    assert.equal(noPost.body.code, 'rest_invalid_param');
    const empty = await call(`${tix(s)}/tickets?search=nothing-like-this`);
    assert.equal(empty.status, 200);
    assert.equal(empty.body.total, 0);
    const tooBig = await call(`${tix(s)}/tickets?per_page=101`);
    assert.equal(tooBig.status, 400);
    assert.equal(tooBig.body.code, 'rest_invalid_param');
  });

  test('offset skips and the total shrinks with it', async () => {
    const r = await call(`${tix(s)}/tickets?offset=1&per_page=10&orderby=id&order=ASC`);
    assert.equal(r.body.total, 3);
    assert.deepEqual(ids(r), [t.bravo, t.charlie, t.delta]);
    assert.equal(r.body.rest_url, `${s.root}evt/tickets/v1/tickets/?per_page=10&offset=1&order=ASC&orderby=id`);
    const bad = await call(`${tix(s)}/tickets?offset=x`);
    assert.equal(bad.status, 400);
  });

  test('order and orderby: by ID without orderby (order alone changes nothing); an orderby sorts DESC by default', async () => {
    // As the original: no orderby lists by ID, oldest first, whatever order says.
    assert.deepEqual(ids(await call(`${tix(s)}/tickets?per_page=10`)), [t.alpha, t.bravo, t.charlie, t.delta]);
    assert.deepEqual(ids(await call(`${tix(s)}/tickets?per_page=10&order=DESC`)), [t.alpha, t.bravo, t.charlie, t.delta]);
    assert.deepEqual(ids(await call(`${tix(s)}/tickets?per_page=10&orderby=id`)), [t.delta, t.charlie, t.bravo, t.alpha]);
    assert.deepEqual(ids(await call(`${tix(s)}/tickets?per_page=10&orderby=id&order=ASC`)), [t.alpha, t.bravo, t.charlie, t.delta]);
    assert.deepEqual(ids(await call(`${tix(s)}/tickets?per_page=10&orderby=include&include=${t.charlie},${t.alpha},${t.delta}`)), [
      t.charlie,
      t.alpha,
      t.delta,
    ]);
    assert.deepEqual(ids(await call(`${tix(s)}/tickets?per_page=10&orderby=slug&order=DESC`)), [t.delta, t.charlie, t.bravo, t.alpha]);
    assert.equal((await call(`${tix(s)}/tickets?orderby=price`)).status, 400);
  });

  test('filters: search, include/exclude, include_post/exclude_post, provider, currency, is_available', async () => {
    assert.deepEqual(ids(await list('search=early')), [t.alpha]);
    assert.deepEqual(ids(await list(`include=${t.alpha},${t.delta}`)), [t.alpha, t.delta]);
    assert.deepEqual(ids(await list(`exclude=${t.alpha},${t.delta}`)), [t.bravo, t.charlie, t.echo]);
    assert.deepEqual(ids(await list(`include_post=${e2}`)), [t.charlie, t.delta]);
    assert.deepEqual(ids(await list(`exclude_post=${e2},${draftEvent}`)), [t.alpha, t.bravo]);
    assert.deepEqual(ids(await list('provider=tc')), [t.bravo, t.charlie]);
    assert.deepEqual(ids(await list('currency=eur')), [t.bravo]);
    assert.deepEqual(ids(await list('currency=USD,EUR')), [t.bravo, t.charlie]);
    assert.deepEqual(ids(await list('is_available=false')), [t.alpha]);
    assert.deepEqual(ids(await list('is_available=true')), [t.bravo, t.charlie, t.delta, t.echo]);
    // Without the add-on the original ignores attendee_information_available.
    assert.deepEqual(ids(await list('attendee_information_available=true')), [t.alpha, t.bravo, t.charlie, t.delta, t.echo]);
    assert.equal((await list('is_available=maybe')).status, 400);
  });

  test('filters: after/before creation, available_from/available_until', async () => {
    assert.deepEqual(ids(await list('after=2000-01-01')).length, 5);
    assert.deepEqual(ids(await list('before=2000-01-01')), []);
    assert.deepEqual(ids(await list('available_from=2029-12-31')), [t.alpha, t.bravo, t.charlie, t.delta, t.echo]);
    assert.deepEqual(ids(await list('available_from=2030-01-02')), [t.alpha, t.charlie, t.delta, t.echo]);
    assert.deepEqual(ids(await list('available_until=2030-01-15')), [t.alpha, t.charlie, t.delta, t.echo]);
    assert.equal((await list('after=not a date at all')).status, 400);
  });

  test('manager-only filters apply for managers and are ignored for the public', async () => {
    assert.deepEqual(ids(await list('attendees_min=1')), [t.alpha, t.delta]);
    assert.deepEqual(ids(await list('attendees_min=2&attendees_max=2')), [t.alpha]);
    assert.deepEqual(ids(await list('attendees_max=0')), [t.bravo, t.charlie, t.echo]);
    assert.deepEqual(ids(await list('checkedin_min=1')), []);
    assert.deepEqual(ids(await list('checkedin_max=0')).length, 5);
    assert.deepEqual(ids(await list('capacity_min=50')), [t.bravo, t.charlie, t.delta, t.echo]);
    assert.deepEqual(ids(await list('capacity_max=50')), [t.alpha, t.charlie]);
    const pub = await call(`${tix(s)}/tickets?per_page=10&attendees_min=1&capacity_max=10`);
    assert.deepEqual(ids(pub), [t.alpha, t.bravo, t.charlie, t.delta]);
  });

  test('status and post_status: managers see every live status, the public only publish', async () => {
    assert.deepEqual(ids(await list(`post_status=draft`)), [t.echo]);
    const anon = await call(`${tix(s)}/tickets?per_page=10&post_status=draft`);
    assert.equal(anon.status, 200);
    assert.equal(anon.body.total, 0);
    assert.equal((await list('status=bogus')).status, 400);
    assert.deepEqual(ids(await list(`include_post=${draftEvent}&post_status=any`)), [t.echo]);
  });

  test('managers get attendees and check-in stats per ticket', async () => {
    const r = await list(`include=${t.alpha}`);
    assert.equal(r.body.tickets[0].attendees.length, 2);
    assert.deepEqual(r.body.tickets[0].capacity_details, {
      available_percentage: 0,
      available: 0,
      max: 2,
      sold: 2,
      pending: 0,
      global_stock_mode: 'own',
    });
    assert.equal(r.body.tickets[0].is_available, false);
  });

  test('a password-protected post masks its tickets in the archive', async () => {
    const locked = await makeEvent(s, { title: 'Locked', password: 'pw' });
    const masked = await ticketId(s, locked, { name: 'Masked' });
    const r = await call(`${tix(s)}/tickets?include_post=${locked}`);
    assert.equal(r.body.total, 1);
    assert.equal(r.body.tickets[0].title, 'No Access');
    assert.equal(r.body.tickets[0].id, 0);
    const mgr = await list(`include=${masked}`);
    assert.equal(mgr.body.tickets[0].title, 'Masked');
  });
});
