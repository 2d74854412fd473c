import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { formatInZone } from '../../../shared/dates.ts';

let s: TestServer;
let ev: string;
const ids: Record<string, number> = {};

const day = (offset: number, time = '19:00:00') => `${formatInZone(new Date(Date.now() + offset * 86400_000), 'UTC').slice(0, 10)} ${time}`;

beforeAll(async () => {
  s = await startTestServer();
  ev = `${s.root}evt/events/v1/events`;
  const make = async (key: string, body: Record<string, unknown>) => {
    const r = await call(ev, { method: 'POST', auth: s.admin, body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids[key] = r.body.id;
    return r.body;
  };
  const hall = await make('music1', {
    title: 'Rock concert',
    start_date: day(1),
    end_date: day(1, '22:00:00'),
    categories: ['Music'],
    tags: ['loud'],
    venue: { venue: 'Tallinn Hall', geo_lat: 59.437, geo_lng: 24.7536 },
    organizer: [{ organizer: 'Promoter' }],
    featured: true,
  });
  await make('music2', {
    title: 'Jazz evening',
    start_date: day(3),
    end_date: day(3, '23:00:00'),
    categories: ['Music', 'Jazz'],
    venue: { venue: 'Tartu Club', geo_lat: 58.378, geo_lng: 26.729 },
  });
  await make('talk', {
    title: 'Open data talk',
    description: 'About civic tech',
    start_date: day(5, '10:00:00'),
    end_date: day(5, '12:00:00'),
    categories: ['Talks'],
    venue: hall.venue.id,
  });
  await make('past', { title: 'Last month', start_date: day(-30), end_date: day(-30, '21:00:00'), categories: ['Music'] });
  await make('far', { title: 'In three years', start_date: day(3 * 365), end_date: day(3 * 365, '21:00:00') });
  await make('draft', { title: 'Draft gig', start_date: day(2), end_date: day(2, '21:00:00'), status: 'draft' });
  await make('hidden', { title: 'Hidden gig', start_date: day(2), end_date: day(2, '21:00:00'), hide_from_listings: true });
  await make('secret', {
    title: 'Members only',
    description: 'Secret words',
    start_date: day(4),
    end_date: day(4, '21:00:00'),
    password: 'pw',
    categories: ['Music'],
    cost: '9',
  });
  await make('child', { title: 'Child event', start_date: day(6), end_date: day(6, '21:00:00') });
  await s.db.prepare('UPDATE posts SET parent = ? WHERE id = ?').run(ids.music1, ids.child);
});
afterAll(() => s.close());

const titles = (r: { body: { events: { title: string }[] } }) => r.body.events.map((e) => e.title);
const list = (q: string, auth?: string) => call(`${ev}?per_page=50&${q}`, { auth });

describe('events archive', () => {
  test('default window: upcoming published, listed events in start order; X-TEC headers', async () => {
    const r = await list('');
    assert.equal(r.status, 200);
    assert.deepEqual(titles(r), ['Rock concert', 'Jazz evening', 'Members only', 'Open data talk', 'Child event']);
    assert.equal(r.headers.get('x-tec-total'), '5');
    assert.equal(r.headers.get('x-tec-totalpages'), '1');
    assert.deepEqual(Object.keys(r.body), ['events', 'rest_url', 'total', 'total_pages']);
  });

  test('paging: per_page default 3, next/previous URLs, 404 past the end, per_page capped at 50', async () => {
    const p1 = await call(ev);
    assert.equal(p1.body.events.length, 3);
    assert.equal(p1.body.total_pages, 2);
    assert.equal(p1.body.rest_url, `${s.root}evt/events/v1/events/`);
    assert.equal(p1.body.next_rest_url, `${s.root}evt/events/v1/events/?page=2`);
    assert.equal(p1.body.previous_rest_url, undefined);
    const p2 = await call(p1.body.next_rest_url);
    assert.equal(p2.body.events.length, 2);
    assert.equal(p2.body.previous_rest_url, `${s.root}evt/events/v1/events/`);
    assert.equal(p2.body.next_rest_url, undefined);
    const p3 = await call(`${ev}?page=3`);
    assert.deepEqual(p3.body, {
      code: 'event-archive-page-not-found',
      message: 'The requested event archive page does not exist',
      data: { status: 404 },
    });
    const big = await call(`${ev}?per_page=500`);
    assert.equal(big.status, 200);
    assert.equal(big.body.total_pages, 1);
    const bad = await call(`${ev}?page=0&per_page=-1`);
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.data.params), ['page', 'per_page']);
  });

  test('date filters: start_date/end_date widened to whole days unless strict, starts_*/ends_* drop the default window', async () => {
    assert.deepEqual(titles(await list(`start_date=${encodeURIComponent(day(-31, '00:00:00'))}&end_date=${encodeURIComponent(day(-29))}`)), [
      'Last month',
    ]);
    // Whole days: 20:00 on day 1 widens to 00:00, 01:00 on day 3 to 23:59:59.
    assert.deepEqual(titles(await list(`start_date=${encodeURIComponent(day(1, '20:00:00'))}&end_date=${encodeURIComponent(day(3, '01:00:00'))}`)), [
      'Rock concert',
      'Jazz evening',
    ]);
    assert.deepEqual(
      titles(await list(`strict_dates=true&start_date=${encodeURIComponent(day(1, '20:00:00'))}&end_date=${encodeURIComponent(day(4, '01:00:00'))}`)),
      ['Jazz evening'],
    );
    assert.deepEqual(titles(await list(`starts_after=${encodeURIComponent(day(1000))}`)), ['In three years']);
    assert.deepEqual(titles(await list(`starts_before=${encodeURIComponent(day(0))}`)), ['Last month']);
    // starts_*/ends_* move to the end of their day too, as TEC's inclusive dates: day 4 ends at 23:59:59, so
    // Members only (ending 21:00 on day 4) is not after it, and Child event (day 6) is before the end of day 6.
    assert.deepEqual(
      titles(await list(`ends_after=${encodeURIComponent(day(4, '00:00:00'))}&ends_before=${encodeURIComponent(day(6, '00:00:00'))}`)),
      ['Open data talk', 'Child event'],
    );
    assert.deepEqual(
      titles(
        await list(`strict_dates=true&ends_after=${encodeURIComponent(day(4, '00:00:00'))}&ends_before=${encodeURIComponent(day(6, '00:00:00'))}`),
      ),
      ['Members only', 'Open data talk'],
    );
    // A date alone, or a time of day, covers that whole day: the Rock concert (19:00 on day 1) starts before day 1.
    assert.deepEqual(titles(await list(`starts_before=${encodeURIComponent(day(1, '00:00:00'))}`)), ['Last month', 'Rock concert']);
    assert.deepEqual(titles(await list(`starts_before=${day(1).slice(0, 10)}`)), ['Last month', 'Rock concert']);
    assert.deepEqual(titles(await list(`starts_after=${encodeURIComponent(day(5, '09:00:00'))}`)), ['Child event', 'In three years']);
    const bad = await list('start_date=not-a-date');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.data.params, { start_date: 'Invalid parameter.' });
  });

  test('include ignores dates; search; featured; post_parent', async () => {
    assert.deepEqual(titles(await list(`include=${ids.past},${ids.far}`)), ['Last month', 'In three years']);
    assert.deepEqual(titles(await list('search=civic')), ['Open data talk']);
    // TEC's is_string: an empty search (or "0", empty to PHP) is an invalid parameter.
    for (const q of ['search=', 'search=0']) {
      const r = await list(q);
      assert.equal(r.status, 400, q);
      assert.deepEqual(r.body.data, { status: 400, params: { search: 'Invalid parameter.' }, details: [] });
    }
    assert.deepEqual(titles(await list('featured=true')), ['Rock concert']);
    assert.equal((await list('featured=false')).body.total, 4);
    assert.deepEqual(titles(await list(`post_parent=${ids.music1}`)), ['Child event']);
    assert.equal((await list('post_parent=987654')).status, 400);
  });

  test('categories and tags by slug or ID, OR within a list, unknown ones 400', async () => {
    const cats = (await call(`${s.root}evt/events/v1/categories?hide_empty=false&per_page=50`)).body.categories as { id: number; slug: string }[];
    const jazz = cats.find((c) => c.slug === 'jazz')!;
    assert.deepEqual(titles(await list('categories=jazz')), ['Jazz evening']);
    assert.deepEqual(titles(await list(`categories=${jazz.id},talks`)), ['Jazz evening', 'Open data talk']);
    assert.deepEqual(titles(await list('categories[]=music&tags=loud')), ['Rock concert']);
    // Child categories are part of their parent's archive (a hierarchical tax query).
    const music = cats.find((c) => c.slug === 'music')!;
    const bebop = await call(`${s.root}evt/events/v1/categories`, { method: 'POST', auth: s.admin, body: { name: 'Bebop', parent: music.id } });
    assert.equal(bebop.status, 201);
    const gig = await call(ev, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'Bebop night', start_date: day(7), end_date: day(7, '23:00:00'), categories: [bebop.body.id] },
    });
    assert.equal(gig.status, 201);
    const withChild = await list('categories=music');
    assert.deepEqual(titles(withChild), ['Rock concert', 'Jazz evening', 'Members only', 'Bebop night']);
    assert.equal(withChild.headers.get('x-tec-total'), '4');
    assert.deepEqual(titles(await list(`categories=${bebop.body.id}`)), ['Bebop night']);
    await call(`${ev}/${gig.body.id}`, { method: 'DELETE', auth: s.admin });
    const bad = await list('categories=no-such-category');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.data.params, { categories: 'Invalid parameter.' });
  });

  test('venue and organizer filters take IDs of that type only', async () => {
    const rock = (await call(`${ev}/${ids.music1}`)).body;
    assert.deepEqual(titles(await list(`venue=${rock.venue.id}`)), ['Rock concert', 'Open data talk']);
    assert.deepEqual(titles(await list(`organizer=${rock.organizer[0].id}`)), ['Rock concert']);
    assert.equal((await list(`venue=${ids.talk}`)).status, 400);
    assert.equal((await list(`organizer=${rock.venue.id}`)).status, 400);
  });

  test('geolocation: geoloc=true needs coordinates; lat/lng within 50 km, nearest first; half a pair is ignored', async () => {
    assert.deepEqual(titles(await list('geoloc=true')), ['Rock concert', 'Jazz evening', 'Open data talk']);
    assert.deepEqual(titles(await list('geoloc=false')), ['Members only', 'Child event']);
    assert.deepEqual(titles(await list('geoloc_lat=59.44&geoloc_lng=24.75')), ['Rock concert', 'Open data talk']);
    assert.deepEqual(titles(await list('geoloc_lat=58.38&geoloc_lng=26.73')), ['Jazz evening']);
    // One coordinate alone filters nothing (the original reads them as a pair only).
    const half = await list('geoloc_lat=58.38');
    assert.equal(half.status, 200);
    assert.deepEqual(titles(half), titles(await list('')));
    assert.equal((await list('geoloc_lat=91&geoloc_lng=0')).status, 400);
  });

  test('status: the public sees publish only and may not ask for more; editors and door staff see all but trash', async () => {
    assert.equal((await list('status=draft')).status, 400);
    assert.equal((await list('status=publish')).status, 200);
    const mine = await list('', s.admin);
    assert.ok(titles(mine).includes('Draft gig'));
    assert.ok(titles(mine).includes('Hidden gig'));
    assert.deepEqual(titles(await list('status=draft', await s.userAuth('door'))), ['Draft gig']);
    assert.equal((await list('status=bogus', s.admin)).status, 400);
    // `any` is no post status (TEC's filter_post_status_list): 400 for everyone.
    for (const auth of [undefined, s.admin]) {
      const any = await list('status=any', auth);
      assert.equal(any.status, 400);
      assert.deepEqual(any.body.data, { status: 400, params: { status: 'Invalid parameter.' }, details: [] });
    }
  });

  test('password-protected events stay listed with their fields blanked unless the password is sent', async () => {
    const r = await list(`include=${ids.secret}`);
    const e = r.body.events[0];
    assert.equal(e.title, 'Members only');
    assert.equal(e.description, '');
    assert.equal(e.cost, '');
    assert.deepEqual(e.categories, []);
    assert.equal(e.featured, null);
    assert.deepEqual(e.cost_details, { currency_symbol: '', currency_position: '', currency_code: '', values: [] });
    const unlocked = await list(`include=${ids.secret}&password=pw`);
    assert.equal(unlocked.body.events[0].description, '<p>Secret words</p>');
  });

  test('search leaves password-protected events out for callers who are not signed in (as WordPress)', async () => {
    // Neither its title nor its hidden text finds it anonymously: the search answers no question about the text.
    for (const q of ['search=Members', 'search=Secret']) {
      const anon = await list(q);
      assert.equal(anon.status, 200);
      assert.deepEqual(titles(anon), [], q);
      assert.equal(anon.headers.get('x-tec-total'), '0');
    }
    assert.deepEqual(titles(await list('search=Members', s.admin)), ['Members only']);
    assert.deepEqual(titles(await list('search=Members', await s.userAuth('door'))), ['Members only']);
  });

  test('rest_url keeps the query, next page link keeps the filters', async () => {
    const r = await call(`${ev}?per_page=1&categories=music&featured=false`);
    assert.equal(r.body.rest_url, `${s.root}evt/events/v1/events/?per_page=1&categories=music&featured=false`);
    assert.equal(r.body.next_rest_url, `${s.root}evt/events/v1/events/?page=2&per_page=1&categories=music&featured=false`);
  });
});
