import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../helpers/tickets-fixture.ts';
import { findUserByLogin } from '../../server/db/repos/users.ts';

/**
 * Issue 21, finding 14 (CONTRACT section 3): an organizer reads attendees, orders, check-ins and security codes
 * only of the events it authored (a security code is as good as the ticket). Before the fix (main 738fe83,
 * checked with the server changes stashed) another organizer listed the event's attendees with e-mails and
 * codes, read one with its code, read the orders and the whole check-in log, and fetched the QR images.
 */

let s: TestServer;
let owner: string;
let stranger: string;
let fx: TicketsFixture;
const tix = () => `${s.root}evt/tickets/v1`;

beforeAll(async () => {
  s = await startTestServer();
  owner = await s.userAuth('organizer', 'owner-org');
  stranger = await s.userAuth('organizer', 'other-org');
  fx = await seedTicketsFixture(s.db, { attendees: 3 });
  await s.db.prepare('UPDATE posts SET author = ? WHERE id = ?').run((await findUserByLogin(s.db, 'owner-org'))!.id, fx.eventId);
  // One check-in on the event, by a door key.
  const door = await s.apiKey('Door');
  const a = fx.attendeeIds[0];
  const r = await call(`${tix()}/qr?api_key=${door.key}&ticket_id=${a}&security_code=${fx.codes.get(a)}`);
  assert.equal(r.status, 201, r.text);
});
afterAll(() => s.close());

const codes = () => [...fx.codes.values()];
const leaks = (text: string) => codes().filter((c) => text.includes(c)).length + (text.includes('@') ? 1 : 0);

describe('finding 14: an organizer reads attendees, orders, check-ins and codes of its own events only', () => {
  test('the attendee list', async () => {
    const mine = await call(`${tix()}/attendees?post_id=${fx.eventId}`, { auth: owner });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.total, 3);
    assert.ok(mine.body.attendees.every((a: any) => typeof a.security_code === 'string'));
    for (const url of [`${tix()}/attendees?post_id=${fx.eventId}`, `${tix()}/attendees`, `${tix()}/attendees?include=${fx.attendeeIds.join(',')}`]) {
      const theirs = await call(url, { auth: stranger });
      assert.equal(theirs.status, 200, url);
      assert.equal(theirs.body.total, 0, url);
      assert.equal(leaks(theirs.text), 0, url);
    }
  });

  test('one attendee: the public view, without e-mail or security code', async () => {
    const a = fx.attendeeIds[1];
    const mine = await call(`${tix()}/attendees/${a}`, { auth: owner });
    assert.equal(mine.body.security_code, fx.codes.get(a));
    const theirs = await call(`${tix()}/attendees/${a}`, { auth: stranger });
    assert.equal(theirs.status, 200);
    assert.equal(theirs.body.id, a);
    assert.equal(theirs.body.security_code, undefined);
    assert.equal(leaks(theirs.text), 0);
  });

  test('the check-in log', async () => {
    assert.equal((await call(`${tix()}/checkins`, { auth: owner })).body.total, 1);
    const theirs = await call(`${tix()}/checkins`, { auth: stranger });
    assert.equal(theirs.status, 200);
    assert.equal(theirs.body.total, 0);
    assert.equal((await call(`${tix()}/checkins?post_id=${fx.eventId}`, { auth: stranger })).body.total, 0);
  });

  test('orders', async () => {
    assert.equal((await call(`${tix()}/orders`, { auth: owner })).body.total, 1);
    const list = await call(`${tix()}/orders`, { auth: stranger });
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 0);
    const one = await call(`${tix()}/orders/${fx.orderId}`, { auth: stranger });
    assert.equal(one.status, 404);
    assert.equal(leaks(one.text), 0);
    assert.equal((await call(`${tix()}/orders/${fx.orderId}`, { auth: owner })).status, 200);
  });

  test('QR images and the attendees embedded in tickets', async () => {
    const a = fx.attendeeIds[2];
    assert.equal((await call(`${tix()}/qr/${a}?format=svg`, { auth: owner })).status, 200);
    assert.equal((await call(`${tix()}/qr/${a}?format=svg`, { auth: stranger })).status, 403);
    const ticket = await call(`${tix()}/tickets/${fx.ticketId}`, { auth: stranger });
    assert.equal(ticket.status, 200);
    assert.equal(leaks(ticket.text), 0);
    const tickets = await call(`${tix()}/tickets?include_post=${fx.eventId}`, { auth: stranger });
    assert.equal(tickets.status, 200);
    assert.equal(leaks(tickets.text), 0);
    const own = await call(`${tix()}/tickets/${fx.ticketId}`, { auth: owner });
    assert.ok(
      codes().some((c) => own.text.includes(c)),
      'the owner sees the codes',
    );
  });
});
