import { z } from 'zod';
import { CostDetails, DateDetails, Image, postMeta } from './common.ts';

/** A term as the term routes return it (core terms controller item, `link` renamed `url`). */
export const Term = z.object({
  id: z.number().int(),
  count: z.number().int(),
  description: z.string(),
  name: z.string(),
  slug: z.string(),
  taxonomy: z.string(),
  parent: z.number().int().optional(),
  meta: z.array(z.unknown()),
  url: z.string(),
  urls: z.object({ self: z.string(), collection: z.string(), up: z.string().optional() }),
  /** Create and update answers only: the written term's links (WordPress's term controller shape). */
  _links: z.record(z.string(), z.unknown()).optional(),
});
export type Term = z.infer<typeof Term>;

/** A term embedded in an event: a cast WP_Term. */
export const EmbeddedTerm = z.object({
  name: z.string(),
  slug: z.string(),
  term_group: z.number().int(),
  term_taxonomy_id: z.number().int(),
  taxonomy: z.string(),
  description: z.string(),
  parent: z.number().int(),
  count: z.number().int(),
  filter: z.literal('raw'),
  id: z.number().int(),
  urls: z.object({ self: z.string(), collection: z.string(), up: z.string().optional() }),
});

const postBase = {
  id: z.number().int(),
  author: z.string().optional(),
  status: z.string(),
  date: z.string(),
  date_utc: z.string(),
  modified: z.string(),
  modified_utc: z.string(),
  url: z.string(),
};

/** Keys venues and organizers share after their title key, in wire order. */
const linkedTexts = {
  description: z.string().optional(),
  excerpt: z.string().optional(),
  slug: z.string().optional(),
  image: Image.optional(),
};

/** Venue: empty values are dropped, so most keys are optional. */
export const Venue = z.object({
  ...postBase,
  venue: z.union([z.string(), z.array(z.never())]).optional(),
  ...linkedTexts,
  address: z.string().optional(),
  city: z.string().optional(),
  country: z.string().optional(),
  province: z.string().optional(),
  state: z.string().optional(),
  zip: z.string().optional(),
  phone: z.string().optional(),
  website: z.string().optional(),
  stateprovince: z.string().optional(),
  geo_lat: z.number().optional(),
  geo_lng: z.number().optional(),
  json_ld: z.record(z.string(), z.unknown()).optional(),
  show_map: z.boolean().nullable(),
  show_map_link: z.boolean().nullable(),
  global_id: z.string(),
  global_id_lineage: z.array(z.string()),
});
export type Venue = z.infer<typeof Venue>;

export const Organizer = z.object({
  ...postBase,
  organizer: z.string().optional(),
  ...linkedTexts,
  phone: z.string().optional(),
  website: z.string().optional(),
  email: z.string().optional(),
  json_ld: z.record(z.string(), z.unknown()).optional(),
  global_id: z.string(),
  global_id_lineage: z.array(z.string()),
});
export type Organizer = z.infer<typeof Organizer>;

/** Counts; on a password-blanked archive event the string "null", as the original answers them. */
const blankedCount = z.union([z.number().int(), z.literal('null')]);
export const Attendance = z.object({
  total_attendees: blankedCount,
  checked_in: blankedCount,
  not_checked_in: blankedCount,
});

export const Event = z.object({
  id: z.number().int(),
  ...postMeta,
  url: z.string(),
  rest_url: z.string(),
  title: z.string(),
  description: z.string(),
  excerpt: z.string(),
  slug: z.string(),
  image: z.union([z.literal(false), Image]),
  all_day: z.boolean().nullable(),
  start_date: z.string(),
  start_date_details: DateDetails,
  end_date: z.string(),
  end_date_details: DateDetails,
  utc_start_date: z.string(),
  utc_start_date_details: DateDetails,
  utc_end_date: z.string(),
  utc_end_date_details: DateDetails,
  timezone: z.string(),
  timezone_abbr: z.string(),
  cost: z.string(),
  cost_details: CostDetails,
  website: z.string(),
  show_map: z.boolean().nullable(),
  show_map_link: z.boolean().nullable(),
  hide_from_listings: z.boolean().nullable(),
  sticky: z.boolean().nullable(),
  featured: z.boolean().nullable(),
  categories: z.array(EmbeddedTerm),
  tags: z.array(EmbeddedTerm),
  venue: z.union([Venue, z.array(Venue)]),
  organizer: z.array(Organizer),
  custom_fields: z.union([z.array(z.never()), z.record(z.string(), z.object({ label: z.string(), value: z.string() }))]),
  json_ld: z.record(z.string(), z.unknown()).optional(),
  ticketed: z
    .union([z.literal(false), z.array(z.string())])
    .nullable()
    .optional(),
  attendance: Attendance.optional(),
  /** For a caller who may edit the event (CONTRACT section 2, ticket editing): the nonce to add a ticket. */
  nonces: z.object({ add_ticket_nonce: z.string() }).optional(),
  /** Door and manager callers (CONTRACT section 8): the event's current ticket-signing key, base64url of 32 bytes. */
  signing_key: z.string().optional(),
  /** Its ID, as a signed ticket's `kid` names it. */
  signing_key_id: z.string().optional(),
  /** Every signing key not revoked (a rotated key still verifies the tickets it signed), oldest first. */
  signing_keys: z.array(z.object({ signing_key_id: z.string(), signing_key: z.string() })).optional(),
});
export type Event = z.infer<typeof Event>;

/** Paging keys of the TEC archives: `next_rest_url` and `previous_rest_url` only when there is such a page. */
const archivePaging = {
  rest_url: z.string(),
  next_rest_url: z.string().optional(),
  previous_rest_url: z.string().optional(),
  total: z.number().int(),
  total_pages: z.number().int(),
};

/** `GET /events`. */
export const EventArchive = z.object({ events: z.array(Event), ...archivePaging });
/** `GET /venues`. */
export const VenueArchive = z.object({ venues: z.array(Venue), ...archivePaging });
/** `GET /organizers`. */
export const OrganizerArchive = z.object({ organizers: z.array(Organizer), ...archivePaging });
/** `GET /categories`. */
export const CategoryArchive = z.object({ ...archivePaging, categories: z.array(Term) });
/** `GET /tags`. */
export const TagArchive = z.object({ ...archivePaging, tags: z.array(Term) });
