import type { RouteDef } from '../http/route.ts';
import { batchRoute } from '../routes/core.ts';
import { ticketsRoutes } from '../routes/tickets.ts';

/**
 * The API paths the kiosk calls, relative to the interface root (`evt/tickets/v1/attendees/5`), taken from
 * the project's route table so a route renamed there is renamed here too.
 */
function pathOf(route: Pick<RouteDef, 'namespace' | 'route'>, params: Record<string, number> = {}): string {
  const filled = route.route.replace(/\(\?P<(\w+)>[^)]*\)/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter ${name}`);
    return String(v);
  });
  return `${route.namespace}${filled}`.replace(/^\/+/, '');
}

/**
 * `evt/events/v1/events/{id}` (route `events.read`). Spelled out here because the events route table pulls
 * every event schema into the kiosk bundle; test/renderer/sync/paths.test.ts checks it against the table.
 */
export const EVENT_READ_ROUTE = { namespace: 'evt/events/v1', route: '/events/(?P<id>\\d+)' } as const;

export const kioskPaths = {
  event: (id: number) => pathOf(EVENT_READ_ROUTE, { id }),
  tickets: () => pathOf(ticketsRoutes.listTickets),
  attendees: () => pathOf(ticketsRoutes.listAttendees),
  attendee: (id: number) => pathOf(ticketsRoutes.readAttendee, { id }),
  /** Doorstep's own bulk first download (an older server or the original answers 404 `rest_no_route`). */
  doorSnapshot: () => pathOf(ticketsRoutes.doorSnapshot),
  batch: () => pathOf(batchRoute),
  /** The attendee write as a batch item addresses it: from the server root, with a leading slash. */
  attendeeInBatch: (id: number) => `/${pathOf(ticketsRoutes.updateAttendee, { id })}`,
  /** The check-in log's write (a scan the door refused on its own) as a batch item addresses it. */
  refusalInBatch: () => `/${pathOf(ticketsRoutes.recordScan)}`,
};
