import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { makeEvent, ticketId, tix } from '../server/tickets/fixtures.ts';

/*
 * Holes left after issue 10, found by an independent black-box probe of a running server (CONTRACT section 3).
 * Each test here failed on the code the probe attacked and passes with its fix.
 *
 *   finding 1: the connection cap was global, so one client holding EVT_MAX_CONNECTIONS sockets with trickled
 *              headers (slowloris) or slow bodies locked every other client out (ECONNRESET) until Node's
 *              30 s timeout check. Now each client address holds at most a share of the cap (server/http/harden.ts).
 *   finding 2: a door key made for event A (and any door user) checked out orders on event B: orders and attendees
 *              written on B, B's attendee security codes in the answer. A door role "changes nothing but check-in
 *              state and creates attendees at the door": cart writes and checkouts by door roles are 403.
 *
 * Two more observations were decided, not changed: ten wrong passwords for a login locked that login out from every
 * address for 5 minutes (since issue 21 failures limit a login only at the address they came from), and a wrong `api_key`
 * query parameter leaves the caller anonymous on routes other than QR check-in, as in the original (it grants
 * nothing an anonymous caller lacks; the same key as `Authorization: Bearer` is 401).
 */

/** A GET from a chosen loopback source address; resolves with the status or the socket error, never hangs. */
function getFrom(
  base: string,
  route: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number | string; text: string }> {
  const url = new URL(route, base);
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, localAddress, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: e.code ?? e.message, text: '' }));
    req.end();
  });
}

describe('finding 1: one client cannot take every connection (slowloris)', () => {
  let s: TestServer;
  const held: net.Socket[] = [];
  beforeAll(async () => {
    s = await startTestServer({ EVT_MAX_CONNECTIONS: '20' });
  });
  afterAll(async () => {
    for (const sock of held) sock.destroy();
    await s.close();
  });

  test('20 sockets of one address sending headers slowly leave room for another address', async () => {
    const port = Number(new URL(s.base).port);
    // The attacker: as many connections as the cap, each with an unfinished request head.
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const sock = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.5' }, () => {
              sock.write('GET /wp-json/ HTTP/1.1\r\nHost: x\r\nX-Slow: ');
              resolve();
            });
            sock.on('error', () => resolve());
            held.push(sock);
          }),
      ),
    );
    // One more round trip from the attacker's address, so the server has accepted (or dropped) all 20 by now;
    // whether this one is served or refused is the fix's choice.
    const first = await getFrom(s.base, '/wp-json/evt/events/v1/events', '127.0.0.5');
    assert.notEqual(first.status, 500);
    const other = await getFrom(s.base, '/wp-json/evt/events/v1/events', '127.0.0.9');
    assert.equal(other.status, 200, `another client was refused: ${other.status}`);
  });
});

describe('finding 2: door roles do not check out orders (least of all on another event)', () => {
  let s: TestServer;
  let eventA: number;
  let eventB: number;
  let ticketB: number;
  const count = async (sql: string, ...p: unknown[]) => ((await s.db.prepare(sql).get(...p)) as { n: number }).n;
  const written = async () => ({
    orders: await count('SELECT COUNT(*) AS n FROM orders'),
    attendeesB: await count('SELECT COUNT(*) AS n FROM attendees WHERE event_id = ?', eventB),
  });
  const codesOfB = async () =>
    ((await s.db.prepare('SELECT security_code FROM attendees WHERE event_id = ?').all(eventB)) as { security_code: string }[]).map(
      (r) => r.security_code,
    );

  beforeAll(async () => {
    s = await startTestServer();
    eventA = await makeEvent(s, { title: 'Event A', status: 'publish' });
    eventB = await makeEvent(s, { title: 'Event B', status: 'publish' });
    await ticketId(s, eventA);
    ticketB = await ticketId(s, eventB); // a free RSVP ticket: its order completes at once
  });
  afterAll(() => s.close());

  async function checkoutAs(auth: string) {
    const cart = await call(`${tix(s)}/cart`, { method: 'POST', auth, body: { provider: 'rsvp', tickets: [{ ticket_id: ticketB, quantity: 2 }] } });
    const done = await call(`${tix(s)}/cart/checkout`, {
      method: 'POST',
      auth,
      body: { purchaser_name: 'Forger', purchaser_email: 'forger@example.test' },
    });
    return { cart, done };
  }

  test('a key of event A checking out on event B writes nothing and sees no code of B', async () => {
    const { key } = await s.apiKey('Door A', eventA);
    const before = await written();
    const { cart, done } = await checkoutAs(`Bearer ${key}`);
    assert.ok(cart.status !== 500 && done.status !== 500);
    for (const code of await codesOfB()) assert.ok(!done.text.includes(code), 'the answer carries a security code of event B');
    assert.deepEqual(await written(), before, `checkout answered ${done.status}: ${done.text.slice(0, 200)}`);
    assert.equal(done.status, 403);
    assert.equal(done.body.code, 'rest_forbidden');
  });

  test('a door user checking out writes nothing', async () => {
    const door = await s.userAuth('door');
    const before = await written();
    const { done } = await checkoutAs(door);
    assert.deepEqual(await written(), before, `checkout answered ${done.status}: ${done.text.slice(0, 200)}`);
    assert.equal(done.status, 403);
    assert.equal(done.body.code, 'rest_forbidden');
  });
});
