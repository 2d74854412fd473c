import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';
import type { SigningKeyRow } from './signing-keys.ts';

/**
 * What a ticket e-mail needs about an order, read straight from the tickets tables (migration 002) so the
 * mail module does not depend on how the tickets repositories shape their objects.
 */

export interface OrderForMail {
  id: number;
  status: string;
  purchaser_name: string;
  purchaser_email: string;
  total_minor: number;
  currency: string;
}

export interface AttendeeForMail {
  id: number;
  ticket_id: number;
  event_id: number;
  full_name: string;
  email: string;
  security_code: string;
  ticket_title: string;
  ticket_title_et: string | null;
  event_title: string;
  event_title_et: string | null;
  start_local: string | null;
  all_day: number | null;
  timezone: string | null;
}

/** What a ticket e-mail is made of: the order, its admitted attendees and their events' current signing keys. */
export interface OrderMail {
  order: OrderForMail;
  /** The order's ticket e-mail was logged already (an order mails its tickets once; staff resend from the log). */
  logged: boolean;
  /** The admitted attendees (RSVP "not going" and trashed ones have no ticket to show), in ID order. */
  attendees: AttendeeForMail[];
  /** Each attendee's event's current signing key, where the event has one yet. */
  keys: Map<number, SigningKeyRow>;
}

type MailRow = AttendeeForMail & {
  order_status: string;
  purchaser_name: string;
  purchaser_email: string;
  total_minor: number;
  currency: string;
  logged: number | boolean;
  k_id: number | null;
  k_kid: string | null;
  k_public_key: string | null;
  k_private_box: string | null;
  k_created_ms: number | string | null;
};

const ORDER_MAIL_COLS = `o.status AS order_status, o.purchaser_name, o.purchaser_email, o.total_minor, o.currency,
  EXISTS (SELECT 1 FROM mail_log WHERE source = 'tickets' AND related_id = o.post_id) AS logged,
  a.post_id AS id, a.ticket_id, a.event_id, a.full_name, a.email, a.security_code,
  t.title AS ticket_title, t.title_et AS ticket_title_et, e.title AS event_title, e.title_et AS event_title_et,
  ev.start_local, ev.all_day, ev.timezone,
  k.id AS k_id, k.kid AS k_kid, k.public_key AS k_public_key, k.private_box AS k_private_box, k.created_ms AS k_created_ms`;
const ORDER_MAIL_TAIL = `o.post_id = ? AND ap.status != 'trash' AND (a.rsvp_status IS NULL OR a.rsvp_status = 'yes')
ORDER BY a.post_id`;

const ORDER_MAIL_HEAD = `SELECT ${ORDER_MAIL_COLS}
FROM orders o
JOIN attendees a ON a.order_id = o.post_id
JOIN posts ap ON ap.id = a.post_id`;

const ORDER_MAIL = `${ORDER_MAIL_HEAD}
LEFT JOIN posts t ON t.id = a.ticket_id
LEFT JOIN posts e ON e.id = a.event_id
LEFT JOIN events ev ON ev.post_id = a.event_id
LEFT JOIN evt_signing_keys k ON k.event_id = a.event_id AND k.retired_ms IS NULL
WHERE ${ORDER_MAIL_TAIL}`;

/**
 * PostgreSQL: the same, with each by-key lookup fenced (LATERAL ... OFFSET 0, as attendees.ts PG_CORE_JOINS), so
 * the planner orders three relations instead of seven. Where an order's attendee count is skewed (one large order
 * in the statistics), PostgreSQL keeps a custom plan for every call, and planning the seven-way join was a third of
 * a checkout's PostgreSQL CPU (1.3-1.5 ms a plan on a quiet cluster; 0.32-0.38 ms fenced).
 */
const PG_ORDER_MAIL = `${ORDER_MAIL_HEAD}
LEFT JOIN LATERAL (SELECT title, title_et FROM posts WHERE posts.id = a.ticket_id OFFSET 0) t ON true
LEFT JOIN LATERAL (SELECT title, title_et FROM posts WHERE posts.id = a.event_id OFFSET 0) e ON true
LEFT JOIN LATERAL (SELECT start_local, all_day, timezone FROM events WHERE events.post_id = a.event_id OFFSET 0) ev ON true
LEFT JOIN LATERAL (SELECT * FROM evt_signing_keys WHERE evt_signing_keys.event_id = a.event_id AND evt_signing_keys.retired_ms IS NULL OFFSET 0) k ON true
WHERE ${ORDER_MAIL_TAIL.replace('?', '$1')}`;

/**
 * The order, its admitted attendees and their signing keys in one statement (a checkout composes the mail inside
 * its transaction: each statement is a round trip on PostgreSQL). `undefined` when the order does not exist or
 * has no attendee to mail.
 */
export async function orderMail(db: Db, orderId: number): Promise<OrderMail | undefined> {
  const rows = (
    db.engine === 'postgres' ? await (db as PgDb).native(PG_ORDER_MAIL, [orderId]) : await statement(db, ORDER_MAIL).all(orderId)
  ) as MailRow[];
  const first = rows[0];
  if (!first) return undefined;
  const keys = new Map<number, SigningKeyRow>();
  const attendees = rows.map((r) => {
    const {
      order_status: _s,
      purchaser_name: _n,
      purchaser_email: _e,
      total_minor: _t,
      currency: _c,
      logged: _l,
      k_id,
      k_kid,
      k_public_key,
      k_private_box,
      k_created_ms,
      ...a
    } = r;
    // PostgreSQL hands bigint columns back as text: numbers at this edge.
    a.id = Number(a.id);
    a.ticket_id = Number(a.ticket_id);
    a.event_id = Number(a.event_id);
    if (k_id !== null && k_kid !== null && k_public_key !== null && k_private_box !== null)
      keys.set(a.event_id, {
        id: Number(k_id),
        event_id: Number(a.event_id),
        kid: k_kid,
        public_key: k_public_key,
        private_box: k_private_box,
        created_ms: Number(k_created_ms),
        retired_ms: null,
        revoked_ms: null,
      });
    return a;
  });
  return {
    order: {
      id: orderId,
      status: first.order_status,
      purchaser_name: first.purchaser_name,
      purchaser_email: first.purchaser_email,
      total_minor: Number(first.total_minor),
      currency: first.currency,
    },
    logged: first.logged === 1 || first.logged === true,
    attendees,
    keys,
  };
}
