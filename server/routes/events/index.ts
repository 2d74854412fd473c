import type { Endpoint } from '../../http/registry.ts';
import { eventEndpoints } from './events.ts';
import { organizerEndpoints, venueEndpoints } from './linked-routes.ts';
import { categoryEndpoints, tagEndpoints } from './terms.ts';

/** Handlers of every route of `evt/events/v1`. */
export const eventsEndpoints: Endpoint[] = [...eventEndpoints, ...venueEndpoints, ...organizerEndpoints, ...categoryEndpoints, ...tagEndpoints];
