import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { addNonce, makeEvent, makeTicket, tix } from './fixtures.ts';

let s: TestServer;
let event: number;

const count = async () =>
  ((await s.db.prepare("SELECT COUNT(*) AS n FROM posts WHERE type = 'ticket' AND status <> 'trash'").get()) as { n: number }).n;
const forbidden = { code: 'forbidden', message: 'Invalid nonce', data: { status: 403 } };

async function editNonces(id: number, auth = s.admin) {
  const r = await call(`${tix(s)}/tickets/${id}`, { auth });
  return r.body.nonces as { edit_ticket_nonce: string; remove_ticket_nonce: string };
}

beforeAll(async () => {
  s = await startTestServer();
  event = await makeEvent(s);
});
afterAll(() => s.close());

describe('POST /tickets (create)', () => {
  test('202 with the ticket; price, currency, capacity and sale window stored', async () => {
    const r = await makeTicket(s, event, {
      provider: 'tc',
      name: 'Gold',
      description: 'Best seats',
      price: '1,234.5',
      currency: 'eur',
      'ticket[capacity]': '25',
      sku: 'GOLD-1',
      start_date: '2030-05-01',
      start_time: '9:30',
      end_date: '2030-06-01',
    });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.title, 'Gold');
    assert.equal(r.body.provider, 'tc');
    assert.equal(r.body.cost, '€1,234.50');
    assert.deepEqual(r.body.cost_details.values, ['1234.50']);
    assert.equal(r.body.capacity, 25);
    assert.equal(r.body.available_from, '2030-05-01 09:30:00');
    assert.equal(r.body.available_until, '2030-06-01 23:59:59');
    assert.ok(r.body.nonces.edit_ticket_nonce);
    // As the original, the 202 answer is the plain ticket: the editor fields come with a single read.
    for (const k of ['capacity_type', 'sku', 'available_from_start_time', 'available_from_end_time', 'totals', 'fees'])
      assert.equal(k in r.body, false, k);
    const read = await call(`${tix(s)}/tickets/${r.body.id}`, { auth: s.admin });
    assert.equal(read.body.sku, 'GOLD-1');
    assert.equal(read.body.available_from_start_time, '09:30:00');
  });

  test('JSON bodies work too; RSVP tickets are free whatever the price', async () => {
    const nonce = await addNonce(s, event);
    const r = await call(`${tix(s)}/tickets`, {
      method: 'POST',
      auth: s.admin,
      body: { post_id: event, add_ticket_nonce: nonce, provider: 'rsvp', name: 'Free', price: '99', ticket: { capacity: 3 } },
    });
    assert.equal(r.status, 202);
    assert.equal(r.body.cost, '$0.00');
    assert.equal(r.body.capacity, 3);
  });

  test("missing, wrong and another user's nonce: 403 forbidden, nothing created", async () => {
    const before = await count();
    const missing = await call(`${tix(s)}/tickets`, { method: 'POST', auth: s.admin, form: { post_id: String(event), provider: 'rsvp', name: 'X' } });
    assert.equal(missing.status, 403);
    assert.deepEqual(missing.body, forbidden);
    const wrong = await call(`${tix(s)}/tickets`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), add_ticket_nonce: '0123456789', provider: 'rsvp', name: 'X' },
    });
    assert.deepEqual(wrong.body, forbidden);
    const organizer = await s.userAuth('organizer');
    // The organizer's own event (an organizer adds tickets only to events it authored, issue 10 item 8).
    const ownEvent = await makeEvent(s, { title: 'Organizer owned', status: 'publish' }, organizer);
    const theirs = await addNonce(s, ownEvent, organizer);
    const stolen = await call(`${tix(s)}/tickets`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(ownEvent), add_ticket_nonce: theirs, provider: 'rsvp', name: 'X' },
    });
    assert.deepEqual(stolen.body, forbidden);
    const anon = await call(`${tix(s)}/tickets`, {
      method: 'POST',
      form: { post_id: String(ownEvent), add_ticket_nonce: theirs, provider: 'rsvp', name: 'X' },
    });
    assert.deepEqual(anon.body, forbidden);
    const otherOwn = await makeEvent(s, { title: 'Other' }, organizer);
    const otherPost = await call(`${tix(s)}/tickets`, {
      method: 'POST',
      auth: organizer,
      form: { post_id: String(otherOwn), add_ticket_nonce: theirs, provider: 'rsvp', name: 'X' },
    });
    assert.deepEqual(otherPost.body, forbidden);
    // Another author's event: rest_forbidden, whatever the nonce.
    const notTheirs = await call(`${tix(s)}/tickets`, {
      method: 'POST',
      auth: organizer,
      form: { post_id: String(event), add_ticket_nonce: await addNonce(s, event, organizer), provider: 'rsvp', name: 'X' },
    });
    assert.equal(notTheirs.status, 403);
    assert.equal(notTheirs.body.code, 'rest_forbidden');
    const ok = await call(`${tix(s)}/tickets`, {
      method: 'POST',
      auth: organizer,
      form: { post_id: String(ownEvent), add_ticket_nonce: theirs, provider: 'rsvp', name: 'X' },
    });
    assert.equal(ok.status, 202);
    assert.equal(await count(), before + 1);
  });

  test('a door user has no edit rights and sees no nonce', async () => {
    const doorUser = await s.userAuth('door');
    const r = await call(`${s.root}evt/events/v1/events/${event}`, { auth: doorUser });
    assert.equal(r.status, 200);
    assert.equal('nonces' in r.body, false);
    assert.ok('attendance' in r.body);
    const anon = await call(`${s.root}evt/events/v1/events/${event}`);
    assert.equal('nonces' in anon.body, false);
    assert.equal('attendance' in anon.body, false);
  });

  test('nonces expire after 24 hours', async () => {
    const nonce = await addNonce(s, event);
    const now = Date.now();
    try {
      // Ticks are 12 hours and the previous tick still verifies: 11 hours later is always valid, 25 never.
      s.app.state.services.clock = () => now + 11 * 3600_000;
      const stillOk = await call(`${tix(s)}/tickets`, {
        method: 'POST',
        auth: s.admin,
        form: { post_id: String(event), add_ticket_nonce: nonce, provider: 'rsvp', name: 'Late' },
      });
      assert.equal(stillOk.status, 202);
      s.app.state.services.clock = () => now + 25 * 3600_000;
      const expired = await call(`${tix(s)}/tickets`, {
        method: 'POST',
        auth: s.admin,
        form: { post_id: String(event), add_ticket_nonce: nonce, provider: 'rsvp', name: 'Too late' },
      });
      assert.deepEqual(expired.body, forbidden);
    } finally {
      delete s.app.state.services.clock;
    }
  });

  test('bad input: unknown provider, bad price, bad capacity, bad currency, bad dates, empty name; nothing created', async () => {
    const before = await count();
    const cases: [Record<string, string>, number, string][] = [
      [{ provider: 'woo' }, 400, 'bad_request'],
      [{ provider: 'tc', price: '-1' }, 400, 'tec-tickets-rest-invalid_price'],
      [{ provider: 'tc', price: 'ten' }, 400, 'tec-tickets-rest-invalid_price'],
      [{ provider: 'tc', price: '1.001' }, 400, 'tec-tickets-rest-invalid_price'],
      [{ 'ticket[capacity]': '-5' }, 400, 'rest_invalid_param'],
      [{ currency: 'EURO' }, 400, 'rest_invalid_param'],
      [{ start_date: '2030-02-30' }, 400, 'rest_invalid_param'],
      [{ start_date: '2030-02-10', end_date: '2030-02-01' }, 400, 'rest_invalid_param'],
      [{ name: '' }, 406, 'not_acceptable'],
    ];
    for (const [fields, status, code] of cases) {
      const r = await makeTicket(s, event, fields);
      assert.equal(r.status, status, `${JSON.stringify(fields)} -> ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code);
    }
    assert.equal(await count(), before);
  });
});

describe('POST /tickets/{id} (update) and DELETE /tickets/{id}', () => {
  test('update changes only what was sent and answers 202', async () => {
    const made = await makeTicket(s, event, { provider: 'tc', name: 'Silver', price: '20', 'ticket[capacity]': '10', sku: 'S1' });
    const id = made.body.id;
    const n = await editNonces(id);
    const r = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.edit_ticket_nonce, price: '25.5' },
    });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.cost, '$25.50');
    assert.equal(r.body.title, 'Silver');
    assert.equal(r.body.capacity, 10);
    assert.equal('sku' in r.body, false);
    assert.equal((await call(`${tix(s)}/tickets/${id}`, { auth: s.admin })).body.sku, 'S1');
    const et = await call(`${tix(s)}/tickets/${id}`, {
      method: 'PATCH',
      auth: s.admin,
      body: { post_id: event, edit_ticket_nonce: n.edit_ticket_nonce, name: 'Hõbe', translation_language: 'et' },
    });
    assert.equal(et.status, 202);
    assert.equal(et.body.title, 'Hõbe');
    assert.equal((await call(`${tix(s)}/tickets/${id}`)).body.title, 'Silver');
    assert.equal((await call(`${s.base}/et/wp-json/evt/tickets/v1/tickets/${id}`)).body.title, 'Hõbe');
  });

  test('update of the sale start time keeps its date; clearing the date opens the window', async () => {
    const id = (await makeTicket(s, event, { name: 'Windowed', start_date: '2030-03-01', start_time: '10:00', end_date: '2030-04-01' })).body.id;
    const n = await editNonces(id);
    const r = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.edit_ticket_nonce, start_time: '12:15' },
    });
    assert.equal(r.status, 202);
    assert.equal(r.body.available_from, '2030-03-01 12:15:00');
    assert.equal(r.body.available_until, '2030-04-01 23:59:59');
    const open = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.edit_ticket_nonce, start_date: '' },
    });
    assert.equal(open.body.available_from, '');
    assert.equal(open.body.available_until, '2030-04-01 23:59:59');
  });

  test('update errors: missing nonce 400, wrong nonce or post 403, unknown ticket 403 (the nonce first) or 404, bad price 400; nothing changed', async () => {
    const id = (await makeTicket(s, event, { provider: 'tc', name: 'Bronze', price: '5' })).body.id;
    const n = await editNonces(id);
    const missing = await call(`${tix(s)}/tickets/${id}`, { method: 'POST', auth: s.admin, form: { post_id: String(event), price: '1' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    const wrong = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.remove_ticket_nonce, price: '1' },
    });
    assert.deepEqual(wrong.body, forbidden);
    const other = await makeEvent(s, { title: 'Elsewhere' });
    const wrongPost = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(other), edit_ticket_nonce: n.edit_ticket_nonce, price: '1' },
    });
    assert.deepEqual(wrongPost.body, forbidden);
    const badPrice = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.edit_ticket_nonce, price: 'abc', name: 'Renamed' },
    });
    assert.equal(badPrice.body.code, 'tec-tickets-rest-invalid_price');
    // As the original, the nonce is checked first: one made for another ticket does not verify for 99999.
    const unknown = await call(`${tix(s)}/tickets/99999`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.edit_ticket_nonce },
    });
    assert.equal(unknown.status, 403);
    assert.deepEqual(unknown.body, forbidden);
    // A ticket gone since its nonce was handed out: 404.
    const gone = (await makeTicket(s, event, { provider: 'tc', name: 'Gone', price: '5' })).body.id;
    const gn = await editNonces(gone);
    assert.equal(
      (
        await call(`${tix(s)}/tickets/${gone}`, {
          method: 'DELETE',
          auth: s.admin,
          form: { post_id: String(event), remove_ticket_nonce: gn.remove_ticket_nonce },
        })
      ).status,
      202,
    );
    const stale = await call(`${tix(s)}/tickets/${gone}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: gn.edit_ticket_nonce, price: '1' },
    });
    assert.equal(stale.status, 404);
    const after = await call(`${tix(s)}/tickets/${id}`);
    assert.equal(after.body.cost, '$5.00');
    assert.equal(after.body.title, 'Bronze');
  });

  test('capacity cannot drop below places taken', async () => {
    const id = (await makeTicket(s, event, { name: 'Small', 'ticket[capacity]': '5' })).body.id;
    const cart = await call(`${tix(s)}/cart`, {
      method: 'POST',
      auth: s.admin,
      body: { provider: 'rsvp', tickets: [{ ticket_id: id, quantity: 3 }] },
    });
    assert.equal(cart.status, 200);
    assert.equal(
      (await call(`${tix(s)}/cart/checkout`, { method: 'POST', auth: s.admin, body: { purchaser_name: 'A', purchaser_email: 'a@example.test' } }))
        .status,
      201,
    );
    const n = await editNonces(id);
    const low = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.edit_ticket_nonce, 'ticket[capacity]': '2' },
    });
    assert.equal(low.status, 400);
    const fine = await call(`${tix(s)}/tickets/${id}`, {
      method: 'POST',
      auth: s.admin,
      form: { post_id: String(event), edit_ticket_nonce: n.edit_ticket_nonce, 'ticket[capacity]': '3' },
    });
    assert.equal(fine.status, 202);
    assert.deepEqual(fine.body.capacity_details, { available_percentage: 0, available: 0, max: 3, sold: 3, pending: 0, global_stock_mode: 'own' });
  });

  test('delete: 202 true, then the ticket is gone; wrong nonce 403; missing nonce 400', async () => {
    const id = (await makeTicket(s, event, { name: 'Doomed' })).body.id;
    const n = await editNonces(id);
    const missing = await call(`${tix(s)}/tickets/${id}`, { method: 'DELETE', auth: s.admin, form: { post_id: String(event) } });
    assert.equal(missing.status, 400);
    const wrong = await call(`${tix(s)}/tickets/${id}`, {
      method: 'DELETE',
      auth: s.admin,
      form: { post_id: String(event), remove_ticket_nonce: n.edit_ticket_nonce },
    });
    assert.deepEqual(wrong.body, forbidden);
    // An organizer who did not author the event: rest_forbidden (issue 10 item 8; it was the nonce's 403 before).
    const stranger = await call(`${tix(s)}/tickets/${id}`, {
      method: 'DELETE',
      auth: await s.userAuth('organizer'),
      form: { post_id: String(event), remove_ticket_nonce: n.remove_ticket_nonce },
    });
    assert.equal(stranger.status, 403);
    assert.equal(stranger.body.code, 'rest_forbidden');
    const r = await call(`${tix(s)}/tickets/${id}`, {
      method: 'DELETE',
      auth: s.admin,
      form: { post_id: String(event), remove_ticket_nonce: n.remove_ticket_nonce },
    });
    assert.equal(r.status, 202);
    assert.equal(r.body, true);
    assert.equal((await call(`${tix(s)}/tickets/${id}`)).status, 404);
    const again = await call(`${tix(s)}/tickets/${id}`, {
      method: 'DELETE',
      auth: s.admin,
      form: { post_id: String(event), remove_ticket_nonce: n.remove_ticket_nonce },
    });
    assert.equal(again.status, 404);
  });
});
