import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { Ticket } from '../../../shared/models/tickets.ts';
import { buy, makeEvent, ticketId, tix } from './fixtures.ts';

let s: TestServer;
let event: number;
let rsvp: number;
let paid: number;

const BASE_KEYS = [
  'description',
  'capacity',
  'on_sale',
  'iac',
  'price_suffix',
  'post_id',
  'provider',
  'id',
  'type',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'title',
  'image',
  'available_from',
  'available_from_details',
  'available_until',
  'available_until_details',
  'capacity_details',
  'is_available',
  'cost',
  'cost_details',
  'sale_price_data',
  'supports_attendee_information',
  'attendees',
];

beforeAll(async () => {
  s = await startTestServer();
  event = await makeEvent(s, { title: 'Gig' });
  rsvp = await ticketId(s, event, {
    name: 'Free entry',
    'ticket[capacity]': '10',
    start_date: '2020-01-02',
    start_time: '08:00',
    end_date: '2050-03-01',
    end_time: '20:00:00',
  });
  paid = await ticketId(s, event, { provider: 'tc', name: 'VIP', price: '1', description: 'Front row' });
  const r = await buy(s, [{ ticket_id: rsvp, quantity: 3 }]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
});
afterAll(() => s.close());

describe('GET /tickets/{id}', () => {
  test('anonymous: the original key order, counts derived from sales, no manager or editor keys', async () => {
    const r = await call(`${tix(s)}/tickets/${rsvp}`);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), [...BASE_KEYS, 'rest_url']);
    Ticket.parse(r.body);
    assert.equal(r.body.id, rsvp);
    assert.equal(r.body.post_id, event);
    assert.equal(r.body.provider, 'rsvp');
    assert.equal(r.body.author, '1');
    assert.equal(r.body.capacity, 10);
    assert.deepEqual(r.body.capacity_details, { available_percentage: 70, available: 7 });
    assert.equal(r.body.is_available, true);
    assert.equal(r.body.available_from, '2020-01-02 08:00:00');
    assert.deepEqual(r.body.available_from_details, { year: '2020', month: '01', day: '02', hour: '08', minutes: '00', seconds: '00' });
    assert.equal(r.body.available_until, '2050-03-01 20:00:00');
    assert.deepEqual(r.body.attendees, []);
    assert.equal(r.body.rest_url, `${s.root}evt/tickets/v1/tickets/${rsvp}`);
    assert.match(r.body.global_id, new RegExp(`\\?type=rsvp&id=${rsvp}$`));
    assert.equal('nonces' in r.body, false);
  });

  test('a paid ticket formats its cost; an unset window reads as the epoch', async () => {
    const r = await call(`${tix(s)}/tickets/${paid}`);
    assert.equal(r.body.cost, '$1.00');
    assert.deepEqual(r.body.cost_details, {
      currency_symbol: '$',
      currency_position: 'prefix',
      values: ['1'],
      suffix: null,
      currency_decimal_separator: '.',
      currency_decimal_numbers: 2,
      currency_thousand_separator: ',',
    });
    assert.equal(r.body.description, 'Front row');
    assert.equal(r.body.capacity, -1);
    assert.deepEqual(r.body.capacity_details, { available_percentage: 100, available: -1 });
    assert.equal(r.body.available_from, '');
    assert.equal(r.body.available_from_details.year, '1970');
  });

  test('door (manage access): capacity internals, attendees and check-in stats, but no nonces', async () => {
    const door = await s.apiKey('Door');
    const r = await call(`${tix(s)}/tickets/${rsvp}`, { headers: { authorization: `Bearer ${door.key}` } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.capacity_details, { available_percentage: 70, available: 7, max: 10, sold: 3, pending: 0, global_stock_mode: 'own' });
    assert.equal(r.body.attendees.length, 3);
    assert.equal(r.body.attendees[0].ticket_id, rsvp);
    assert.deepEqual(r.body.rsvp, { rsvp_going: 3, rsvp_not_going: 0 });
    assert.deepEqual(r.body.checkin, { checked_in: 0, unchecked_in: 3, checked_in_percentage: 0, unchecked_in_percentage: 100 });
    assert.deepEqual(Object.keys(r.body).slice(-4), ['attendees', 'rsvp', 'checkin', 'rest_url']);
    assert.equal('nonces' in r.body, false);
    assert.equal('sku' in r.body, false);
  });

  test('_fields without attendees leaves the attendee list out', async () => {
    const door = await s.apiKey('Door 2');
    const r = await call(`${tix(s)}/tickets/${rsvp}?_fields=id,capacity_details`, { headers: { authorization: `Bearer ${door.key}` } });
    assert.deepEqual(Object.keys(r.body), ['id', 'capacity_details']);
  });

  test('editor: editor fields, fees and nonces after rest_url; RSVP: on_sale null, sale_price_data [], sku null', async () => {
    const r = await call(`${tix(s)}/tickets/${rsvp}`, { auth: await s.userAuth('organizer') });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).slice(-8), [
      'rest_url',
      'capacity_type',
      'sku',
      'available_from_start_time',
      'available_from_end_time',
      'totals',
      'fees',
      'nonces',
    ]);
    assert.deepEqual(r.body.fees, { available_fees: [], automatic_fees: [], selected_fees: [] });
    assert.equal(r.body.on_sale, null);
    assert.deepEqual(r.body.sale_price_data, []);
    assert.equal(r.body.sku, null);
    assert.equal(r.body.capacity_type, 'own');
    assert.equal(r.body.available_from_start_time, '08:00:00');
    assert.equal(r.body.available_from_end_time, '20:00:00');
    assert.deepEqual(r.body.totals, { stock: 7, sold: 3, pending: 0 });
    assert.match(r.body.nonces.edit_ticket_nonce, /^[0-9a-f]{10}$/);
    assert.match(r.body.nonces.remove_ticket_nonce, /^[0-9a-f]{10}$/);
    Ticket.parse(r.body);
  });

  test('errors: 404 unknown, 401 ticket-not-accessible for a post that is no ticket, 400 for an attendee, 400 bad id', async () => {
    const none = await call(`${tix(s)}/tickets/99999`);
    assert.equal(none.status, 404);
    assert.deepEqual(none.body, { code: 'ticket-not-found', message: 'ticket-not-found', data: { status: 404 } });
    // As the original: an event's ID is 401 ticket-not-accessible, for everyone.
    for (const auth of [undefined, s.admin]) {
      const notTicket = await call(`${tix(s)}/tickets/${event}`, auth ? { auth } : {});
      assert.deepEqual(notTicket.body, { code: 'ticket-not-accessible', message: 'ticket-not-accessible', data: { status: 401 } });
    }
    // An attendee's ID: the original's code, 400 rather than its 500.
    const attendee = ((await s.db.prepare('SELECT post_id FROM attendees LIMIT 1').get()) as { post_id: number }).post_id;
    const notTicket = await call(`${tix(s)}/tickets/${attendee}`);
    assert.equal(notTicket.status, 400);
    assert.equal(notTicket.body.code, 'ticket-object-not-found');
    const bad = await call(`${tix(s)}/tickets/0`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'rest_invalid_param');
  });

  test('a ticket of an unpublished event: 401 ticket-not-accessible for the public, readable for managers', async () => {
    const draft = await makeEvent(s, { title: 'Secret', status: 'draft' });
    const t = await ticketId(s, draft, { name: 'Hidden' });
    const anon = await call(`${tix(s)}/tickets/${t}`);
    assert.equal(anon.status, 401);
    assert.deepEqual(anon.body, { code: 'ticket-not-accessible', message: 'ticket-not-accessible', data: { status: 401 } });
    const door = await s.apiKey('Door 3');
    const mgr = await call(`${tix(s)}/tickets/${t}`, { headers: { authorization: `Bearer ${door.key}` } });
    assert.equal(mgr.status, 200);
    assert.equal(mgr.body.title, 'Hidden');
  });

  test('a ticket of a password-protected event is masked for the public', async () => {
    const locked = await makeEvent(s, { title: 'Locked', password: 'pw' });
    const t = await ticketId(s, locked, { name: 'Masked', provider: 'tc', price: '12.50', 'ticket[capacity]': '4' });
    const r = await call(`${tix(s)}/tickets/${t}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.title, 'No Access');
    assert.equal(r.body.id, 0);
    assert.equal(r.body.capacity, 0);
    assert.equal(r.body.is_available, null);
    assert.equal(r.body.image, null);
    assert.equal(r.body.cost, 'No Access');
    assert.deepEqual(r.body.attendees, []);
    assert.deepEqual(r.body.cost_details.values, [0]);
    const mgr = await call(`${tix(s)}/tickets/${t}`, { auth: s.admin });
    assert.equal(mgr.body.title, 'Masked');
    assert.equal(mgr.body.cost, '$12.50');
  });
});
