import { z } from 'zod';
import { any, array, boolean, custom, enumString, idList, integer, MAX_SEARCH_CHARS, object, string, stringList } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';
import { QREcho, ticketsDocSchemas } from '../models/tickets.ts';
import { checkinListDocSchemas } from '../models/checkin-lists.ts';
import { checkinListRoutes } from './checkin-lists.ts';

/**
 * The `evt/tickets/v1` route table: Event Tickets' routes (tickets, attendees, cart, QR) plus the kiosk's
 * extensions (check-in fields on attendee writes, the check-in log, checkout and orders). Handlers live in
 * server/routes/tickets/.
 */

export const TICKETS_NS = 'evt/tickets/v1';
const ns = TICKETS_NS;
const tl = { translation_language: translationLanguage };

const dateArg = (description: string) => string({ description, extra: { format: 'date-time' } });
const id = (description: string) => integer({ description, required: true, in: 'path', minimum: 1 });
/** As the original (`absint`, then 1 for 0): `page=0` or a word is the first page; past the last page is 400. */
const page = custom(
  z.unknown().transform((v): number => {
    const n = Math.abs(Number.parseInt(String(Array.isArray(v) ? v[0] : v), 10));
    return Number.isSafeInteger(n) && n >= 1 ? n : 1;
  }),
  z.number().int().min(1),
  { description: 'The page of results to return; defaults to 1', default: 1 },
);
const perPage = integer({
  description: 'The number of results to return on each page; defaults to 3 (at most 100)',
  default: 3,
  minimum: 1,
  maximum: 100,
});
/**
 * The most attendees in one door snapshot answer: 20 requests for 100,000 instead of 1,000 pages of 100, while
 * one answer stays a couple of megabytes (issue 22).
 */
export const DOOR_SNAPSHOT_LIMIT = 5000;
/**
 * The door snapshot's compact form (`form=rows`): each attendee an array of these fields in this order (as the
 * object form names them), its `ticket` object given once per ticket in `tickets` by ticket ID. A third of the
 * object form's bytes, and no repeated keys to build, send and parse on either end (issue 22).
 */
export const DOOR_SNAPSHOT_ROW_FIELDS = [
  'id',
  'post_id',
  'ticket_id',
  'status',
  'title',
  'email',
  'checked_in',
  'checkin_details',
  'security_code_hash',
  'order_status',
] as const;
const order = enumString(['ASC', 'DESC'], { description: 'Sort results in ASC or DESC order; defaults to ASC', default: 'ASC' as const });

export const ticketListArgs = {
  page,
  per_page: perPage,
  search: string({
    description: 'Limit results to tickets containing the specified string in the title or description',
    maxLength: MAX_SEARCH_CHARS,
  }),
  offset: integer({ description: 'Offset the results by a specific number of items', minimum: 0 }),
  order,
  orderby: enumString(['id', 'include', 'title', 'slug'], { description: 'Sort results by the specified field', default: 'title' as const }),
  is_available: boolean({ description: 'Limit results to tickets that have or do not have capacity currently available' }),
  provider: stringList({
    description: 'Limit results to tickets provided by one of the providers specified in the CSV list or array; defaults to all',
  }),
  after: dateArg('Limit results to tickets created on or after the specified UTC date or timestamp'),
  before: dateArg('Limit results to tickets created on or before the specified UTC date or timestamp'),
  include: idList({ description: 'Limit results to a specific CSV list or array of ticket IDs' }),
  exclude: idList({ description: 'Exclude a specific CSV list or array of ticket IDs from the results' }),
  include_post: idList({ description: 'Limit results to tickets that are assigned to one of the posts specified in the CSV list or array' }),
  exclude_post: idList({ description: 'Limit results to tickets that are not assigned to any of the posts specified in the CSV list or array' }),
  attendees_min: integer({ description: 'Limit results to tickets that have at least this number of attendees', minimum: 0 }),
  attendees_max: integer({ description: 'Limit results to tickets that have at most this number of attendees', minimum: 0 }),
  checkedin_min: integer({ description: 'Limit results to tickets that have at least this number of checked-in attendees', minimum: 0 }),
  checkedin_max: integer({ description: 'Limit results to tickets that have at most this number of checked-in attendees', minimum: 0 }),
  capacity_min: integer({ description: 'Limit results to tickets that have at least this capacity', minimum: -1 }),
  capacity_max: integer({ description: 'Limit results to tickets that have at most this capacity', minimum: -1 }),
  available_from: dateArg('Limit results to tickets that are available from this UTC date or timestamp'),
  available_until: dateArg('Limit results to tickets that are available up to this UTC date or timestamp'),
  post_status: stringList({
    description:
      'Limit results to tickets assigned to posts that are in one of the post statuses specified in the CSV list or array; defaults to publish',
    default: ['publish'],
  }),
  status: stringList({
    description: 'Limit results to tickets that are in one of the statuses specified in the CSV list or array; defaults to publish',
    default: ['publish'],
  }),
  currency: stringList({ description: 'Limit results to tickets priced in one of the 3-letter currency codes specified in the CSV list or array' }),
  attendee_information_available: boolean({
    description:
      'Limit results to tickets that provide attendees the possibility to fill in additional information or not; requires the extended ticketing add-on',
  }),
  door: boolean({
    description:
      'Door devices (attendee managers only): each ticket without its embedded attendee list (`attendees: []`; the door downloads attendees from the attendee list), the other fields as in the full object',
  }),
  ...tl,
};

const ticketFields = {
  name: string({ description: 'The ticket name', default: '' }),
  description: string({ description: 'The ticket description', default: '' }),
  price: string({ description: 'The ticket price (a decimal number; blank means free)', default: '' }),
  show_description: string({ description: 'Whether to show the description: yes or no', default: 'yes' }),
  start_date: string({ description: 'Start of sale, date (YYYY-MM-DD)', default: '' }),
  start_time: string({ description: 'Start of sale, time (HH:MM[:SS])', default: '' }),
  end_date: string({ description: 'End of sale, date (YYYY-MM-DD)', default: '' }),
  end_time: string({ description: 'End of sale, time (HH:MM[:SS])', default: '' }),
  sku: string({ description: 'The ticket SKU', default: '' }),
  iac: string({ description: 'Individual attendee collection: none, allowed or required', default: '' }),
  ticket: object({ description: 'Ticket settings, e.g. {"capacity": 100} (-1 or empty: unlimited), sale_price' }),
  currency: string({ description: 'The 3-letter currency code of the price (default USD)' }),
};

export const attendeeListArgs = {
  page,
  per_page: perPage,
  provider: stringList({
    description: 'Limit results to attendees whose ticket is provided by one of the providers specified in the CSV list or array; defaults to all',
  }),
  search: string({
    description: 'Limit results to attendees containing the specified string in the title or description',
    maxLength: MAX_SEARCH_CHARS,
  }),
  offset: integer({ description: 'Offset the results by a specific number of items', minimum: 0 }),
  order,
  orderby: enumString(['id', 'date', 'include', 'title', 'slug'], { description: 'Sort results by the specified field', default: 'id' as const }),
  post_id: integer({ description: 'Limit results to attendees by the post the ticket is associated with', style: 'callback', minimum: 1 }),
  ticket_id: integer({ description: 'Limit results to attendees associated with a ticket', minimum: 1 }),
  after: dateArg('Limit results to attendees created on or after the specified UTC date or timestamp'),
  before: dateArg('Limit results to attendees created on or before the specified UTC date or timestamp'),
  include: idList({ description: 'Limit results to a specific CSV list or array of attendee IDs' }),
  exclude: idList({ description: 'Exclude a specific CSV list or array of attendee IDs from the results' }),
  price_max: integer({ description: 'Limit results to attendees that paid tickets a price equal or below the specified value', minimum: 0 }),
  price_min: integer({ description: 'Limit results to attendees that paid tickets a price equal or above the specified value', minimum: 0 }),
  include_post: idList({ description: 'Limit results to attendees whose ticket is assigned to one of the posts specified in the CSV list or array' }),
  exclude_post: idList({
    description: 'Limit results to attendees whose tickets is not assigned any of the posts specified in the CSV list or array',
  }),
  include_ticket: idList({ description: 'Limit results to a specific CSV list or array of ticket IDs' }),
  exclude_ticket: idList({ description: 'Exclude a specific CSV list or array of ticket IDs' }),
  post_status: stringList({
    description: 'Limit results to attendees for posts in one of these statuses; defaults to publish',
    default: ['publish'],
  }),
  status: stringList({ description: 'Limit results to attendees in one of these statuses; defaults to publish', default: ['publish'] }),
  order_status: stringList({
    description: 'Limit results to attendees whose order is in one of these statuses; defaults to public',
    default: ['public'],
  }),
  checkedin: boolean({ description: 'Limit results to attendees that are or are not checked in' }),
  rsvp_going_status: stringList({ description: 'Limit results to RSVP attendees with this going status: yes, no' }),
  attendee_information_available: boolean({
    description:
      'Limit results to attendees for tickets that provide attendees the possibility to fill in additional information or not; requires the extended ticketing add-on',
  }),
  name: string({ description: 'Limit results to attendees whose name matches (LIKE)', maxLength: MAX_SEARCH_CHARS }),
  email: string({ description: 'Limit results to attendees whose e-mail matches (LIKE)', maxLength: MAX_SEARCH_CHARS }),
  changed_since: integer({
    description: 'Only attendees changed after this cursor (from X-EVT-Cursor), in ID order, trashed ones as status "trash"',
    minimum: 0,
  }),
  door: boolean({
    description:
      'Door devices (attendee managers only): each attendee with only what a door keeps (id, post_id, ticket_id, status, title, email, ticket id and title, checked_in, checkin_details, security_code, order_status), the same values as in the full object',
  }),
  ...tl,
};

/** Check-in fields the kiosk sends on attendee writes (CONTRACT section 7). */
const checkinFields = {
  check_in: boolean({ description: 'Check the attendee in (true) or out (false)' }),
  check_in_date: dateArg('The moment of the scan on the device (ISO 8601 with offset)'),
  device_id: string({ description: 'The scanning device', maxLength: 200 }),
  nonce: string({
    description: 'A client-made unique string per scan (at least 16 characters): a retry with the same nonce records nothing twice',
    minLength: 16,
    maxLength: 200,
  }),
};

const email = custom(
  z
    .string()
    .trim()
    .pipe(z.email({ error: 'Invalid email.' })),
  z.string(),
  // Event Tickets checks it in a validate callback: a failure is "Invalid parameter." with no details.
  { description: 'The attendee e-mail address', required: true, style: 'callback', extra: { format: 'email' } },
);

const write = { batch: true as const };
const ok = (description: string, schema?: string) => ({ '200': { description, ...(schema ? { schema } : {}) } });
/** The editor routes check their nonce in the handler: 401 for a caller who may not edit, 403 for a bad nonce. */
const editorDoc = (description: string, schema: string | z.ZodType) => ({
  responses: {
    '202': { description, schema },
    '401': { description: 'The ticket or event is not accessible to the caller (`ticket-not-accessible`).' },
    '403': { description: 'The nonce is missing or invalid (`forbidden`), or the caller may not edit tickets of this event.' },
    '404': { description: 'No such ticket or event.' },
  },
});

export const ticketsRoutes = {
  readTicket: defineRoute({
    id: 'tickets.read',
    namespace: ns,
    route: '/tickets/(?P<id>\\d+)',
    methods: ['GET'],
    permission: 'public',
    // Event Tickets checks the ID in a validate callback: 0 is "Invalid parameter." with no details.
    args: { id: integer({ description: 'The ticket ID', required: true, in: 'path', minimum: 1, style: 'callback' }), ...tl },
    summary: 'Returns a single ticket data',
    doc: {
      responses: {
        ...ok('Returns the data of the ticket with the specified post ID', 'Ticket'),
        '400': { description: 'The ticket post ID is invalid.' },
        '401': { description: 'The ticket with the specified ID is not accessible.' },
        '404': { description: 'A ticket with the specified ID does not exist.' },
      },
    },
  }),
  updateTicket: defineRoute({
    id: 'tickets.update',
    namespace: ns,
    route: '/tickets/(?P<id>\\d+)',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'public',
    ...write,
    args: {
      id: id('The ticket ID'),
      post_id: integer({ description: 'The post the ticket is attached to', required: true, minimum: 1 }),
      edit_ticket_nonce: string({ description: 'The edit_ticket_nonce from GET /tickets/{id}', required: true }),
      ...ticketFields,
      ...tl,
    },
    summary: 'Edits a ticket (editor route; answers 202)',
    doc: editorDoc('The edited ticket', 'Ticket'),
  }),
  deleteTicket: defineRoute({
    id: 'tickets.delete',
    namespace: ns,
    route: '/tickets/(?P<id>\\d+)',
    methods: ['DELETE'],
    permission: 'public',
    ...write,
    args: {
      id: id('The ticket ID'),
      post_id: integer({ description: 'The post the ticket is attached to', required: true, minimum: 1 }),
      remove_ticket_nonce: string({ description: 'The remove_ticket_nonce from GET /tickets/{id}', required: true }),
      ...tl,
    },
    summary: 'Deletes a ticket (editor route; answers 202 with true)',
    doc: editorDoc('true: the ticket was deleted', z.literal(true)),
  }),
  listTickets: defineRoute({
    id: 'tickets.list',
    namespace: ns,
    route: '/tickets',
    methods: ['GET'],
    permission: 'public',
    args: ticketListArgs,
    summary: 'Returns all the tickets matching the search criteria',
    doc: {
      responses: {
        ...ok('Returns all the tickets matching the search criteria', 'TicketArchive'),
        '400': { description: 'One or more of the specified query variables has a bad format.' },
      },
    },
  }),
  createTicket: defineRoute({
    id: 'tickets.create',
    namespace: ns,
    route: '/tickets',
    methods: ['POST'],
    permission: 'public',
    ...write,
    args: {
      post_id: integer({ description: 'The post to attach the ticket to', minimum: 1 }),
      add_ticket_nonce: string({ description: 'The add_ticket_nonce from GET /evt/events/v1/events/{id}' }),
      provider: string({ description: 'The ticket provider: rsvp (free) or tc (paid)' }),
      ...ticketFields,
      ...tl,
    },
    summary: 'Creates a ticket (editor route; answers 202)',
    doc: editorDoc('The created ticket', 'Ticket'),
  }),
  // Before the list, as the original registers them: the Allow header of /attendees reads "POST, GET".
  createAttendee: defineRoute({
    id: 'attendees.create',
    namespace: ns,
    route: '/attendees',
    methods: ['POST'],
    permission: 'manage_attendees',
    ...write,
    args: {
      ticket_id: integer({ description: 'The ticket the attendee is registered on', required: true, minimum: 1 }),
      full_name: custom(z.string().trim().min(1), z.string(), { description: 'The attendee full name', required: true }),
      email,
      attendee_status: string({ description: 'The order status of the attendee' }),
      ...checkinFields,
      ...tl,
    },
    summary: 'Creates an attendee (box-office sale or door registration)',
    doc: {
      responses: {
        '201': { description: 'Returns the created attendee', schema: 'Attendee' },
        '400': { description: 'A parameter is missing or invalid.' },
        '401': { description: 'The caller may not create attendees.' },
      },
    },
  }),
  listAttendees: defineRoute({
    id: 'attendees.list',
    namespace: ns,
    route: '/attendees',
    methods: ['GET'],
    permission: 'public',
    args: attendeeListArgs,
    summary: 'Returns all the attendees matching the search criteria',
    doc: {
      responses: {
        ...ok('Returns all the attendees matching the search criteria', 'AttendeeArchive'),
        '400': { description: 'One or more of the specified query variables has a bad format.' },
      },
    },
  }),
  doorSnapshot: defineRoute({
    id: 'attendees.door-snapshot',
    namespace: ns,
    route: '/attendees/door-snapshot',
    methods: ['GET'],
    permission: 'manage_attendees',
    args: {
      post_id: integer({ description: 'The event whose attendees to download', required: true, minimum: 1 }),
      after_id: integer({
        description: "Only attendees with an ID above this one (the previous answer's next_after_id); 0 to start",
        default: 0,
        minimum: 0,
      }),
      limit: integer({
        description: `The most attendees in one answer; defaults to ${DOOR_SNAPSHOT_LIMIT} (at most ${DOOR_SNAPSHOT_LIMIT})`,
        default: DOOR_SNAPSHOT_LIMIT,
        minimum: 1,
        maximum: DOOR_SNAPSHOT_LIMIT,
      }),
      form: enumString(['objects', 'rows'], {
        description:
          '`objects` (the default): each attendee an object; `rows`: `fields` names the columns once, each attendee is an array of them in `rows`, and each ticket object is given once in `tickets` by ticket ID',
        default: 'objects' as const,
      }),
      ...tl,
    },
    summary:
      "Doorstep's own: a door device's first download, in attendee ID order, trashed attendees included (as changed_since=0), each attendee as door=1 presents it; X-EVT-Cursor is the next delta's cursor",
    doc: {
      responses: {
        ...ok(
          "Returns up to `limit` attendees after `after_id`, the total and the next page's `after_id` (null after the last); with `form=rows`, a DoorSnapshotRows",
          'DoorSnapshot',
        ),
        '400': { description: 'A parameter is missing or invalid.' },
        '401': { description: 'The caller does not manage attendees.' },
      },
    },
  }),
  readAttendee: defineRoute({
    id: 'attendees.read',
    namespace: ns,
    route: '/attendees/(?P<id>\\d+)',
    methods: ['GET'],
    permission: 'public',
    args: { id: id('The attendee ID'), ...tl },
    summary: 'Returns a single attendee data',
    doc: {
      responses: {
        ...ok('Returns the data of the attendee with the specified post ID', 'Attendee'),
        '401': { description: 'The attendee with the specified ID is not accessible.' },
        '404': { description: 'An attendee with the specified ID does not exist.' },
      },
    },
  }),
  updateAttendee: defineRoute({
    id: 'attendees.update',
    namespace: ns,
    route: '/attendees/(?P<id>\\d+)',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'manage_attendees',
    ...write,
    args: {
      id: id('The attendee ID'),
      attendee_status: string({ description: 'The order status of the attendee' }),
      full_name: string({ description: 'The attendee full name' }),
      email: string({ description: 'The attendee e-mail address', extra: { format: 'email' } }),
      ...checkinFields,
      list_id: integer({ description: 'The check-in list the scan goes through (a key bound to a list uses its own)', minimum: 1 }),
      ...tl,
    },
    summary: 'Updates an attendee; checks it in or out (answers 201)',
    doc: {
      responses: {
        '201': { description: 'Returns the updated attendee', schema: 'Attendee' },
        '400': { description: 'Invalid parameter, already checked in, or check-in not authorised.' },
        '401': { description: 'The caller may not update attendees.' },
        '404': { description: 'An attendee with the specified ID does not exist.' },
      },
    },
  }),
  readCart: defineRoute({
    id: 'cart.read',
    namespace: ns,
    route: '/cart',
    methods: ['GET'],
    permission: 'public',
    args: {
      provider: stringList({ description: 'The cart providers (CSV or array)' }),
      post_id: integer({ description: 'The post ID', minimum: 1 }),
      ...tl,
    },
    summary: "Returns the caller's cart",
    doc: { responses: ok('Returns the cart', 'Cart') },
  }),
  updateCart: defineRoute({
    id: 'cart.update',
    namespace: ns,
    route: '/cart',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'public',
    ...write,
    args: {
      provider: string({ description: 'The cart provider', required: true }),
      // Shown as Event Tickets shows them (default null); never applied: a field not sent stays unsent.
      tickets: array({ description: 'List of tickets with their ID and quantity: [{ticket_id, quantity, optout?, iac?}]', extra: { default: null } }),
      meta: array({ description: 'List of meta for each ticket to be saved for Attendee Registration', extra: { default: null } }),
      post_id: integer({ description: 'The post ID', minimum: 1 }),
      ...tl,
    },
    summary: "Replaces the contents of the caller's cart",
    doc: {
      responses: { ...ok('Returns the cart', 'Cart'), '403': { description: 'Door devices and door staff cannot buy tickets (`rest_forbidden`).' } },
    },
  }),
  checkout: defineRoute({
    id: 'cart.checkout',
    namespace: ns,
    route: '/cart/checkout',
    methods: ['POST'],
    permission: 'public',
    ...write,
    args: {
      purchaser_name: custom(z.string().trim().min(1), z.string(), { description: 'The purchaser name', required: true }),
      purchaser_email: custom(
        z
          .string()
          .trim()
          .pipe(z.email({ error: 'Invalid email.' })),
        z.string(),
        { description: 'The purchaser e-mail address', required: true, extra: { format: 'email' } },
      ),
      ...tl,
    },
    summary: "Turns the caller's cart into an order: free orders complete at once, paid ones wait as pending",
    doc: {
      responses: {
        '201': { description: 'Returns the order with its attendees', schema: 'Order' },
        '400': { description: 'The cart is empty or a ticket is not available.' },
        '403': { description: 'Door devices and door staff cannot buy tickets (`rest_forbidden`).' },
      },
    },
  }),
  listOrders: defineRoute({
    id: 'orders.list',
    namespace: ns,
    route: '/orders',
    methods: ['GET'],
    permission: 'edit_tickets',
    args: {
      page,
      per_page: perPage,
      post_id: integer({ description: 'Orders with tickets of this post', minimum: 1 }),
      status: stringList({ description: 'Order statuses' }),
      ...tl,
    },
    summary: 'Lists orders',
    doc: { responses: ok('Returns the orders', 'OrderArchive') },
  }),
  readOrder: defineRoute({
    id: 'orders.read',
    namespace: ns,
    route: '/orders/(?P<id>\\d+)',
    methods: ['GET'],
    permission: 'edit_tickets',
    args: { id: id('The order ID'), ...tl },
    summary: 'Returns an order with its attendees',
    doc: { responses: ok('Returns the order', 'Order') },
  }),
  updateOrder: defineRoute({
    id: 'orders.update',
    namespace: ns,
    route: '/orders/(?P<id>\\d+)',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'edit_tickets',
    ...write,
    args: {
      id: id('The order ID'),
      status: enumString(['completed', 'pending', 'refunded', 'cancelled', 'failed'], {
        description: 'The new order status (completed marks a pending order paid)',
        required: true,
      }),
      ...tl,
    },
    summary: 'Changes an order status (mark paid, refund, cancel)',
    doc: { responses: ok('Returns the order', 'Order') },
  }),
  qrImage: defineRoute({
    id: 'qr.read',
    namespace: ns,
    route: '/qr/(?P<id>\\d+)',
    methods: ['GET'],
    permission: 'public',
    args: {
      id: id('The attendee ID'),
      format: enumString(['json', 'svg', 'png'], {
        description: 'json (the original answer), or the QR image as svg or png (door and manager callers)',
        default: 'json' as const,
      }),
      size: integer({ description: 'Image width in pixels for png', minimum: 64, maximum: 2048, default: 300 }),
      ...tl,
    },
    summary: 'Returns the QR data of an attendee, or its QR image',
    doc: {
      responses: {
        '200': {
          description: 'The QR data (format=json), or the QR image (format=svg or png)',
          schema: 'QR',
          media: ['application/json', 'image/svg+xml', 'image/png'],
        },
        '403': { description: 'The attendee or its image is not accessible to the caller (`ticket-not-accessible`).' },
      },
    },
  }),
  qrCheckin: defineRoute({
    id: 'qr.checkin',
    namespace: ns,
    route: '/qr',
    methods: ['GET'],
    permission: 'public',
    args: {
      api_key: custom(z.string().min(1), z.string(), { description: 'The API key to authorize check-in', required: true }),
      ticket_id: custom(
        z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().regex(/^\d+$/)),
        z.string(),
        { description: 'The attendee ID', required: true },
      ),
      security_code: custom(z.string().min(1), z.string(), { description: 'The security code of the ticket to verify for check in', required: true }),
      event_id: any({ description: 'The event ID (as in the ticket QR URL)' }),
      ...tl,
    },
    summary: 'Checks an attendee in from the ticket QR code',
    doc: {
      responses: {
        '201': { description: 'Checked in: the attendee as it was before the check-in', schema: 'QRCheckin' },
        '400': {
          description: "A parameter is missing or invalid (the error envelope), or the API key is not the site's (the inputs echoed)",
          schema: z.union([z.object({ code: z.string(), message: z.string(), data: z.looseObject({ status: z.number().int() }) }), QREcho]),
        },
        '403': {
          description: 'Not checked in: security code not valid, attendee not found, already checked in, order not complete, or outside the event',
          schema: 'QRRefusal',
        },
      },
    },
  }),
  listCheckins: defineRoute({
    id: 'checkins.list',
    namespace: ns,
    route: '/checkins',
    methods: ['GET'],
    permission: 'manage_attendees',
    args: {
      page,
      per_page: perPage,
      post_id: integer({ description: 'Scans for this event', minimum: 1 }),
      attendee_id: integer({ description: 'Scans of this attendee', minimum: 1 }),
      device_id: string({ description: 'Scans from this device' }),
      result: stringList({ description: 'accepted, checked_out, conflict, rejected' }),
      after: dateArg('Scans at or after this UTC date'),
      before: dateArg('Scans at or before this UTC date'),
      after_id: integer({
        description:
          'Only scans recorded after this log ID (the order scans arrived in, whatever their scan time), oldest first; the answer carries X-EVT-Cursor, the ID to ask from next',
        minimum: 0,
      }),
      order,
      ...tl,
    },
    summary: 'The check-in log: every scan, accepted or not',
    doc: { responses: ok('Returns the scans', 'CheckinArchive') },
  }),
  recordScan: defineRoute({
    id: 'checkins.record',
    namespace: ns,
    route: '/checkins',
    methods: ['POST'],
    permission: 'manage_attendees',
    ...write,
    args: {
      result: enumString(['rejected', 'conflict'], {
        description: 'What the door decided: rejected (not valid) or conflict (already checked in)',
        required: true,
      }),
      reason: string({
        description: 'Why, as the door named it (other_event, unreadable, wrong_security_code, already_checked_in, ...)',
        required: true,
        maxLength: 100,
      }),
      post_id: integer({ description: 'The event scanned for; a key bound to an event records for that event', minimum: 1 }),
      attendee_id: integer({ description: "The attendee the scanned code names, when it names one of this event's", minimum: 1 }),
      check_in_date: checkinFields.check_in_date,
      device_id: checkinFields.device_id,
      nonce: string({
        description: 'A client-made unique string per scan (at least 16 characters): a retry with the same nonce records nothing twice',
        required: true,
        minLength: 16,
        maxLength: 200,
      }),
      ...tl,
    },
    summary: 'Records a scan the door refused on its own (offline, or a code that is no ticket of this event); changes no attendee',
    doc: {
      responses: {
        '201': { description: 'The scan as recorded (the same nonce again: the first record, nothing recorded twice)', schema: 'Checkin' },
        '400': { description: 'Invalid parameter.' },
        '401': { description: 'The caller may not record scans.' },
        '429': { description: 'The caller recorded its share of refused scans for the hour; Retry-After says when to send again.' },
      },
    },
  }),
};

/** Registration order (ET registers doc, tickets, attendees, cart, qr). */
export const ticketsNamespace: NamespaceDef = {
  name: ns,
  routes: [...Object.values(ticketsRoutes), ...Object.values(checkinListRoutes)] as RouteDef[],
  doc: {
    title: 'Event Tickets REST API',
    description: 'Event Tickets REST API allows accessing ticket information easily and conveniently.',
    version: '1.0.0',
    schemas: { ...ticketsDocSchemas, ...checkinListDocSchemas },
  },
};
