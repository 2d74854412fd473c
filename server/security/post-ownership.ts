import type { Ctx } from '../kernel/context.ts';
import { can } from '../kernel/context.ts';
import { ticketEventId } from '../db/repos/tickets.ts';
import { attendeeEventId } from '../db/repos/attendees.ts';
import type { PostRow } from '../db/repos/posts.ts';
import { orderItems } from '../db/repos/orders.ts';
import { isAdministrator, mayChangeAuthored, mayChangeEvent } from './ownership.ts';

/**
 * Whether the caller may change post `p` of any type, for the auxiliary namespaces that write something onto a
 * post (its search meta, a file attached to it). The rules of CONTRACT section 3, by type:
 * - an event, a venue or an organizer: its author (or an administrator), as `mayChangeEvent` decides;
 * - a ticket or attendee: the event it belongs to; an order: every event its tickets are for (an order with
 *   no tickets is the administrator's), as the tickets namespace decides;
 * - a form or submission: site-wide content, anyone with `manage_forms`;
 * - anything else (attachments, unknown types): administrators only.
 */
export async function mayChangePost(ctx: Pick<Ctx, 'caller' | 'db'>, p: Pick<PostRow, 'id' | 'type' | 'author'>): Promise<boolean> {
  if (isAdministrator(ctx)) return true;
  switch (p.type) {
    // The row's own author: an event's is what mayChangeEvent would read again.
    case 'event':
    case 'venue':
    case 'organizer':
      return mayChangeAuthored(ctx, p.author);
    case 'ticket': {
      const eventId = await ticketEventId(ctx.db, p.id);
      return eventId !== undefined && (await mayChangeEvent(ctx, eventId));
    }
    case 'attendee': {
      const eventId = await attendeeEventId(ctx.db, p.id);
      return eventId !== undefined && (await mayChangeEvent(ctx, eventId));
    }
    case 'order': {
      const events = new Set((await orderItems(ctx.db, [p.id])).map((i) => i.event_id));
      if (events.size === 0) return false;
      for (const e of events) if (!(await mayChangeEvent(ctx, e))) return false;
      return true;
    }
    case 'form':
    case 'submission':
      return can(ctx, 'manage_forms');
    default:
      return false;
  }
}
