import type { AppState, Caller, Ctx } from './context.ts';
import type { Result } from './result.ts';
import type { Condition } from '../db/repos/event-query.ts';
import type { EventRow } from '../db/repos/events.ts';

/** How an event is being presented (what a decorator may add depends on it). */
export interface PresentOpts {
  /** Single read: adds `json_ld`. */
  single?: boolean;
}

/** Adds fields other namespaces own (Event Tickets: `ticketed`, `attendance`) to presented events. */
export type EventDecorator = (ctx: Ctx, events: Record<string, unknown>[], rows: EventRow[], opts: PresentOpts) => void | Promise<void>;

/** Adds a condition to the events archive query from the request's parameters, or none. */
export type EventFilter = (input: Record<string, unknown>, ctx: Ctx) => Condition | null | Promise<Condition | null>;

/**
 * Extension points between namespaces, installed once at start-up (see `install` in routes/index.ts):
 * Event Tickets decorates and filters events; mail listens for completed orders.
 */
export interface Hooks {
  /** Add fields to presented events (`ticketed`, `attendance`). */
  eventDecorators: EventDecorator[];
  /**
   * Called as a single event's read starts, before the event is loaded, where early reads are allowed (a plain GET
   * on PostgreSQL outside a transaction: present-cache.ts startsEarly): a decorator's own read can start then, in
   * the round trip of the event's (Db.together), and the decorator takes its answer (event-hooks.ts). Nothing may
   * be written.
   */
  eventPrefetch: ((ctx: Ctx, eventId: number) => void)[];
  /** Add conditions to the events archive query (`ticketed`). */
  eventFilters: EventFilter[];
  /** Called inside the transaction that completes an order (free checkout, or a pending order marked paid). */
  orderCompleted: ((ctx: Ctx, orderId: number) => void | Promise<void>)[];
  /**
   * WordPress `rest_post_dispatch`/`rest_pre_serve_request`: sees every REST answer (errors included) before
   * it is written, and may replace it (oEmbed XML) or just observe it (analytics).
   */
  restResponse: RestResponseFilter[];
  /** Run when the app closes (flush buffers before the database closes). */
  onClose: ((state: AppState) => void | Promise<void>)[];
}

/** What a response filter knows about the request it answers. */
export interface RestExchange {
  method: string;
  /** The route as requested, e.g. `/evt/events/v1/events/12`. */
  route: string;
  /** The matched route pattern, when one matched. */
  matched?: string;
  query: Record<string, unknown>;
  caller: Caller;
  ip: string;
  headers: Record<string, string | string[] | undefined>;
}

export type RestResponseFilter = (state: AppState, exchange: RestExchange, result: Result) => Result | Promise<Result>;

/** Runs the response filters in registration order. */
export async function filterRestResponse(state: AppState, exchange: RestExchange, result: Result): Promise<Result> {
  let out = result;
  for (const f of hooks(state).restResponse) out = await f(state, exchange, out);
  return out;
}

export function hooks(app: AppState): Hooks {
  let h = app.services.hooks;
  if (!h) {
    h = { eventDecorators: [], eventPrefetch: [], eventFilters: [], orderCompleted: [], restResponse: [], onClose: [] };
    app.services.hooks = h;
  }
  return h;
}
