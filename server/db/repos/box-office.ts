import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { insertPost } from './posts.ts';
import { insertAttendeeRow, newSecurityCode, type TicketRef } from './attendees.ts';

/**
 * A sale of one ticket outside the cart (box office, door registration, fixtures): an order of one line and
 * its attendee, so every attendee has an order whose status the check-in rules read.
 */
export interface BoxOfficeSale {
  ticket: TicketRef;
  fullName: string;
  email: string;
  orderStatus: string;
  rsvpStatus: 'yes' | 'no' | null;
  userId: number;
  /** Post dates (site-local and UTC `YYYY-MM-DD HH:MM:SS`). */
  dates: { date: string; date_gmt: string };
  securityCode?: string;
}

export async function insertOrderRow(
  db: Db,
  o: {
    provider: string;
    status: string;
    name: string;
    email: string;
    userId: number;
    totalMinor: number;
    currency: string;
    dates: { date: string; date_gmt: string };
  },
): Promise<number> {
  const id = await insertPost(db, 'order', { status: 'publish', author: o.userId, title: `Order for ${o.name}`, ...o.dates });
  await statement(
    db,
    `INSERT INTO orders (post_id, provider, status, purchaser_name, purchaser_email, user_id, total_minor, currency, created_utc, completed_utc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    o.provider,
    o.status,
    o.name,
    o.email,
    o.userId,
    o.totalMinor,
    o.currency,
    o.dates.date_gmt,
    o.status === 'completed' ? o.dates.date_gmt : null,
  );
  return id;
}

/** Returns the new attendee ID (its order is created first). */
export async function sellAtBoxOffice(db: Db, s: BoxOfficeSale): Promise<{ attendeeId: number; orderId: number }> {
  const t = s.ticket;
  const orderId = await insertOrderRow(db, {
    provider: t.provider,
    status: s.orderStatus,
    name: s.fullName,
    email: s.email,
    userId: s.userId,
    totalMinor: t.price_minor,
    currency: t.currency,
    dates: s.dates,
  });
  await statement(db, 'INSERT INTO order_items (order_id, ticket_id, quantity, price_minor) VALUES (?, ?, 1, ?)').run(orderId, t.id, t.price_minor);
  const attendeeId = await insertPost(db, 'attendee', { status: 'publish', author: s.userId, title: s.fullName, ...s.dates });
  await insertAttendeeRow(db, {
    postId: attendeeId,
    ticketId: t.id,
    eventId: t.event_id,
    orderId,
    provider: t.provider,
    fullName: s.fullName,
    email: s.email,
    securityCode: s.securityCode ?? (await newSecurityCode(db)),
    priceMinor: t.price_minor,
    rsvpStatus: s.rsvpStatus,
  });
  return { attendeeId, orderId };
}
