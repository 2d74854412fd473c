import type { Db } from '../../server/db/connection.ts';
import { statement } from '../../server/db/connection.ts';
import { insertPost } from '../../server/db/repos/posts.ts';
import { EVENT_COL_DEFAULTS, insertEventCols } from '../../server/db/repos/events.ts';
import { getTicketRef, insertAttendeeRow, newSecurityCode } from '../../server/db/repos/attendees.ts';
import { insertOrderRow } from '../../server/db/repos/box-office.ts';

/**
 * Inserts an event, a ticket, one order and N attendees straight into the database (through the
 * repositories, no HTTP), for tests, the check-in bench and the demo. Everything is one transaction.
 */
export interface TicketsFixtureOptions {
  attendees?: number;
  provider?: 'rsvp' | 'tc';
  /** Ticket price in minor units (cents); RSVP tickets are free. */
  priceMinor?: number;
  currency?: string;
  capacity?: number;
  orderStatus?: 'completed' | 'pending' | 'refunded' | 'cancelled' | 'failed';
  eventStatus?: string;
  eventPassword?: string;
  eventTitle?: string;
  ticketTitle?: string;
  /** Event start, UTC `YYYY-MM-DD HH:MM:SS`; default tomorrow 18:00. */
  startUtc?: string;
  /** Name of attendee i (0-based). */
  name?: (i: number) => string;
}

export interface TicketsFixture {
  eventId: number;
  ticketId: number;
  orderId: number;
  attendeeIds: number[];
  /** Security code of each attendee, by attendee ID. */
  codes: Map<number, string>;
}

const nowParts = () => {
  const s = new Date().toISOString().slice(0, 19).replace('T', ' ');
  return { date: s, date_gmt: s };
};

export async function insertEvent(db: Db, o: { title?: string; status?: string; password?: string; startUtc?: string } = {}): Promise<number> {
  const dates = nowParts();
  const start = o.startUtc ?? `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} 18:00:00`;
  const end = new Date(new Date(`${start.replace(' ', 'T')}Z`).getTime() + 3 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  const id = await insertPost(db, 'event', {
    title: o.title ?? 'Door test event',
    status: o.status ?? 'publish',
    password: o.password ?? '',
    author: 1,
    ...dates,
  });
  await insertEventCols(db, id, { ...EVENT_COL_DEFAULTS, start_local: start, end_local: end, start_utc: start, end_utc: end, timezone: 'UTC' });
  return id;
}

export async function insertTicket(
  db: Db,
  eventId: number,
  o: { title?: string; provider?: 'rsvp' | 'tc'; priceMinor?: number; currency?: string; capacity?: number; sku?: string } = {},
): Promise<number> {
  const provider = o.provider ?? 'tc';
  const id = await insertPost(db, 'ticket', {
    title: o.title ?? 'General admission',
    content: 'Entry to the event',
    status: 'publish',
    parent: eventId,
    author: 1,
    ...nowParts(),
  });
  await statement(db, 'INSERT INTO tickets (post_id, event_id, provider, price_minor, currency, capacity, sku) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    id,
    eventId,
    provider,
    provider === 'rsvp' ? 0 : (o.priceMinor ?? 1500),
    o.currency ?? 'USD',
    o.capacity ?? -1,
    o.sku ?? `GA-${id}`,
  );
  return id;
}

/** Adds `count` attendees on one new order of `ticketId`. */
export async function insertAttendees(
  db: Db,
  ticketId: number,
  count: number,
  o: { orderStatus?: string; name?: (i: number) => string } = {},
): Promise<{ orderId: number; attendeeIds: number[]; codes: Map<number, string> }> {
  return await db.transaction(async () => {
    const t = (await getTicketRef(db, ticketId))!;
    const dates = nowParts();
    const name = o.name ?? ((i: number) => `Guest ${i + 1}`);
    const orderId = await insertOrderRow(db, {
      provider: t.provider,
      status: o.orderStatus ?? 'completed',
      name: name(0),
      email: 'buyer@example.test',
      userId: 0,
      totalMinor: t.price_minor * count,
      currency: t.currency,
      dates,
    });
    if (count > 0)
      await statement(db, 'INSERT INTO order_items (order_id, ticket_id, quantity, price_minor) VALUES (?, ?, ?, ?)').run(
        orderId,
        ticketId,
        count,
        t.price_minor,
      );
    const attendeeIds: number[] = [];
    const codes = new Map<number, string>();
    for (let i = 0; i < count; i++) {
      const fullName = name(i);
      const id = await insertPost(db, 'attendee', { title: fullName, status: 'publish', ...dates });
      const code = await newSecurityCode(db);
      await insertAttendeeRow(db, {
        postId: id,
        ticketId,
        eventId: t.event_id,
        orderId,
        provider: t.provider,
        fullName,
        email: `guest${i + 1}@example.test`,
        securityCode: code,
        priceMinor: t.price_minor,
        rsvpStatus: t.provider === 'rsvp' ? 'yes' : null,
      });
      attendeeIds.push(id);
      codes.set(id, code);
    }
    return { orderId, attendeeIds, codes };
  });
}

export async function seedTicketsFixture(db: Db, o: TicketsFixtureOptions = {}): Promise<TicketsFixture> {
  return await db.transaction(async () => {
    const eventId = await insertEvent(db, { title: o.eventTitle, status: o.eventStatus, password: o.eventPassword, startUtc: o.startUtc });
    const ticketId = await insertTicket(db, eventId, {
      title: o.ticketTitle,
      provider: o.provider,
      priceMinor: o.priceMinor,
      currency: o.currency,
      capacity: o.capacity,
    });
    const a = await insertAttendees(db, ticketId, o.attendees ?? 3, { orderStatus: o.orderStatus, name: o.name });
    return { eventId, ticketId, ...a };
  });
}
