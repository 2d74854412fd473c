import type { Endpoint } from '../../http/registry.ts';
import { ticketEndpoints } from './tickets.ts';
import { cartEndpoints } from './cart.ts';
import { orderEndpoints } from './orders.ts';
import { attendeeEndpoints } from './attendees.ts';
import { checkinEndpoints } from './checkin.ts';
import { checkinLogEndpoints } from './checkins.ts';
import { qrEndpoints } from './qr.ts';
import { checkinListEndpoints } from './checkin-lists.ts';

/**
 * Handlers of `evt/tickets/v1`. Each file adds its own endpoints here: tickets, cart, checkout and orders
 * (tickets.ts and siblings) and attendees, check-in, QR and the check-in log (attendees.ts and siblings).
 */
export const ticketsEndpoints: Endpoint[] = [
  ...ticketEndpoints,
  ...cartEndpoints,
  ...orderEndpoints,
  ...attendeeEndpoints,
  ...checkinEndpoints,
  ...qrEndpoints,
  ...checkinLogEndpoints,
  ...checkinListEndpoints,
];
