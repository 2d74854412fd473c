import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';

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

/** The order, and whether its ticket e-mail was already logged (an order mails its tickets once; staff resend). */
export async function orderForMail(db: Db, orderId: number): Promise<(OrderForMail & { logged: boolean }) | undefined> {
  const row = (await statement(
    db,
    `SELECT post_id AS id, status, purchaser_name, purchaser_email, total_minor, currency,
            EXISTS (SELECT 1 FROM mail_log WHERE source = 'tickets' AND related_id = orders.post_id) AS logged
     FROM orders WHERE post_id = ?`,
  ).get(orderId)) as (OrderForMail & { logged: number }) | undefined;
  if (!row) return undefined;
  const { logged, ...order } = row;
  return { ...order, logged: logged === 1 };
}

/** The order's admitted attendees (RSVP "not going" and trashed ones have no ticket to show), in ID order. */
export async function attendeesForMail(db: Db, orderId: number): Promise<AttendeeForMail[]> {
  return (await statement(
    db,
    `SELECT a.post_id AS id, a.ticket_id, a.event_id, a.full_name, a.email, a.security_code,
            t.title AS ticket_title, t.title_et AS ticket_title_et, e.title AS event_title, e.title_et AS event_title_et,
            ev.start_local, ev.all_day, ev.timezone
     FROM attendees a
     JOIN posts ap ON ap.id = a.post_id
     LEFT JOIN posts t ON t.id = a.ticket_id
     LEFT JOIN posts e ON e.id = a.event_id
     LEFT JOIN events ev ON ev.post_id = a.event_id
     WHERE a.order_id = ? AND ap.status != 'trash' AND (a.rsvp_status IS NULL OR a.rsvp_status = 'yes')
     ORDER BY a.post_id`,
  ).all(orderId)) as AttendeeForMail[];
}
