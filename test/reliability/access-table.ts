import { ROLE_CAPS, type Permission, type Role } from '../../shared/auth.ts';
import { NAMESPACES } from '../../server/routes/index.ts';
import { batch, siteIndex } from '../../server/http/core-routes.ts';

/**
 * The callers of the access table, and what each may do (CONTRACT section 3). `other event key` is a door key
 * made with `--event N` for an event that holds none of the table's objects: it must be refused, or shown
 * nothing, wherever another event's tickets, attendees, orders, check-ins or QR images are concerned.
 */
export type Caller = 'anonymous' | 'revoked key' | 'door key' | 'other event key' | 'door user' | 'organizer' | 'administrator';
export const CALLERS: readonly Caller[] = ['anonymous', 'revoked key', 'door key', 'other event key', 'door user', 'organizer', 'administrator'];

const ROLE_OF: Record<Caller, Role | null> = {
  anonymous: null,
  'revoked key': null,
  'door key': 'door',
  'other event key': 'door',
  'door user': 'door',
  organizer: 'organizer',
  administrator: 'administrator',
};

/**
 * The permission of each `METHOD /ns/route` of the site index, from the same table the server serves.
 * Namespace indexes and `/doc` are generated and public.
 */
export function permissionTable(namespaces: readonly string[]): Map<string, Permission> {
  const m = new Map<string, Permission>();
  for (const e of [siteIndex, batch]) for (const method of e.def.methods) m.set(`${method} ${e.def.route}`, e.def.permission);
  for (const ns of namespaces) for (const r of [`/${ns}`, `/${ns}/doc`]) m.set(`GET ${r}`, 'public');
  for (const { ns } of NAMESPACES) {
    for (const def of ns.routes)
      for (const method of def.methods) m.set(`${method} /${def.namespace}${def.route === '/' ? '' : def.route}`, def.permission);
  }
  return m;
}

export interface Answer {
  status: number;
  code: string | null;
}

/**
 * Writes an organizer may make only on what it authored (CONTRACT section 3): the events namespace's writes of
 * one event, venue, organizer or term, by ID or slug; the search meta of one post (`seo/v1/meta/{id}`); and
 * `eventWrite` routes (an event's tickets, attendees, orders, opt-ins).
 */
export function ownedWrite(method: string, route: string): boolean {
  if (method === 'GET') return false;
  return (
    /^\/evt\/events\/v1\/(events|venues|organizers|categories|tags)\/(\(\?P<id>|by-slug\/)/.test(route) ||
    /^\/seo\/v1\/meta\/\(\?P<id>/.test(route) ||
    eventWrite(method, route)
  );
}

/**
 * Writes on what hangs off one event: its tickets (create, edit, delete), its attendees (create at the door,
 * edit, check in), its orders and its attendees' marketing opt-in. An organizer makes them only on events it
 * authored, a key bound to an event only on that event (CONTRACT section 3).
 */
export function eventWrite(method: string, route: string): boolean {
  if (method === 'GET') return false;
  return (
    /^\/evt\/tickets\/v1\/(tickets|attendees)(\/\(\?P<id>[^)]*\))?$/.test(route) ||
    /^\/evt\/tickets\/v1\/orders\/\(\?P<id>/.test(route) ||
    route === '/marketing/v1/opt-ins'
  );
}

const PARAM_ERRORS = new Set(['rest_missing_callback_param', 'rest_invalid_param']);

/**
 * Whether an answer is one the contract allows this caller on a route with this permission, or why not.
 * Parameter errors come before permission (the original's order), so a 400 of that kind is allowed to
 * anyone; `paramStatus` is what the administrator got, which it must match.
 */
export function allowed(caller: Caller, permission: Permission, a: Answer, othersObject = false): string | null {
  if (a.status >= 500) return `${a.status} ${a.code}`;
  if (a.status === 400 && a.code && PARAM_ERRORS.has(a.code)) return null;
  if (caller === 'revoked key') return a.status === 401 ? null : `revoked key got ${a.status} ${a.code}, not 401`;
  if (permission === 'public') return null;
  const role = ROLE_OF[caller];
  // An organizer changes only what it authored (CONTRACT section 3): on another author's object, 403. A key
  // bound to another event may not touch this one's objects either (hidden ones answer 404, which passes here).
  const foreign = othersObject && (role === 'organizer' || caller === 'other event key');
  const may = role !== null && (permission === 'authenticated' || ROLE_CAPS[role].includes(permission)) && !foreign;
  if (!may) {
    if (foreign && caller === 'other event key' && a.status === 404) return null;
    const want = role === null ? 401 : 403;
    const why = foreign ? `on another ${caller === 'organizer' ? "author's" : "event's"} object` : `without ${permission}`;
    return a.status === want && a.code === 'rest_forbidden' ? null : `${caller} ${why} got ${a.status} ${a.code}, not ${want} rest_forbidden`;
  }
  return a.code === 'rest_forbidden' ? `${caller} with ${permission} refused: ${a.status} ${a.code}` : null;
}

/** An expected answer of a rule below: the status, and the error code when it is an error. */
export interface Expect {
  status: number;
  code?: string;
}

const refusal = (rest: Expect, caller: Caller): Expect =>
  caller === 'anonymous' || caller === 'revoked key' ? { status: 401, code: 'rest_forbidden' } : rest;

/** The objects the rules write to: an event the administrator authored, its ticket, attendee and order. */
export interface RuleTargets {
  eventId: number;
  ticketId: number;
  attendeeId: number;
  orderId: number;
  /** The caller's add_ticket_nonce for the event, when it is shown one. */
  addTicketNonce?: string;
}

export interface AccessRule {
  name: string;
  request: (t: RuleTargets) => { method: string; path: string; body: Record<string, unknown> };
  expect: (caller: Caller) => Expect;
}

const forbidden403: Expect = { status: 403, code: 'rest_forbidden' };
const hidden404: Expect = { status: 404, code: 'attendee-not-found' };

/**
 * Rules the route-by-route sweep cannot see, because they hang on the body or on whose object it is (CONTRACT
 * section 3): door callers change check-in state only; an organizer changes only its own events' tickets,
 * attendees and orders; a key bound to another event reaches none of this event's attendees. Every target is
 * the administrator's. Each rule is run by every caller, the administrator last.
 */
export const RULES: readonly AccessRule[] = [
  ...(['full_name', 'email', 'attendee_status', 'ticket_id', 'order_status'] as const).map(
    (field): AccessRule => ({
      name: `attendee ${field} edit`,
      request: (t) => ({
        method: 'PATCH',
        path: `evt/tickets/v1/attendees/${t.attendeeId}`,
        body: {
          [field]: {
            full_name: 'Renamed Guest',
            email: 'renamed@example.test',
            attendee_status: 'completed',
            ticket_id: t.ticketId,
            order_status: 'completed',
          }[field],
        },
      }),
      expect: (c) => (c === 'administrator' ? { status: 201 } : c === 'other event key' ? hidden404 : refusal(forbidden403, c)),
    }),
  ),
  {
    name: 'attendee check-out (check-in state)',
    request: (t) => ({ method: 'PATCH', path: `evt/tickets/v1/attendees/${t.attendeeId}`, body: { check_in: false, device_id: 'access-table' } }),
    expect: (c) =>
      c === 'administrator' || c === 'door key' || c === 'door user'
        ? { status: 201 }
        : c === 'other event key'
          ? hidden404
          : refusal(forbidden403, c),
  },
  {
    name: 'door registration with a non-default attendee_status',
    request: (t) => ({
      method: 'POST',
      path: 'evt/tickets/v1/attendees',
      body: { ticket_id: t.ticketId, full_name: 'Pending Guest', email: 'pending@example.test', attendee_status: 'pending' },
    }),
    expect: (c) => (c === 'administrator' ? { status: 201 } : refusal(forbidden403, c)),
  },
  {
    name: 'door registration',
    request: (t) => ({
      method: 'POST',
      path: 'evt/tickets/v1/attendees',
      body: { ticket_id: t.ticketId, full_name: 'Walk-in Guest', email: 'walkin@example.test' },
    }),
    expect: (c) => (c === 'administrator' || c === 'door key' || c === 'door user' ? { status: 201 } : refusal(forbidden403, c)),
  },
  {
    name: 'order status',
    request: (t) => ({ method: 'PATCH', path: `evt/tickets/v1/orders/${t.orderId}`, body: { status: 'completed' } }),
    expect: (c) => (c === 'administrator' ? { status: 200 } : refusal(forbidden403, c)),
  },
  {
    name: "ticket created on another author's event",
    request: (t) => ({
      method: 'POST',
      path: 'evt/tickets/v1/tickets',
      body: { post_id: t.eventId, add_ticket_nonce: t.addTicketNonce ?? 'none', provider: 'rsvp', name: 'Access table' },
    }),
    // Without edit rights the original's nonce refusal answers (reference: `403 forbidden`, even anonymous).
    expect: (c) =>
      c === 'administrator'
        ? { status: 202 }
        : c === 'organizer'
          ? forbidden403
          : c === 'revoked key'
            ? { status: 401, code: 'rest_forbidden' }
            : { status: 403, code: 'forbidden' },
  },
  {
    name: 'marketing opt-in',
    request: (t) => ({ method: 'POST', path: 'marketing/v1/opt-ins', body: { attendee_id: t.attendeeId, consent: true } }),
    expect: (c) =>
      c === 'administrator' || c === 'door key' || c === 'door user'
        ? { status: 201 }
        : c === 'other event key'
          ? { status: 400, code: 'rest_invalid_param' }
          : refusal(forbidden403, c),
  },
];
