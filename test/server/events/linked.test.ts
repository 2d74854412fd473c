import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { Organizer, Venue } from '../../../shared/models/events.ts';

let s: TestServer;
let root: string;
beforeAll(async () => {
  s = await startTestServer();
  root = `${s.root}evt/events/v1`;
});
afterAll(() => s.close());

describe('venues', () => {
  test('create 201 drops empty values but keeps show_map; read adds json_ld; by slug', async () => {
    const c = await call(`${root}/venues`, {
      method: 'POST',
      auth: s.admin,
      body: {
        venue: 'Kultuurikatel',
        address: 'Põhja pst 27a',
        city: 'Tallinn',
        country: 'Estonia',
        zip: '10415',
        website: 'https://katel.example',
        geo_lat: 59.4416,
        geo_lng: 24.7535,
      },
    });
    assert.equal(c.status, 201);
    Venue.parse(c.body);
    assert.deepEqual(Object.keys(c.body), [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'slug',
      'address',
      'city',
      'country',
      'zip',
      'website',
      'geo_lat',
      'geo_lng',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
    assert.equal(c.body.url, `${s.base}/venue/kultuurikatel/`);
    const r = await call(`${root}/venues/${c.body.id}`);
    assert.equal(r.body.json_ld['@type'], 'Place');
    assert.equal(r.body.json_ld.geo.latitude, 59.4416);
    assert.equal((await call(`${root}/venues/by-slug/kultuurikatel`)).body.id, c.body.id);
  });

  test('IDs that are not venues are 400 rest_invalid_param; missing name 400; anonymous 401; door 403', async () => {
    const e = await call(`${root}/events`, { method: 'POST', auth: s.admin, body: { title: 'E', start_date: '2031-01-01', end_date: '2031-01-01' } });
    const r = await call(`${root}/venues/${e.body.id}`);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'rest_invalid_param');
    assert.equal((await call(`${root}/venues/987654`)).status, 400);
    assert.equal(
      (await call(`${root}/venues`, { method: 'POST', auth: s.admin, body: { city: 'Nowhere' } })).body.code,
      'rest_missing_callback_param',
    );
    assert.equal((await call(`${root}/venues`, { method: 'POST', body: { venue: 'X' } })).status, 401);
    assert.equal((await call(`${root}/venues`, { method: 'POST', auth: await s.userAuth('door'), body: { venue: 'X' } })).status, 403);
    assert.equal((await call(`${root}/venues`, { method: 'POST', auth: s.admin, body: { venue: 'X', website: 'not a url' } })).status, 400);
  });

  test('update, trash (410 the second time, then not accessible)', async () => {
    const c = await call(`${root}/venues`, { method: 'POST', auth: s.admin, body: { venue: 'Old name' } });
    const u = await call(`${root}/venues/${c.body.id}`, { method: 'PATCH', auth: s.admin, body: { venue: 'New name', phone: '+372 5555 5555' } });
    assert.equal(u.status, 200);
    assert.equal(u.body.venue, 'New name');
    assert.equal(u.body.phone, '+372 5555 5555');
    const d = await call(`${root}/venues/${c.body.id}`, { method: 'DELETE', auth: s.admin });
    assert.equal(d.body.status, 'trash');
    const again = await call(`${root}/venues/${c.body.id}`, { method: 'DELETE', auth: s.admin });
    assert.deepEqual(again.body, { code: 'venue-is-in-trash', message: 'The venue is already trashed', data: { status: 410 } });
    assert.equal((await call(`${root}/venues/${c.body.id}`)).body.code, 'venue-not-accessible');
  });

  test('archive: newest first, search in address, event, has_events, only_with_upcoming, paging 404', async () => {
    const a = await call(`${root}/venues`, { method: 'POST', auth: s.admin, body: { venue: 'Aardvark Arena', city: 'Pärnu' } });
    await call(`${root}/events`, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'At Aardvark', start_date: '2035-01-01 10:00', end_date: '2035-01-01 12:00', venue: a.body.id },
    });
    const past = await call(`${root}/venues`, { method: 'POST', auth: s.admin, body: { venue: 'Bygone Barn' } });
    await call(`${root}/events`, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'Old', start_date: '2001-01-01 10:00', end_date: '2001-01-01 12:00', venue: past.body.id },
    });
    // Newest first (post date, then ID), as WordPress's post query orders the original's archive.
    const all = await call(`${root}/venues?per_page=50`);
    assert.equal(all.body.venues[0].venue, 'Bygone Barn');
    assert.equal(all.body.venues[1].venue, 'Aardvark Arena');
    assert.equal(all.headers.get('x-tec-total'), String(all.body.total));
    assert.deepEqual(
      (await call(`${root}/venues?search=P%C3%A4rnu`)).body.venues.map((v: { venue: string }) => v.venue),
      ['Aardvark Arena'],
    );
    const withEvents = (await call(`${root}/venues?has_events=true&per_page=50`)).body.venues.map((v: { venue: string }) => v.venue);
    assert.ok(withEvents.includes('Aardvark Arena') && withEvents.includes('Bygone Barn'));
    assert.deepEqual(
      (await call(`${root}/venues?only_with_upcoming=1&per_page=50`)).body.venues.map((v: { venue: string }) => v.venue),
      ['Aardvark Arena'],
    );
    const page = await call(`${root}/venues?per_page=1`);
    assert.equal(page.body.next_rest_url, `${root}/venues/?page=2&per_page=1`);
    assert.equal((await call(`${root}/venues?page=99`)).body.code, 'venue-archive-page-not-found');
    assert.equal((await call(`${root}/venues?event=987654`)).status, 400);
  });
});

describe('organizers', () => {
  test('create, read, archive, by-slug update and delete', async () => {
    const c = await call(`${root}/organizers`, {
      method: 'POST',
      auth: s.admin,
      body: { organizer: 'Eesti Kontsert', email: 'info@ek.example', phone: '+372 614 7700' },
    });
    assert.equal(c.status, 201);
    Organizer.parse(c.body);
    assert.deepEqual(Object.keys(c.body), [
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'slug',
      'phone',
      'email',
      'global_id',
      'global_id_lineage',
    ]);
    assert.equal((await call(`${root}/organizers/${c.body.id}`)).body.json_ld['@type'], 'Person');
    const u = await call(`${root}/organizers/by-slug/eesti-kontsert`, { method: 'POST', auth: s.admin, body: { website: 'https://ek.example' } });
    assert.equal(u.body.website, 'https://ek.example');
    const list = await call(`${root}/organizers`);
    assert.equal(list.body.organizers[0].organizer, 'Eesti Kontsert');
    assert.equal((await call(`${root}/organizers/by-slug/eesti-kontsert`, { method: 'DELETE', auth: s.admin })).body.status, 'trash');
    assert.equal((await call(`${root}/organizers/by-slug/eesti-kontsert`)).status, 400);
  });
});
