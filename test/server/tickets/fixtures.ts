import assert from 'node:assert/strict';
import { formatInZone } from '../../../shared/dates.ts';
import { call, type Res, type TestServer } from '../../helpers/server.ts';

/** `YYYY-MM-DD HH:MM:SS` (UTC) `offset` days from now. */
export const day = (offset: number, time = '19:00:00') => `${formatInZone(new Date(Date.now() + offset * 86400_000), 'UTC').slice(0, 10)} ${time}`;

export const tix = (s: TestServer) => `${s.root}evt/tickets/v1`;

/** Creates an event through the events API and returns its ID. */
export async function makeEvent(s: TestServer, body: Record<string, unknown> = {}, auth = s.admin): Promise<number> {
  const r = await call(`${s.root}evt/events/v1/events`, {
    method: 'POST',
    auth,
    body: { title: 'Concert', start_date: day(10), end_date: day(10, '22:00:00'), ...body },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}

/** The add_ticket_nonce an editor finds on the single event read. */
export async function addNonce(s: TestServer, eventId: number, auth = s.admin): Promise<string> {
  const r = await call(`${s.root}evt/events/v1/events/${eventId}?context=edit`, { auth });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.nonces.add_ticket_nonce;
}

/** Creates a ticket through the editor route (form body, as the original's editor sends it). */
export async function makeTicket(s: TestServer, eventId: number, fields: Record<string, string> = {}, auth = s.admin): Promise<Res> {
  const nonce = await addNonce(s, eventId, auth);
  return call(`${tix(s)}/tickets`, {
    method: 'POST',
    auth,
    form: { post_id: String(eventId), add_ticket_nonce: nonce, provider: 'rsvp', name: 'General admission', ...fields },
  });
}

export async function ticketId(s: TestServer, eventId: number, fields: Record<string, string> = {}): Promise<number> {
  const r = await makeTicket(s, eventId, fields);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.id;
}

/** A fresh anonymous visitor with its own cookie jar (only the cart cookie matters here). */
export function visitor() {
  let cookie = '';
  return {
    get cookie() {
      return cookie;
    },
    async call(url: string, opts: Parameters<typeof call>[1] = {}): Promise<Res> {
      const headers = { ...(opts.headers ?? {}), ...(cookie ? { cookie } : {}) };
      const res = await call(url, { ...opts, headers });
      const set = res.headers.get('set-cookie');
      const m = set && /evt_cart=([^;]+)/.exec(set);
      if (m) cookie = `evt_cart=${m[1]}`;
      return res;
    },
  };
}

/** Puts tickets in the caller's cart and checks out. */
export async function buy(
  s: TestServer,
  lines: { ticket_id: number; quantity: number }[],
  opts: { provider?: string; auth?: string; name?: string } = {},
): Promise<Res> {
  const v = visitor();
  const c = await v.call(`${tix(s)}/cart`, { method: 'POST', auth: opts.auth, body: { provider: opts.provider ?? 'rsvp', tickets: lines } });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  return v.call(`${tix(s)}/cart/checkout`, {
    method: 'POST',
    auth: opts.auth,
    body: { purchaser_name: opts.name ?? 'Mari Maasikas', purchaser_email: 'mari@example.test' },
  });
}
