import { ticketCodeUrl } from '../../shared/checkin/ticket-code.ts';
import { isoWithOffset, makeNonce } from '../../shared/checkin/ids.ts';
import { FakeDoorServer } from '../renderer/fake-door-server.ts';
import { startTestServer, call } from '../helpers/server.ts';
import { startFakeHttpServer } from './fake-http-server.ts';
import { revokeApiKey } from '../../server/db/repos/api-keys.ts';

/** A server the kiosk can pair with, seeded with one event and a few attendees. */
export interface Backend {
  name: string;
  /** Interface root with trailing slash. */
  root: string;
  base: string;
  apiKey: string;
  eventId: number;
  attendees: Array<{ id: number; name: string; ticketUrl: string }>;
  /** The server's view: is the attendee checked in, and by which device. */
  checkin(attendeeId: number): Promise<{ checkedIn: boolean; deviceId: string | null }>;
  /** Every scan of the attendee the server recorded, by result, oldest first. */
  scans(attendeeId: number): Promise<string[]>;
  /** The server's check-in log for the event, oldest first: every scan, accepted or not. */
  log(): Promise<Array<{ result: string; reason: string | null; deviceId: string | null; attendeeId: number | null }>>;
  /** How many of the event's attendees the server has checked in now. */
  checkedIn(): Promise<number>;
  /** Another door checks the attendee out (online, straight to the server). */
  checkOutElsewhere(attendeeId: number): Promise<void>;
  /** Revokes the door key the backend was seeded with. */
  revokeKey(): Promise<void>;
  /** A door key that works, but only for another event. */
  otherEventKey(): Promise<string>;
  /**
   * Another door admits the attendee (online, straight to the server) with its own key named `label`, with
   * this scan time: a second kiosk that got there first.
   */
  admitElsewhere(attendeeId: number, label: string, scanAt: number): Promise<void>;
  close(): Promise<void>;
}

/** The contract model over HTTP. */
export async function modelBackend(count: number): Promise<Backend> {
  const srv = await startFakeHttpServer(new FakeDoorServer());
  const people = srv.model.seed(count);
  return {
    name: 'contract model',
    root: srv.root,
    base: srv.base,
    apiKey: 'door-key',
    eventId: srv.model.eventId,
    attendees: people.map((p) => ({ id: p.id, name: p.name, ticketUrl: srv.model.ticketUrl(p) })),
    async checkin(id) {
      const c = srv.model.attendees.get(id)?.checkin ?? null;
      return { checkedIn: c !== null, deviceId: c?.deviceId ?? null };
    },
    async scans(id) {
      return srv.model.log.filter((e) => e.attendeeId === id).map((e) => e.result);
    },
    async revokeKey() {
      srv.model.keys.delete('door-key');
    },
    async log() {
      return srv.model.log.map((e) => ({ result: e.result, reason: e.reason, deviceId: e.deviceId, attendeeId: e.attendeeId }));
    },
    async checkedIn() {
      return [...srv.model.attendees.values()].filter((a) => a.status === 'publish' && a.checkin !== null).length;
    },
    async checkOutElsewhere(id) {
      const a = srv.model.attendees.get(id)!;
      a.checkin = null;
      srv.model.touch(a);
    },
    async admitElsewhere(id, _label, scanAt) {
      const a = srv.model.attendees.get(id)!;
      a.checkin = { date: isoWithOffset(scanAt, 0), deviceId: 'door-0ther0door', nonce: makeNonce() };
      a.changedAt = (srv.model as unknown as { cursor: number }).cursor++;
    },
    async otherEventKey() {
      srv.model.keys.add('other-event-key');
      srv.model.keyScopes.set('other-event-key', srv.model.eventId + 1000);
      return 'other-event-key';
    },
    close: () => srv.close(),
  };
}

function must<T>(res: { status: number; body: T; text: string }, what: string, ok = [200, 201]): T {
  if (!ok.includes(res.status)) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

/**
 * The real server (createApp on a fresh SQLite file), seeded through its own API as an organizer would:
 * an event, a free ticket, and attendees created at the box office.
 */
export async function realBackend(count: number, opts: { names?: string[]; title?: string } = {}): Promise<Backend> {
  const srv = await startTestServer();
  const admin = srv.admin;
  const root = srv.root;
  const event = must(
    await call(`${root}evt/events/v1/events`, {
      method: 'POST',
      auth: admin,
      body: { title: opts.title ?? 'Door e2e', status: 'publish', start_date: '2030-01-01 18:00:00', end_date: '2030-01-01 23:00:00' },
    }),
    'create event',
  ) as { id: number };
  const single = must(await call(`${root}evt/events/v1/events/${event.id}`, { auth: admin }), 'read event') as {
    nonces?: { add_ticket_nonce?: string };
  };
  const ticket = must(
    await call(`${root}evt/tickets/v1/tickets`, {
      method: 'POST',
      auth: admin,
      form: {
        post_id: String(event.id),
        add_ticket_nonce: single.nonces?.add_ticket_nonce ?? '',
        provider: 'rsvp',
        name: 'General admission',
        price: '0',
        'ticket[capacity]': '',
      },
    }),
    'create ticket',
    [200, 201, 202],
  ) as { id?: number; ticket_id?: number };
  const ticketId = ticket.id ?? ticket.ticket_id;
  const door = await srv.apiKey('Door e2e', event.id);
  const key = door.key;
  const attendees: Backend['attendees'] = [];
  for (let i = 0; i < count; i++) {
    const name = opts.names?.[i] ?? `Guest ${i + 1}`;
    const created = must(
      await call(`${root}evt/tickets/v1/attendees`, {
        method: 'POST',
        auth: `Bearer ${key}`,
        body: { ticket_id: ticketId, full_name: name, email: `guest${i + 1}@example.test` },
      }),
      'create attendee',
    ) as { id: number };
    const door = must(await call(`${root}evt/tickets/v1/attendees/${created.id}`, { auth: `Bearer ${key}` }), 'read attendee') as {
      security_code: string;
    };
    attendees.push({
      id: created.id,
      name,
      ticketUrl: ticketCodeUrl(srv.base, { attendeeId: created.id, eventId: event.id, securityCode: door.security_code }),
    });
  }
  return {
    name: 'real server',
    root,
    base: srv.base,
    apiKey: key,
    eventId: event.id,
    attendees,
    async scans(id) {
      const log = must(await call(`${root}evt/tickets/v1/checkins?attendee_id=${id}&per_page=100&order=ASC`, { auth: admin }), 'check-in log') as {
        checkins: Array<{ result: string }>;
      };
      return log.checkins.map((c) => c.result);
    },
    async revokeKey() {
      await revokeApiKey(srv.db, door.id);
    },
    async log() {
      const body = must(await call(`${root}evt/tickets/v1/checkins?post_id=${event.id}&per_page=100&order=ASC`, { auth: admin }), 'check-in log') as {
        checkins: Array<{ result: string; reason: string | null; device_id: string | null; attendee_id: number | null }>;
      };
      return body.checkins.map((c) => ({ result: c.result, reason: c.reason, deviceId: c.device_id, attendeeId: c.attendee_id }));
    },
    async checkedIn() {
      const e = must(await call(`${root}evt/events/v1/events/${event.id}`, { auth: admin }), 'read event') as { attendance: { checked_in: number } };
      return e.attendance.checked_in;
    },
    async checkOutElsewhere(id) {
      const key = (await srv.apiKey('Door 3', event.id)).key;
      must(
        await call(`${root}evt/tickets/v1/attendees/${id}`, {
          method: 'PATCH',
          auth: `Bearer ${key}`,
          body: { check_in: false, check_in_date: isoWithOffset(Date.now(), 0), device_id: 'door-thr33door', nonce: makeNonce() },
        }),
        'check out at another door',
      );
    },
    async admitElsewhere(id, label, scanAt) {
      const key = (await srv.apiKey(label, event.id)).key;
      must(
        await call(`${root}evt/tickets/v1/attendees/${id}`, {
          method: 'PATCH',
          auth: `Bearer ${key}`,
          body: { check_in: true, check_in_date: isoWithOffset(scanAt, 0), device_id: 'door-0ther0door', nonce: makeNonce() },
        }),
        'admit at another door',
      );
    },
    async otherEventKey() {
      const other = must(
        await call(`${root}evt/events/v1/events`, {
          method: 'POST',
          auth: admin,
          body: { title: 'Another event', status: 'publish', start_date: '2030-02-01 18:00:00', end_date: '2030-02-01 23:00:00' },
        }),
        'create event',
      ) as { id: number };
      return (await srv.apiKey('Door of another event', other.id)).key;
    },
    async checkin(id) {
      const a = must(await call(`${root}evt/tickets/v1/attendees/${id}`, { auth: admin }), 'read attendee') as {
        checked_in: boolean;
        checkin_details: false | { device_id?: string | null };
      };
      return { checkedIn: a.checked_in, deviceId: a.checkin_details ? (a.checkin_details.device_id ?? null) : null };
    },
    close: () => srv.close(),
  };
}
