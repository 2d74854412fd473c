/**
 * The differential harness's vocabulary. A scenario module is a list of requests written once, namespace-neutral:
 * the same list is sent to the original (`tribe/...`) and to Doorstep (`evt/...`).
 *
 * Placeholders, resolved per side in `path`, `query`, `json`, `form` and `headers` values:
 *   {E} events namespace (`tribe/events/v1` | `evt/events/v1`)     {T} tickets namespace
 *   {sym}            the ID that side gave the fixture saved as `sym` (see `save`)
 *   {nonce:ACTION:sym} a ticket-editor nonce (`add_ticket_nonce` for an event, `edit_ticket_nonce`/`remove_ticket_nonce`
 *                    for a ticket) for the administrator
 *   {code:sym}       the QR security code of an attendee     {apikey} the QR check-in API key
 *   {base}           the site's base URL (no trailing slash)  {Y1} next calendar year (fixture dates)
 */
export type Role = 'anon' | 'admin';

export interface Req {
  /** Unique across all scenarios; departures and known differences refer to it. */
  name: string;
  method?: string;
  /** Relative to the interface root `{base}/wp-json/`, without a leading slash ('' is the site index); with a leading slash, relative to the site base. */
  path: string;
  query?: Record<string, string | number | boolean | string[]>;
  json?: unknown;
  /** Form-encoded body (nested objects/arrays as PHP-style brackets). */
  form?: Record<string, unknown>;
  /** A raw body with its content type (multipart, malformed JSON...). */
  raw?: { type: string; body: string };
  as?: Role;
  headers?: Record<string, string>;
  /** Address through `{base}/?rest_route=/path` instead of `{base}/wp-json/path`. */
  restRoute?: boolean;
  /** Save `body.id` (string) or several JSON paths (`{sym: 'attendee.id'}`) as fixture symbols. */
  save?: string | Record<string, string>;
  /** Not compared (a fixture step whose answer is not a client-visible contract, e.g. a setup helper). */
  setupOnly?: boolean;
}

/** One answer, normalised (IDs as `@sym`, base URL as `{base}`, namespace as `{ns}`, dates near now as `<now>`). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface Diff {
  req: string;
  kind: 'status' | 'code' | 'missing-key' | 'extra-key' | 'key-order' | 'type' | 'length' | 'value' | 'header';
  path: string;
  original: unknown;
  doorstep: unknown;
}

export interface Departure {
  id: string;
  /** Regular expressions; a difference is excused when all given ones match. */
  match: { req?: string; path?: string; kind?: string };
  original: string;
  doorstep: string;
  why: string;
}

export type Namespace = 'events' | 'tickets' | 'core';
