import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertTicket } from '../../helpers/tickets-fixture.ts';

/** Event, venue and organizer presentation as the original (TEC 6.17.2 + ET 5.28.5.1) answers it (issue 11). */
let s: TestServer;
let ev: string;
beforeAll(async () => {
  s = await startTestServer();
  ev = `${s.root}evt/events/v1/events`;
});
afterAll(() => s.close());

const base = { start_date: '2031-03-10 19:00:00', end_date: '2031-03-10 22:00:00' };
const create = (body: Record<string, unknown>) => call(ev, { method: 'POST', auth: s.admin, body });

describe('cost', () => {
  test('a cost of "0" is no cost; a cost without a number keeps its text, lower-cased as the value', async () => {
    const zero = await create({ ...base, title: 'Zero', cost: '0' });
    assert.equal(zero.body.cost, '');
    assert.deepEqual(zero.body.cost_details.values, []);
    const free = await create({ ...base, title: 'Walk', cost: 'Free' });
    assert.equal(free.body.cost, 'Free');
    assert.deepEqual(free.body.cost_details, { currency_symbol: '', currency_code: '', currency_position: '', values: ['free'] });
  });

  test('ticket prices join the cost (two decimals); a free ticket makes a zero cost "Free"', async () => {
    const paid = await create({ ...base, title: 'Paid', cost: '25' });
    await insertTicket(s.db, paid.body.id, { priceMinor: 2500 });
    await insertTicket(s.db, paid.body.id, { priceMinor: 6000 });
    const r = await call(`${ev}/${paid.body.id}`);
    assert.equal(r.body.cost, '&#x24;25.00 – &#x24;60.00');
    assert.deepEqual(r.body.cost_details.values, ['25', '60']);
    // One offer per ticket in the JSON-LD, a list.
    assert.deepEqual(
      r.body.json_ld.offers.map((o: { price: string }) => o.price),
      ['25', '60'],
    );
    assert.deepEqual(Object.keys(r.body.json_ld.offers[0]), [
      '@type',
      'url',
      'price',
      'category',
      'availability',
      'priceCurrency',
      'validFrom',
      'validThrough',
    ]);
    const rsvp = await create({ ...base, title: 'Talk', cost: '0' });
    await insertTicket(s.db, rsvp.body.id, { provider: 'rsvp' });
    const t = await call(`${ev}/${rsvp.body.id}`);
    assert.equal(t.body.cost, 'Free');
    assert.deepEqual(t.body.cost_details.values, ['0']);
  });
});

describe('linked posts and JSON-LD', () => {
  test('venues and organizers have no derived excerpt; their JSON-LD has no @context, an escaped description', async () => {
    const e = await create({
      ...base,
      title: 'Linked',
      description: 'About <b>it</b>',
      venue: { venue: 'Town Hall', description: 'The big hall', city: 'Tartu' },
      organizer: [{ organizer: 'Ada', description: 'Runs things', email: 'ada@example.com', website: 'https://ada.example' }],
    });
    assert.equal('excerpt' in e.body.venue, false);
    assert.equal('excerpt' in e.body.organizer[0], false);
    assert.equal(e.body.excerpt, '');
    const r = await call(`${ev}/${e.body.id}`);
    const ld = r.body.json_ld;
    assert.deepEqual(Object.keys(ld), [
      '@context',
      '@type',
      'name',
      'description',
      'url',
      'eventAttendanceMode',
      'eventStatus',
      'startDate',
      'endDate',
      'location',
      'organizer',
      'performer',
    ]);
    assert.equal(ld.description, '&lt;p&gt;About it&lt;/p&gt;\n');
    assert.equal(ld.location['@context'], undefined);
    assert.deepEqual(ld.location.address, { '@type': 'PostalAddress', addressLocality: 'Tartu' });
    assert.equal(ld.location.url, '');
    assert.equal(r.body.venue.json_ld['@context'], undefined);
    assert.equal(ld.organizer.url, 'https://ada.example');
    // The e-mail as HTML entities (antispambot), which decode to the address.
    assert.notEqual(ld.organizer.email, 'ada@example.com');
    assert.equal(
      ld.organizer.email.replace(/&#(\d+);/g, (_: string, n: string) => String.fromCharCode(Number(n))),
      'ada@example.com',
    );
    const venue = await call(`${s.root}evt/events/v1/venues/${e.body.venue.id}`);
    assert.equal(venue.body.json_ld['@context'], undefined);
    assert.equal(venue.body.show_map, true);
  });

  test('a protected event read with its password has no JSON-LD', async () => {
    const e = await create({ ...base, title: 'Hidden', password: 'pw' });
    const r = await call(`${ev}/${e.body.id}?password=pw`);
    assert.equal(r.status, 200);
    assert.equal(r.body.json_ld, undefined);
  });
});

describe('password blanking in the archive', () => {
  test('an administrator too sees a protected event blanked, attendance counts as the string "null"', async () => {
    const e = await create({
      start_date: '2031-05-01 10:00:00',
      end_date: '2031-05-01 11:00:00',
      title: 'Admins too',
      password: 'pw',
      description: 'Words',
      cost: '5',
    });
    const r = await call(`${ev}?per_page=50&start_date=2031-05-01&end_date=2031-05-02`, { auth: s.admin });
    const got = r.body.events.find((x: { id: number }) => x.id === e.body.id);
    assert.equal(got.description, '');
    assert.equal(got.cost, '');
    assert.equal(got.show_map, null);
    assert.deepEqual(got.attendance, { total_attendees: 'null', checked_in: 'null', not_checked_in: 'null' });
    assert.equal(got.ticketed, null);
    assert.deepEqual(Object.keys(got).slice(-2), ['attendance', 'ticketed']);
    // The kept presentation is not changed by the blanking: the password still unlocks it.
    const open = await call(`${ev}?per_page=50&start_date=2031-05-01&end_date=2031-05-02&password=pw`, { auth: s.admin });
    const unlocked = open.body.events.find((x: { id: number }) => x.id === e.body.id);
    assert.equal(unlocked.description, '<p>Words</p>');
    assert.deepEqual(unlocked.attendance, { total_attendees: 0, checked_in: 0, not_checked_in: 0 });
  });
});
