import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { insertTicket, insertAttendees, seedTicketsFixture, type TicketsFixture } from '../helpers/tickets-fixture.ts';

/**
 * Issue 10 item 1 (CONTRACT section 3): a door key made for event A never receives event B's attendee names,
 * e-mails or security codes, on any route and in any embedded object, and cannot change B's attendees.
 * One table over every route that can carry attendee data; each answer's raw text is searched.
 */

let s: TestServer;
let A: TicketsFixture;
let B: TicketsFixture;
let bRsvp: { ticketId: number; orderId: number; attendeeIds: number[]; codes: Map<number, string> };
let key: string;
let bSecrets: string[];
let aCodes: string[];

const count = async (sql: string, ...p: unknown[]) => ((await s.db.prepare(sql).get(...p)) as { n: number }).n;
/** Everything about B's attendees and orders that a write could move. */
const snapshotB = async () =>
  JSON.stringify([
    await s.db.prepare('SELECT * FROM attendees WHERE event_id = ? ORDER BY post_id').all(B.eventId),
    await s.db
      .prepare(
        "SELECT id, title, modified FROM posts WHERE type = 'attendee' AND id IN (SELECT post_id FROM attendees WHERE event_id = ?) ORDER BY id",
      )
      .all(B.eventId),
    await s.db
      .prepare('SELECT post_id, status FROM orders WHERE post_id IN (SELECT order_id FROM attendees WHERE event_id = ?) ORDER BY post_id')
      .all(B.eventId),
    await s.db.prepare('SELECT * FROM marketing_optins ORDER BY attendee_id').all(),
  ]);

beforeAll(async () => {
  s = await startTestServer();
  A = await seedTicketsFixture(s.db, { attendees: 3, eventTitle: 'Event A', name: (i) => `Alpha Visitor ${i}` });
  B = await seedTicketsFixture(s.db, { attendees: 3, eventTitle: 'Event B', name: (i) => `Bravo Secretname ${i}` });
  const rsvp = await insertTicket(s.db, B.eventId, { provider: 'rsvp', title: 'B guest list' });
  bRsvp = { ticketId: rsvp, ...(await insertAttendees(s.db, rsvp, 2, { name: (i) => `Bravo Rsvpname ${i}` })) };
  // Unique e-mails for B (the fixture's are shared between events), and a purchaser e-mail on its orders.
  await s.db.prepare("UPDATE attendees SET email = 'bravo-' || post_id || '@secret.test' WHERE event_id = ?").run(B.eventId);
  await s.db
    .prepare("UPDATE orders SET purchaser_email = 'bravo-buyer@secret.test', purchaser_name = 'Bravo Buyername' WHERE post_id IN (?, ?)")
    .run(B.orderId, bRsvp.orderId);
  await s.db.prepare("UPDATE attendees SET email = 'alpha-' || post_id || '@visible.test' WHERE event_id = ?").run(A.eventId);
  // One of B's attendees is checked in (by the administrator), so the check-in log has B rows.
  const r = await call(`${s.root}evt/tickets/v1/attendees/${B.attendeeIds[0]}`, { method: 'PATCH', auth: s.admin, body: { check_in: true } });
  assert.equal(r.status, 201, r.text);
  const bIds = [...B.attendeeIds, ...bRsvp.attendeeIds];
  const names = (await s.db.prepare(`SELECT full_name, email, security_code FROM attendees WHERE event_id = ?`).all(B.eventId)) as {
    full_name: string;
    email: string;
    security_code: string;
  }[];
  assert.equal(names.length, bIds.length);
  bSecrets = [...names.flatMap((n) => [n.full_name, n.email, n.security_code]), 'bravo-buyer@secret.test', 'Bravo Buyername'];
  aCodes = [...A.codes.values()];
  key = `Bearer ${(await s.apiKey('Door', A.eventId)).key}`;
});
afterAll(() => s.close());

const T = 'evt/tickets/v1';

/** Every read that can carry attendee data, aimed at B or at everything (key of A). */
function reads(): string[] {
  const b = B.attendeeIds;
  const r = bRsvp.attendeeIds;
  return [
    `${T}/tickets`,
    `${T}/tickets?per_page=50`,
    `${T}/tickets?include_post=${B.eventId}`,
    `${T}/tickets?include=${B.ticketId},${bRsvp.ticketId}`,
    `${T}/tickets?include_post=${A.eventId},${B.eventId}&status=any&post_status=any`,
    `${T}/tickets?_fields=id,attendees`,
    `${T}/tickets/${B.ticketId}`,
    `${T}/tickets/${bRsvp.ticketId}`,
    `${T}/tickets/${B.ticketId}?_fields=attendees`,
    `${T}/tickets/${B.ticketId}?context=edit`,
    `${T}/attendees`,
    `${T}/attendees?per_page=50&status=any&post_status=any&order_status=any`,
    `${T}/attendees?post_id=${B.eventId}`,
    `${T}/attendees?include_post=${A.eventId},${B.eventId}`,
    `${T}/attendees?include=${b.join(',')},${r.join(',')}`,
    `${T}/attendees?post_id=${A.eventId}&include=${b.join(',')}`,
    `${T}/attendees?ticket_id=${B.ticketId}`,
    `${T}/attendees?include_ticket=${B.ticketId},${bRsvp.ticketId}`,
    `${T}/attendees?search=Bravo`,
    `${T}/attendees?name=Bravo`,
    `${T}/attendees?email=secret.test`,
    `${T}/attendees?changed_since=0&per_page=100`,
    `${T}/attendees?exclude_post=${A.eventId}`,
    ...[...b, ...r].map((id) => `${T}/attendees/${id}`),
    `${T}/checkins`,
    `${T}/checkins?post_id=${B.eventId}`,
    `${T}/checkins?attendee_id=${b[0]}`,
    `${T}/qr/${b[0]}`,
    `${T}/qr/${b[0]}?format=svg`,
    `${T}/qr/${b[0]}?format=png`,
    `${T}/orders`,
    `${T}/orders/${B.orderId}`,
    `${T}/orders?post_id=${B.eventId}`,
    `${T}/cart`,
    `evt/events/v1/events`,
    `evt/events/v1/events/${B.eventId}`,
    `evt/events/v1/events?include=${B.eventId}&status=any`,
  ];
}

function leaks(text: string): string[] {
  return bSecrets.filter((x) => text.includes(x));
}

describe("a key of event A against event B's attendee data", () => {
  test('no answer on any read route carries B names, e-mails or security codes', async () => {
    const found: string[] = [];
    let aSeen = false;
    for (const path of reads()) {
      for (const auth of [{ auth: key }, { query: true }]) {
        const url =
          'query' in auth ? `${s.root}${path}${path.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(key.slice(7))}` : `${s.root}${path}`;
        const res = await call(url, { auth: 'auth' in auth ? auth.auth : undefined });
        assert.ok(res.status < 500, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
        for (const l of leaks(res.text)) found.push(`${path}: ${res.status} ${l}`);
        if (aCodes.some((c) => res.text.includes(c))) aSeen = true;
      }
    }
    // The same answers through batch/v1 (reads are not batchable, but the attempt must not leak either).
    const batch = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: key,
      body: {
        requests: reads()
          .slice(0, 25)
          .map((p) => ({ method: 'GET', path: `/${p}` })),
      },
    });
    for (const l of leaks(batch.text)) found.push(`batch: ${l}`);
    assert.deepEqual(found, []);
    // The control: the key does see its own event's codes, so the search looks at real data.
    assert.ok(aSeen, "the key sees its own event's security codes somewhere");
  });

  test("B's tickets: the ticket list is A's, a single B ticket is hidden like a missing one", async () => {
    const list = await call(`${s.root}${T}/tickets?per_page=50&include_post=${A.eventId},${B.eventId}`, { auth: key });
    assert.equal(list.status, 200);
    assert.ok(list.body.tickets.length > 0);
    assert.ok(list.body.tickets.every((t: { post_id: number }) => t.post_id === A.eventId));
    const own = await call(`${s.root}${T}/tickets/${A.ticketId}`, { auth: key });
    assert.equal(own.status, 200);
    assert.equal(own.body.attendees.length, 3);
    const other = await call(`${s.root}${T}/tickets/${B.ticketId}`, { auth: key });
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 'ticket-not-found');
    // The attendee routes hide B the same way: 404 single, nothing in lists, nothing in the log.
    assert.equal((await call(`${s.root}${T}/attendees/${B.attendeeIds[1]}`, { auth: key })).status, 404);
    const att = await call(`${s.root}${T}/attendees?post_id=${B.eventId}`, { auth: key });
    assert.equal(att.body.total, 0);
    const log = await call(`${s.root}${T}/checkins?post_id=${B.eventId}`, { auth: key });
    assert.equal(log.body.total, 0);
    const ev = await call(`${s.root}evt/events/v1/events/${B.eventId}`, { auth: key });
    assert.equal(ev.status, 200);
    assert.equal('attendance' in ev.body, false, 'no attendance figures of another event');
  });

  test("writes by the key on B's attendees are refused and change nothing", async () => {
    const before = await snapshotB();
    const attendeesBefore = await count('SELECT COUNT(*) AS n FROM attendees');
    const b = B.attendeeIds[1];
    const codeB = B.codes.get(b)!;
    const A_ = `${s.root}${T}/attendees`;
    const writes: { name: string; run: () => ReturnType<typeof call> }[] = [
      {
        name: 'PATCH check-in',
        run: () => call(`${A_}/${b}`, { method: 'PATCH', auth: key, body: { check_in: true, nonce: 'scope-test-nonce-000001' } }),
      },
      { name: 'POST check-in', run: () => call(`${A_}/${b}`, { method: 'POST', auth: key, form: { check_in: '1' } }) },
      { name: 'PATCH check-out', run: () => call(`${A_}/${B.attendeeIds[0]}`, { method: 'PATCH', auth: key, body: { check_in: false } }) },
      { name: 'PATCH fields', run: () => call(`${A_}/${b}`, { method: 'PATCH', auth: key, body: { full_name: 'Hijacked', email: 'x@evil.test' } }) },
      { name: 'PATCH status', run: () => call(`${A_}/${b}`, { method: 'PATCH', auth: key, body: { attendee_status: 'refunded' } }) },
      {
        name: 'create at the door',
        run: () => call(A_, { method: 'POST', auth: key, body: { ticket_id: B.ticketId, full_name: 'Forged Guest', email: 'forged@evil.test' } }),
      },
      {
        name: 'create RSVP at the door',
        run: () =>
          call(A_, {
            method: 'POST',
            auth: key,
            body: { ticket_id: bRsvp.ticketId, full_name: 'Forged Guest', email: 'forged@evil.test', check_in: true },
          }),
      },
      {
        name: 'QR check-in',
        run: () => call(`${s.root}${T}/qr?api_key=${encodeURIComponent(key.slice(7))}&ticket_id=${b}&security_code=${codeB}&event_id=${B.eventId}`),
      },
      {
        name: 'marketing opt-in',
        run: () => call(`${s.root}marketing/v1/opt-ins`, { method: 'POST', auth: key, body: { attendee_id: b, consent: true, source: 'door' } }),
      },
      { name: 'order status', run: () => call(`${s.root}${T}/orders/${B.orderId}`, { method: 'PATCH', auth: key, body: { status: 'refunded' } }) },
    ];
    for (const w of writes) {
      const r = await w.run();
      assert.ok(r.status >= 400 && r.status < 500, `${w.name}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.deepEqual(leaks(r.text), [], `${w.name} answer`);
      assert.equal(await snapshotB(), before, `${w.name} changed B`);
    }
    const batch = await call(`${s.root}batch/v1`, {
      method: 'POST',
      auth: key,
      body: {
        requests: [
          { method: 'PATCH', path: `/${T}/attendees/${b}`, body: { check_in: true } },
          { method: 'PATCH', path: `/${T}/attendees/${b}`, body: { full_name: 'Hijacked' } },
          { method: 'POST', path: `/${T}/attendees`, body: { ticket_id: B.ticketId, full_name: 'Forged Guest', email: 'forged@evil.test' } },
          { method: 'POST', path: '/marketing/v1/opt-ins', body: { attendee_id: b, consent: true } },
        ],
      },
    });
    assert.ok(batch.status < 500, batch.text);
    for (const item of batch.body?.responses ?? []) assert.ok(item.status >= 400, JSON.stringify(item).slice(0, 200));
    assert.deepEqual(leaks(batch.text), []);
    assert.equal(await snapshotB(), before, 'the batch changed B');
    assert.equal(await count('SELECT COUNT(*) AS n FROM attendees'), attendeesBefore);
  });

  test('the same key still works on its own event (the control)', async () => {
    const a = A.attendeeIds[0];
    const r = await call(`${s.root}${T}/attendees/${a}`, { method: 'PATCH', auth: key, body: { check_in: true } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.security_code, A.codes.get(a));
    const made = await call(`${s.root}${T}/attendees`, {
      method: 'POST',
      auth: key,
      body: { ticket_id: A.ticketId, full_name: 'Walk In', email: 'walk@in.test' },
    });
    assert.equal(made.status, 201, made.text);
  });
});
