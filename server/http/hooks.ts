import type { AppState, Ctx } from './context.ts';
import type { EventDecorator } from '../routes/events/present.ts';
import type { EventFilter } from '../routes/events/events.ts';

/**
 * Extension points between namespaces, installed once at start-up (see `install` in routes/index.ts):
 * Event Tickets decorates and filters events; mail listens for completed orders.
 */
export interface Hooks {
  /** Add fields to presented events (`ticketed`, `attendance`). */
  eventDecorators: EventDecorator[];
  /** Add conditions to the events archive query (`ticketed`). */
  eventFilters: EventFilter[];
  /** Called inside the transaction that completes an order (free checkout, or a pending order marked paid). */
  orderCompleted: ((ctx: Ctx, orderId: number) => void)[];
}

export function hooks(app: AppState): Hooks {
  let h = app.services.hooks as Hooks | undefined;
  if (!h) {
    h = { eventDecorators: [], eventFilters: [], orderCompleted: [] };
    app.services.hooks = h;
  }
  return h;
}
