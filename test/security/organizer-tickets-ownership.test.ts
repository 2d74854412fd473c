import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type Res, type TestServer } from '../helpers/server.ts';
import { insertAttendees } from '../helpers/tickets-fixture.ts';
import { addNonce, day, makeTicket, tix } from '../server/tickets/fixtures.ts';

/**
 * Issue 10 item 8, tickets part (CONTRACT section 3): an organizer changes only the tickets, attendees and
 * orders of events it authored; on another author's event every such write is `403 rest_forbidden` and
 * changes nothing, while the owner and an administrator make the same write. Reading stays as it was.
 */

let s: TestServer;
let owner: string;
let stranger: string;
let event: number;
let n = 0;
const nonce = () => `ownership-nonce-${String(++n).padStart(6, '0')}`;

/** What any of the writes below could move on the owner's event. */
const state = async () =>
  JSON.stringify([
    await s.db
      .prepare(
        'SELECT p.id, p.status, p.title, p.modified, t.price_minor, t.capacity FROM tickets t JOIN posts p ON p.id = t.post_id WHERE t.event_id = ? ORDER BY p.id',
      )
      .all(event),
    await s.db.prepare('SELECT post_id, full_name, email, checked_in, rsvp_status FROM attendees WHERE event_id = ? ORDER BY post_id').all(event),
    await s.db
      .prepare('SELECT post_id, status FROM orders WHERE post_id IN (SELECT order_id FROM attendees WHERE event_id = ?) ORDER BY post_id')
      .all(event),
    await s.db.prepare('SELECT * FROM marketing_optins ORDER BY attendee_id').all(),
  ]);

/** A fresh ticket of the owner's event with `k` attendees on one order. */
async function ticketWith(k: number, provider: 'tc' | 'rsvp' = 'tc') {
  const r = await makeTicket(s, event, { provider, name: `T${++n}`, price: '10' }, owner);
  assert.equal(r.status, 202, r.text);
  const a = await insertAttendees(s.db, r.body.id, k);
  return { ticketId: r.body.id as number, ...a };
}

async function ticketNonces(id: number, auth: string) {
  const r = await call(`${tix(s)}/tickets/${id}`, { auth });
  assert.equal(r.status, 200, r.text);
  return r.body.nonces as { edit_ticket_nonce: string; remove_ticket_nonce: string };
}

beforeAll(async () => {
  s = await startTestServer();
  owner = await s.userAuth('organizer', 'owner-org');
  stranger = await s.userAuth('organizer', 'other-org');
  const r = await call(`${s.root}evt/events/v1/events`, {
    method: 'POST',
    auth: owner,
    body: { title: "Owner's night", start_date: day(10), end_date: day(10, '22:00:00'), status: 'publish' },
  });
  assert.equal(r.status, 201, r.text);
  event = r.body.id;
});
afterAll(() => s.close());

interface Row {
  name: string;
  /** Sets up a fresh target for `auth` (a ticket, attendees, nonces) and gives the write itself. */
  prepare: (auth: string) => Promise<() => Promise<Res>>;
  ok: number;
}

const rows: Row[] = [
  {
    name: 'create a ticket on the event',
    prepare: async (auth) => {
      const add = await addNonce(s, event, auth);
      return () =>
        call(`${tix(s)}/tickets`, {
          method: 'POST',
          auth,
          form: { post_id: String(event), add_ticket_nonce: add, provider: 'tc', name: 'Sneaky', price: '1' },
        });
    },
    ok: 202,
  },
  {
    name: "edit one of the event's tickets",
    prepare: async (auth) => {
      const t = await ticketWith(0);
      const nn = await ticketNonces(t.ticketId, auth);
      return () =>
        call(`${tix(s)}/tickets/${t.ticketId}`, {
          method: 'POST',
          auth,
          form: { post_id: String(event), edit_ticket_nonce: nn.edit_ticket_nonce, price: '0.01', name: 'Cheap' },
        });
    },
    ok: 202,
  },
  {
    name: "delete one of the event's tickets",
    prepare: async (auth) => {
      const t = await ticketWith(0);
      const nn = await ticketNonces(t.ticketId, auth);
      return () =>
        call(`${tix(s)}/tickets/${t.ticketId}`, {
          method: 'DELETE',
          auth,
          form: { post_id: String(event), remove_ticket_nonce: nn.remove_ticket_nonce },
        });
    },
    ok: 202,
  },
  {
    name: "edit an attendee's fields",
    prepare: async (auth) => {
      const t = await ticketWith(1);
      return () =>
        call(`${tix(s)}/attendees/${t.attendeeIds[0]}`, { method: 'PATCH', auth, body: { full_name: 'Renamed', email: 'renamed@example.test' } });
    },
    ok: 201,
  },
  {
    name: "change an attendee's status",
    prepare: async (auth) => {
      const t = await ticketWith(1);
      return () => call(`${tix(s)}/attendees/${t.attendeeIds[0]}`, { method: 'PATCH', auth, body: { attendee_status: 'refunded' } });
    },
    ok: 201,
  },
  {
    name: 'check an attendee in',
    prepare: async (auth) => {
      const t = await ticketWith(1);
      return () => call(`${tix(s)}/attendees/${t.attendeeIds[0]}`, { method: 'PATCH', auth, body: { check_in: true, nonce: nonce() } });
    },
    ok: 201,
  },
  {
    name: 'create an attendee (box office)',
    prepare: async (auth) => {
      const t = await ticketWith(0);
      return () =>
        call(`${tix(s)}/attendees`, { method: 'POST', auth, body: { ticket_id: t.ticketId, full_name: 'Box Office', email: 'box@office.test' } });
    },
    ok: 201,
  },
  {
    name: "change an order's status",
    prepare: async (auth) => {
      const t = await ticketWith(2);
      return () => call(`${tix(s)}/orders/${t.orderId}`, { method: 'PATCH', auth, body: { status: 'refunded' } });
    },
    ok: 200,
  },
  {
    name: "record an attendee's marketing opt-in",
    prepare: async (auth) => {
      const t = await ticketWith(1);
      return () => call(`${s.root}marketing/v1/opt-ins`, { method: 'POST', auth, body: { attendee_id: t.attendeeIds[0], consent: true } });
    },
    ok: 201,
  },
  {
    name: 'edit an attendee through a batch',
    prepare: async (auth) => {
      const t = await ticketWith(1);
      return async () => {
        const r = await call(`${s.root}batch/v1`, {
          method: 'POST',
          auth,
          body: { requests: [{ method: 'PATCH', path: `/evt/tickets/v1/attendees/${t.attendeeIds[0]}`, body: { full_name: 'Batch Renamed' } }] },
        });
        const item = r.body.responses[0];
        return { ...r, status: item.status, body: item.body, text: JSON.stringify(item.body) };
      };
    },
    ok: 201,
  },
];

describe("an organizer and another author's event", () => {
  for (const row of rows) {
    test(`${row.name}: another organizer 403 rest_forbidden, nothing changes; the owner and an administrator may`, async () => {
      const go = await row.prepare(stranger);
      const before = await state();
      const refused = await go();
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.code, 'rest_forbidden');
      assert.equal(await state(), before, 'the refused write changed something');
      for (const [who, auth] of [
        ['owner', owner],
        ['administrator', s.admin],
      ] as const) {
        const write = await row.prepare(auth);
        const was = await state();
        const r = await write();
        assert.equal(r.status, row.ok, `${who}: ${r.text}`);
        assert.notEqual(await state(), was, `${who}'s write changed nothing`);
      }
    });
  }

  test('refused writes leave the rows they aimed at exactly as they were', async () => {
    const t = await ticketWith(2);
    const nn = await ticketNonces(t.ticketId, stranger);
    const add = await addNonce(s, event, stranger);
    const before = await state();
    const attempts = [
      call(`${tix(s)}/tickets`, {
        method: 'POST',
        auth: stranger,
        form: { post_id: String(event), add_ticket_nonce: add, provider: 'tc', name: 'Sneaky' },
      }),
      call(`${tix(s)}/tickets/${t.ticketId}`, {
        method: 'POST',
        auth: stranger,
        form: { post_id: String(event), edit_ticket_nonce: nn.edit_ticket_nonce, price: '0.01' },
      }),
      call(`${tix(s)}/tickets/${t.ticketId}`, {
        method: 'DELETE',
        auth: stranger,
        form: { post_id: String(event), remove_ticket_nonce: nn.remove_ticket_nonce },
      }),
      call(`${tix(s)}/tickets/${t.ticketId}`, {
        method: 'DELETE',
        auth: stranger,
        form: { post_id: String(event), remove_ticket_nonce: 'not-a-nonce' },
      }),
      call(`${tix(s)}/attendees/${t.attendeeIds[0]}`, { method: 'PATCH', auth: stranger, body: { full_name: 'X', check_in: true } }),
      call(`${tix(s)}/attendees`, { method: 'POST', auth: stranger, body: { ticket_id: t.ticketId, full_name: 'X', email: 'x@x.test' } }),
      call(`${tix(s)}/orders/${t.orderId}`, { method: 'PATCH', auth: stranger, body: { status: 'cancelled' } }),
      call(`${s.root}marketing/v1/opt-ins`, { method: 'POST', auth: stranger, body: { attendee_id: t.attendeeIds[1], consent: true } }),
    ];
    for (const r of await Promise.all(attempts)) {
      assert.equal(r.status, 403, r.text);
      assert.equal(r.body.code, 'rest_forbidden');
    }
    assert.equal(await state(), before);
  });

  test('another organizer reads the tickets, but not their attendees, codes or orders (issue 21, finding 14)', async () => {
    const t = await ticketWith(1);
    const ticket = await call(`${tix(s)}/tickets/${t.ticketId}`, { auth: stranger });
    assert.equal(ticket.status, 200);
    assert.deepEqual(ticket.body.attendees ?? [], []);
    assert.equal((await call(`${tix(s)}/tickets/${t.ticketId}`, { auth: owner })).body.attendees.length, 1);
    assert.equal((await call(`${tix(s)}/attendees/${t.attendeeIds[0]}`, { auth: stranger })).body.security_code, undefined);
    assert.equal((await call(`${tix(s)}/orders/${t.orderId}`, { auth: stranger })).status, 404);
    assert.equal((await call(`${tix(s)}/orders/${t.orderId}`, { auth: owner })).status, 200);
  });
});
