import type { Endpoint } from '../../http/registry.ts';

/**
 * Handlers of `evt/tickets/v1`. Each file adds its own endpoints here: tickets, cart, checkout and orders
 * (tickets.ts and siblings) and attendees, check-in, QR and the check-in log (attendees.ts and siblings).
 */
export const ticketsEndpoints: Endpoint[] = [];
