import { z } from 'zod';
import { DateDetails, Image, ImageSize, postMeta } from './common.ts';

/**
 * Response models of `evt/tickets/v1` (reference 4.3-4.6 plus CONTRACT sections 5 and 7). They document the
 * wire shapes in `/doc` and let tests check what handlers send; key order on the wire is the presenters' job.
 */

/** Event Tickets' cost details (differs from TEC's: no currency_code, separators and decimals instead). */
export const TicketCostDetails = z.object({
  currency_symbol: z.string(),
  currency_position: z.enum(['prefix', 'postfix']),
  values: z.array(z.string()),
  suffix: z.string().nullable(),
  currency_decimal_separator: z.string(),
  currency_decimal_numbers: z.number().int(),
  currency_thousand_separator: z.string(),
});
export type TicketCostDetails = z.infer<typeof TicketCostDetails>;

/** Everybody sees `available_percentage` and `available`; managers also `max`, `sold`, `pending`, `global_stock_mode`. */
export const CapacityDetails = z.object({
  available_percentage: z.number().int(),
  /** -1 when unlimited. */
  available: z.number().int(),
  max: z.number().int().optional(),
  sold: z.number().int().optional(),
  pending: z.number().int().optional(),
  global_stock_mode: z.string().optional(),
});
export type CapacityDetails = z.infer<typeof CapacityDetails>;

/** A standing check-in: the original's four keys plus our `device_id` (CONTRACT section 7). */
export const CheckinDetails = z.object({
  date: z.string(),
  date_details: DateDetails,
  source: z.string(),
  /** The user who checked the attendee in (a number, as in the original). */
  author: z.number().int(),
  device_id: z.string().nullable(),
  /** The label of the door key that made the check-in, where the answer names it. */
  device_label: z.string().nullable().optional(),
  /**
   * At a venue hub only: the hub's own scan this check-in overruled (the site had this one first), so the kiosk
   * that made it shows the conflict. `date` site-local as above.
   */
  replaced: z.object({ device_id: z.string().nullable(), date: z.string(), nonce: z.string() }).optional(),
});
export type CheckinDetails = z.infer<typeof CheckinDetails>;

export const PaymentDetails = z.object({
  provider: z.string(),
  price: z.union([z.number(), z.string()]),
  currency: z.string(),
  date: z.string(),
  date_details: DateDetails,
});
export type PaymentDetails = z.infer<typeof PaymentDetails>;

export const RSVPReport = z.object({ rsvp_going: z.number().int(), rsvp_not_going: z.number().int() });

export const CheckinReport = z.object({
  checked_in: z.number().int(),
  unchecked_in: z.number().int(),
  checked_in_percentage: z.number().int(),
  unchecked_in_percentage: z.number().int(),
});
export type CheckinReport = z.infer<typeof CheckinReport>;

export const CurrencyConfig = z.object({
  symbol: z.string(),
  placement: z.enum(['prefix', 'postfix']),
  decimal_point: z.string(),
  thousands_sep: z.string(),
  number_of_decimals: z.number().int(),
});
export type CurrencyConfig = z.infer<typeof CurrencyConfig>;

/** The ticket as embedded in an attendee. */
export const AttendeeTicket = z.object({
  /** The ticket ID; a string for RSVP tickets, as in the original. */
  id: z.union([z.number().int(), z.string()]),
  title: z.string(),
  description: z.string(),
  raw_price: z.union([z.number(), z.string()]),
  formatted_price: z.string(),
  currency_config: CurrencyConfig,
  start_sale: z.string(),
  end_sale: z.string(),
});

/**
 * Attendee (reference 4.4). Keys from `provider` on are the manager (and door) view; `security_code` and
 * `order_status` are our door-view extensions (CONTRACT section 7).
 */
export const Attendee = z.object({
  id: z.number().int(),
  post_id: z.number().int(),
  ticket_id: z.number().int(),
  ...postMeta,
  rest_url: z.string(),
  ticket: AttendeeTicket,
  /** Holder name, else purchaser name; omitted when the attendee opted out and the caller is no manager. */
  title: z.string().optional(),
  optout: z.boolean(),
  provider: z.string().optional(),
  /** The order ID; "" for a sale made through `POST /attendees` (no order in the original). RSVP: the attendee ID. */
  order: z.union([z.number().int(), z.literal('')]).optional(),
  sku: z.string().optional(),
  email: z.string().optional(),
  checked_in: z.boolean().optional(),
  checkin_details: z.union([z.literal(false), CheckinDetails]).optional(),
  is_subscribed: z.boolean().optional(),
  is_purchaser: z.boolean().optional(),
  rsvp_going: z.boolean().optional(),
  payment: PaymentDetails.optional(),
  security_code: z.string().optional(),
  order_status: z.string().optional(),
});
export type Attendee = z.infer<typeof Attendee>;

export const SalePriceData = z.object({
  enabled: z.union([z.string(), z.boolean()]),
  sale_price: z.string(),
  start_date: z.string(),
  end_date: z.string(),
});

export const TicketTotals = z.object({
  stock: z.number().int(),
  sold: z.number().int(),
  pending: z.number().int(),
});

export const TicketNonces = z.object({ edit_ticket_nonce: z.string(), remove_ticket_nonce: z.string() });

/** Ticket (reference 4.3). Editor keys (`capacity_type` ... `nonces`) only for callers who may edit it. */
export const Ticket = z.object({
  description: z.string(),
  capacity: z.number().int(),
  /** null for RSVP tickets. */
  on_sale: z.boolean().nullable(),
  iac: z.string(),
  price_suffix: z.string().nullable(),
  post_id: z.number().int(),
  provider: z.string(),
  id: z.number().int(),
  type: z.string(),
  ...postMeta,
  title: z.string(),
  image: z.union([z.literal(false), Image]),
  available_from: z.string(),
  available_from_details: DateDetails,
  available_until: z.string(),
  available_until_details: DateDetails,
  capacity_details: CapacityDetails,
  is_available: z.boolean(),
  cost: z.string(),
  cost_details: TicketCostDetails,
  /** An empty list for RSVP tickets. */
  sale_price_data: z.union([SalePriceData, z.tuple([])]),
  supports_attendee_information: z.boolean(),
  attendees: z.array(Attendee),
  rsvp: RSVPReport.optional(),
  checkin: CheckinReport.optional(),
  rest_url: z.string(),
  capacity_type: z.enum(['own', 'capped', 'global', 'unlimited']).optional(),
  sku: z.string().nullable().optional(),
  available_from_start_time: z.string().optional(),
  available_from_end_time: z.string().optional(),
  totals: TicketTotals.optional(),
  /** Tickets Commerce's fee block (always empty: no fees, D8), for callers who may edit tickets. */
  fees: z.object({ available_fees: z.array(z.unknown()), automatic_fees: z.array(z.unknown()), selected_fees: z.array(z.unknown()) }).optional(),
  nonces: TicketNonces.optional(),
});
export type Ticket = z.infer<typeof Ticket>;

export const TicketArchive = z.object({
  rest_url: z.string(),
  total: z.number().int(),
  total_pages: z.number().int(),
  tickets: z.array(Ticket),
});

export const CartTicket = z.object({
  ticket_id: z.number().int(),
  quantity: z.number().int(),
  post_id: z.number().int(),
  optout: z.number().int(),
  iac: z.string(),
});

export const Cart = z.object({
  tickets: z.array(CartTicket),
  meta: z.array(z.unknown()),
  cart_url: z.string(),
  checkout_url: z.string(),
});
export type Cart = z.infer<typeof Cart>;

export const ORDER_STATUSES = ['completed', 'pending', 'refunded', 'cancelled', 'failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const OrderItem = z.object({
  ticket_id: z.number().int(),
  post_id: z.number().int(),
  title: z.string(),
  quantity: z.number().int(),
  /** Unit price as a decimal string in the order currency. */
  price: z.string(),
});

/** Our extension: an order made by `POST /cart/checkout`. */
export const Order = z.object({
  id: z.number().int(),
  provider: z.string(),
  status: z.enum(ORDER_STATUSES),
  purchaser_name: z.string(),
  purchaser_email: z.string(),
  author: z.string(),
  total: z.string(),
  currency: z.string(),
  date: z.string(),
  date_utc: z.string(),
  completed_date_utc: z.string().nullable(),
  /** Until when a pending order holds its places (ISO 8601 UTC); null for other orders. */
  expires: z.string().nullable(),
  items: z.array(OrderItem),
  attendees: z.array(Attendee),
  rest_url: z.string(),
});
export type Order = z.infer<typeof Order>;

export const OrderArchive = z.object({
  rest_url: z.string(),
  total: z.number().int(),
  total_pages: z.number().int(),
  orders: z.array(Order),
});

/** `GET /qr/{id}` JSON answer. */
export const QR = z.object({ id: z.number().int(), checked_in: z.string() });

/** `GET /attendees`. */
export const AttendeeArchive = z.object({
  rest_url: z.string(),
  total: z.number().int(),
  total_pages: z.number().int(),
  attendees: z.array(Attendee),
});

/** An attendee in the door snapshot: as `door=1` presents it, with the security code's hash for the code. */
export const DoorSnapshotAttendee = Attendee.pick({
  id: true,
  post_id: true,
  ticket_id: true,
  status: true,
  title: true,
  email: true,
  checked_in: true,
  checkin_details: true,
  order_status: true,
}).extend({
  ticket: z.object({ id: z.union([z.number().int(), z.string()]), title: z.string() }),
  /** The hash a door device keeps of the security code (shared/checkin/security-code.ts), not the code. */
  security_code_hash: z.string().nullable(),
});

/** `GET /attendees/door-snapshot` (our extension): one slice of a door device's first download. */
export const DoorSnapshot = z.object({
  /** Every attendee the download brings, trashed ones included (as `changed_since=0` counts them). */
  total: z.number().int(),
  /** The `after_id` of the next slice; null after the last. */
  next_after_id: z.number().int().nullable(),
  attendees: z.array(DoorSnapshotAttendee),
});
export type DoorSnapshot = z.infer<typeof DoorSnapshot>;

/**
 * `GET /attendees/door-snapshot?form=rows`: the same slice with each attendee as an array of `fields` (in that
 * order; shared/routes/tickets.ts DOOR_SNAPSHOT_ROW_FIELDS) and its `ticket` object in `tickets` under its ticket ID.
 */
export const DoorSnapshotRows = z.object({
  total: z.number().int(),
  next_after_id: z.number().int().nullable(),
  fields: z.array(z.string()),
  tickets: z.record(z.string(), DoorSnapshotAttendee.shape.ticket),
  rows: z.array(z.array(z.unknown())),
});
export type DoorSnapshotRows = z.infer<typeof DoorSnapshotRows>;

/** One scan of the check-in log (our extension, CONTRACT section 7). */
export const Checkin = z.object({
  id: z.number().int(),
  attendee_id: z.number().int(),
  post_id: z.number().int(),
  result: z.enum(['accepted', 'checked_out', 'conflict', 'rejected']),
  reason: z.string().nullable(),
  date: z.string(),
  date_details: DateDetails,
  scanned_at: z.string(),
  received_at: z.string(),
  device_id: z.string().nullable(),
  /** The label of the door key that made the scan (null when no key made it). */
  device_label: z.string().nullable().optional(),
  nonce: z.string().nullable(),
  source: z.string(),
  author: z.string(),
  api_key_id: z.number().int().nullable(),
});

/** `GET /checkins`. */
export const CheckinArchive = z.object({
  rest_url: z.string(),
  total: z.number().int(),
  total_pages: z.number().int(),
  checkins: z.array(Checkin),
});

/** `GET /qr` check-in accepted (201): the attendee as a manager sees it. */
export const QRCheckin = z.object({ msg: z.string(), attendee: Attendee });

/** `GET /qr` check-in refused (403): why, with the attendee when one was found. */
export const QRRefusal = z.object({
  msg: z.string(),
  error: z.string(),
  attendee: Attendee.optional(),
  tribe_qr_status: z.string().optional(),
  api_key: z.string().optional(),
  ticket_id: z.string().optional(),
  event_id: z.string().nullable().optional(),
  security_code: z.string().optional(),
});

/** `GET /qr` with an API key that is not the site's (400): the original echoes the inputs. */
export const QREcho = z.object({ api_key: z.string(), ticket_id: z.string(), event_id: z.string().nullable(), security_code: z.string() });

/** Component schemas of the namespace `/doc`, in the original's order. */
export const ticketsDocSchemas = {
  Image,
  ImageSize,
  DateDetails,
  CostDetails: TicketCostDetails,
  CapacityDetails,
  CheckinDetails,
  PaymentDetails,
  RSVPReport,
  CheckinReport,
  Ticket,
  Attendee,
  QR,
  Cart,
  Order,
  TicketArchive,
  AttendeeArchive,
  OrderArchive,
  Checkin,
  CheckinArchive,
  QRCheckin,
  QRRefusal,
  QREcho,
  DoorSnapshot,
  DoorSnapshotRows,
};
