import { ticketsRoutes } from '../../shared/routes/tickets.ts';
import { batchRoute } from '../../shared/routes/core.ts';
import type { RouteDef } from '../../shared/http/route.ts';
import { HttpError } from '../kernel/errors.ts';

/**
 * A venue hub is a mirror of the site for the doors: it takes check-ins, check-outs and refused scans, and nothing
 * else is written there. An event, ticket, order or attendee made at the hub would take an ID the site hands out to
 * something else, and an edit there would be undone by the next pull; so every other write is refused, with where to
 * make it instead. Reads are all served (from the mirror).
 */
const CHECKIN_FIELDS = new Set(['id', 'check_in', 'check_in_date', 'device_id', 'nonce', 'list_id']);

export function hubWriteRefusal(def: RouteDef, method: string, input: Record<string, unknown>): HttpError | null {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return null;
  // A batch is let through; its items are each judged here as they are dispatched.
  if (def.id === batchRoute.id || def.id === ticketsRoutes.recordScan.id) return null;
  if (def.id === ticketsRoutes.updateAttendee.id && Object.keys(input).every((k) => CHECKIN_FIELDS.has(k) || input[k] === undefined)) return null;
  return new HttpError(
    403,
    'evt_hub_read_only',
    'This server is a venue hub: it takes check-ins only. Make this change on the site; the hub brings it down at its next pull.',
  );
}
