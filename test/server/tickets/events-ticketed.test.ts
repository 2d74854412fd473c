import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { buy, makeEvent, ticketId, tix } from './fixtures.ts';

let s: TestServer;
let both: number;
let rsvpOnly: number;
let none: number;
let locked: number;
let ev: string;

const ids = (r: { body: { events: { id: number }[] } }) => r.body.events.map((e) => e.id);

beforeAll(async () => {
  s = await startTestServer();
  ev = `${s.root}evt/events/v1/events`;
  both = await makeEvent(s, { title: 'Both' });
  rsvpOnly = await makeEvent(s, { title: 'RSVP only' });
  none = await makeEvent(s, { title: 'No tickets' });
  locked = await makeEvent(s, { title: 'Locked', password: 'pw' });
  const paid = await ticketId(s, both, { name: 'Paid', provider: 'tc', price: '5' });
  const free = await ticketId(s, both, { name: 'Free' });
  await ticketId(s, rsvpOnly, { name: 'Free' });
  await ticketId(s, locked, { name: 'Free' });
  assert.equal((await buy(s, [{ ticket_id: free, quantity: 2 }])).status, 201);
  const pending = await buy(s, [{ ticket_id: paid, quantity: 1 }], { provider: 'tc' });
  assert.equal(pending.status, 201);
  // One of the free attendees is in.
  await s.db.prepare('UPDATE attendees SET checked_in = 1 WHERE post_id = (SELECT MIN(post_id) FROM attendees WHERE ticket_id = ?)').run(free);
});
afterAll(() => s.close());

describe('events carry Event Tickets marks', () => {
  test('ticketed on every event: provider slugs in order of their first ticket, or false', async () => {
    const r = await call(`${ev}?per_page=10`);
    const byId = new Map(r.body.events.map((e: { id: number; ticketed: unknown }) => [e.id, e.ticketed]));
    assert.deepEqual(byId.get(both), ['tc', 'rsvp']);
    assert.deepEqual(byId.get(rsvpOnly), ['rsvp']);
    assert.equal(byId.get(none), false);
    assert.equal((await call(`${ev}/${none}`)).body.ticketed, false);
    assert.equal('attendance' in r.body.events[0], false);
  });

  test('attendance for manage access only; pending orders count as attendees', async () => {
    const door = `Bearer ${(await s.apiKey('Door')).key}`;
    const r = await call(`${ev}/${both}`, { headers: { authorization: door } });
    assert.deepEqual(r.body.attendance, { total_attendees: 3, checked_in: 1, not_checked_in: 2 });
    assert.equal('nonces' in r.body, false);
    const empty = await call(`${ev}/${none}`, { headers: { authorization: door } });
    assert.deepEqual(empty.body.attendance, { total_attendees: 0, checked_in: 0, not_checked_in: 0 });
  });

  test('add_ticket_nonce only on single reads of ticket editors', async () => {
    const single = await call(`${ev}/${both}`, { auth: s.admin });
    assert.match(single.body.nonces.add_ticket_nonce, /^[0-9a-f]{10}$/);
    const archive = await call(`${ev}?per_page=10`, { auth: s.admin });
    assert.ok(ids(archive).includes(both));
    assert.ok(archive.body.events.every((e: Record<string, unknown>) => !('nonces' in e)));
  });

  test('a password-protected event blanks ticketed and attendance in the archive', async () => {
    const door = `Bearer ${(await s.apiKey('Door 2')).key}`;
    const r = await call(`${ev}?per_page=10`, { headers: { authorization: door } });
    const lockedEvent = r.body.events.find((e: { id: number }) => e.id === locked);
    assert.equal(lockedEvent.ticketed, null);
    assert.deepEqual(lockedEvent.attendance, { total_attendees: 'null', checked_in: 'null', not_checked_in: 'null' });
    const open = await call(`${ev}?per_page=10&password=pw`);
    assert.deepEqual(open.body.events.find((e: { id: number }) => e.id === locked).ticketed, ['rsvp']);
  });

  test('archive ticketed=true|false filter', async () => {
    assert.deepEqual(ids(await call(`${ev}?per_page=10&ticketed=true`)), [both, rsvpOnly, locked]);
    assert.deepEqual(ids(await call(`${ev}?per_page=10&ticketed=false`)), [none]);
    assert.equal((await call(`${ev}?ticketed=sometimes`)).status, 400);
  });

  test('a trashed ticket no longer marks its event', async () => {
    const r = await call(`${tix(s)}/tickets?include_post=${rsvpOnly}`, { auth: s.admin });
    const id = r.body.tickets[0].id;
    const nonces = (await call(`${tix(s)}/tickets/${id}`, { auth: s.admin })).body.nonces;
    const del = await call(`${tix(s)}/tickets/${id}`, {
      method: 'DELETE',
      auth: s.admin,
      form: { post_id: String(rsvpOnly), remove_ticket_nonce: nonces.remove_ticket_nonce },
    });
    assert.equal(del.status, 202);
    assert.equal((await call(`${ev}/${rsvpOnly}`)).body.ticketed, false);
  });
});
