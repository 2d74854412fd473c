import { z } from 'zod';
import {
  any,
  boolean,
  custom,
  type ArgJson,
  idList,
  integer,
  MAX_SEARCH_CHARS,
  number,
  string,
  stringList,
  wpIssue,
  type Param,
} from '../http/params.ts';
import { parseDateInput } from '../dates.ts';

/**
 * Arguments of the events namespace, shaped after The Events Calendar's registrations. TEC validates most
 * arguments with callbacks (so a failure reads "Invalid parameter." with no details); typed core arguments
 * fail with core's schema messages.
 */

const cb = { style: 'callback' as const };

/** TEC `is_positive_int`. */
export function positiveInt(o: { description: string; default: number }): Param<number, true>;
export function positiveInt(o: { description: string }): Param<number, false>;
export function positiveInt(o: { description: string; default?: number }): Param<number> {
  return integer({ ...o, ...cb, minimum: 1 });
}

/** TEC `is_time`: a timestamp or anything strtotime can parse. */
export const timeArg = (description: string, required = false) => {
  const base = z.string();
  const schema = z.preprocess(
    (v) => (typeof v === 'number' ? String(v) : v),
    z.string().superRefine((s, ctx) => {
      if (parseDateInput(s, 'UTC', new Date()) === null) wpIssue(ctx, 'rest_invalid_param', 'Invalid parameter.');
    }),
  );
  return custom(schema, base, { description, required, ...cb, extra: { format: 'date-time' } });
};

/** A string TEC checks with `is_string`; numbers are accepted as their text, as PHP would. */
export const textArg = (description: string, o: { required?: boolean; nonEmpty?: boolean; extra?: ArgJson } = {}) => {
  const inner = o.nonEmpty ? z.string().trim().min(1) : z.string();
  return custom(
    z.preprocess((v) => (typeof v === 'number' ? String(v) : v), inner),
    z.string(),
    { description, required: o.required, ...cb, ...(o.extra ? { extra: o.extra } : {}) },
  );
};

/**
 * The `default: null` (or false) TEC's write args show in the index and OPTIONS answers. Shown only: it is
 * never applied, so a field not sent stays unsent (an update keeps what it is not given, D1).
 */
const shownDefault = (value: null | boolean): ArgJson => ({ default: value });

/**
 * TEC `is_string` on a list filter: a non-empty string (PHP's `empty()` also refuses "0"), so `search=` is
 * 400 "Invalid parameter." as in the original; numbers are taken as their text.
 */
export const filterText = (description: string, o: { default?: string } = {}) =>
  custom(
    z.preprocess(
      (v) => (typeof v === 'number' ? String(v) : v),
      z
        .string()
        .refine((s) => s !== '' && s !== '0')
        .refine((s) => s.length <= MAX_SEARCH_CHARS, `Search texts are at most ${MAX_SEARCH_CHARS} characters long.`),
    ),
    z.string(),
    { description, ...cb, ...(o.default !== undefined ? { default: o.default } : {}) },
  );

/** A truthy-string flag as TEC reads `strict_dates`: true, 1, yes, on. */
export const truthyFlag = (description: string) =>
  custom(
    z.preprocess(
      (v) =>
        typeof v === 'boolean'
          ? v
          : typeof v === 'number'
            ? v !== 0
            : typeof v === 'string'
              ? ['true', '1', 'yes', 'on'].includes(v.toLowerCase())
              : v,
      z.boolean(),
    ),
    z.boolean(),
    { description, default: false, ...cb },
  );

/** Categories or tags: IDs or slugs, CSV or array (existence is checked by the handler). */
export const termRefs = (description: string) => stringList({ description, ...cb });

export const idListArg = (description: string) => idList({ description, ...cb });

export const statusArg = (description: string) => stringList({ description, ...cb, extra: { format: 'string' } });

// ---- write arguments ----

/** The venue or organizer of an event: an ID, `{id}`, an object of create fields, or a list of those. */
const linked = (description: string) =>
  any({ description, extra: { type: ['integer', 'object', 'array'], ...shownDefault(null), items: { type: 'integer' } } });

function eventFields(required: boolean) {
  return {
    author: integer({ description: 'The event author ID', ...cb, minimum: 0 }),
    date: timeArg('The event publication date'),
    date_utc: timeArg('The event publication date (UTC time zone)'),
    title: textArg('The event title', { required, nonEmpty: true }),
    description: textArg('The event description'),
    slug: textArg('The event slug'),
    excerpt: textArg('The event excerpt'),
    status: textArg('The event post status'),
    timezone: textArg('The event time zone'),
    all_day: boolean({ description: 'Whether the event lasts the whole day or not', extra: shownDefault(false) }),
    start_date: timeArg('The event start date and time', required),
    end_date: timeArg('The event end date and time', required),
    image: any({ description: 'The event featured image ID or URL', extra: { type: ['integer', 'string'] } }),
    cost: custom(z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))]), z.union([z.string(), z.number()]), {
      description: 'The event cost: a number, a text such as "10 - 20", or a list of prices',
      style: 'callback',
    }),
    currency_symbol: textArg('The currency symbol of the cost, e.g. € (default $)'),
    currency_code: textArg('The ISO 4217 code of the cost currency, e.g. EUR'),
    currency_position: custom(z.enum(['prefix', 'postfix', 'suffix']), z.enum(['prefix', 'postfix', 'suffix']), {
      description: 'Where the currency symbol goes',
    }),
    website: textArg('The event website URL', { extra: shownDefault(null) }),
    show_map: boolean({ description: 'Whether the map should be shown on the event page' }),
    show_map_link: boolean({ description: 'Whether the map link should be shown on the event page' }),
    hide_from_listings: boolean({ description: 'Whether the event should be hidden in the calendar view' }),
    sticky: boolean({ description: 'Whether the event should be sticky in the calendar view' }),
    featured: boolean({ description: 'Whether the event should be featured on the site' }),
    categories: any({
      description: 'The event category IDs, slugs or names',
      extra: { type: 'array', items: { type: 'integer' }, ...shownDefault(null) },
    }),
    tags: any({ description: 'The event tag IDs, slugs or names', extra: { type: 'array', items: { type: 'integer' }, ...shownDefault(null) } }),
    venue: linked('The event venue ID or data'),
    organizer: linked('The event organizer IDs or data'),
    password: string({ description: 'The event password' }),
  };
}

export const eventCreateArgs = eventFields(true);
export const eventUpdateArgs = eventFields(false);

function venueFields(required: boolean) {
  return {
    author: integer({ description: 'The venue author ID', ...cb, minimum: 0 }),
    date: timeArg('The venue publication date'),
    date_utc: timeArg('The venue publication date (UTC time zone)'),
    venue: textArg('The venue name', { required, nonEmpty: true }),
    description: textArg('The venue description', { extra: shownDefault(null) }),
    status: textArg('The venue post status'),
    show_map: boolean({ description: 'Whether events linked to the venue should show a map', extra: shownDefault(null) }),
    show_map_link: boolean({ description: 'Whether events linked to the venue should show a map link', extra: shownDefault(null) }),
    address: textArg('The venue address', { extra: shownDefault(null) }),
    city: textArg('The venue city', { extra: shownDefault(null) }),
    country: textArg('The venue country', { extra: shownDefault(null) }),
    province: textArg('The venue province', { extra: shownDefault(null) }),
    state: textArg('The venue state', { extra: shownDefault(null) }),
    zip: textArg('The venue ZIP code', { extra: shownDefault(null) }),
    phone: textArg('The venue phone number', { extra: shownDefault(null) }),
    stateprovince: textArg('The venue state or province', { extra: shownDefault(null) }),
    website: textArg('The venue website URL', { extra: shownDefault(null) }),
    image: any({ description: 'The venue featured image ID or URL', extra: { type: ['integer', 'string'], ...shownDefault(null) } }),
    geo_lat: number({ description: 'The venue latitude', minimum: -90, maximum: 90 }),
    geo_lng: number({ description: 'The venue longitude', minimum: -180, maximum: 180 }),
  };
}

export const venueCreateArgs = venueFields(true);
export const venueUpdateArgs = venueFields(false);

function organizerFields(required: boolean) {
  return {
    author: integer({ description: 'The organizer author ID', ...cb, minimum: 0 }),
    date: timeArg('The organizer publication date'),
    date_utc: timeArg('The organizer publication date (UTC time zone)'),
    organizer: textArg('The organizer name', { required, nonEmpty: true }),
    description: textArg('The organizer description'),
    status: textArg('The organizer post status'),
    phone: textArg('The organizer phone number'),
    website: textArg('The organizer website URL'),
    email: textArg('The organizer e-mail address'),
    image: any({ description: 'The organizer featured image ID or URL', extra: { type: ['integer', 'string'] } }),
  };
}

export const organizerCreateArgs = organizerFields(true);
export const organizerUpdateArgs = organizerFields(false);

export function termFields(required: boolean, hierarchical: boolean) {
  const base = {
    name: custom(
      z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().trim().min(1)),
      z.string(),
      { description: 'HTML title for the term.', required },
    ),
    description: string({ description: 'HTML description of the term.' }),
    slug: string({ description: 'An alphanumeric identifier for the term unique to its type.' }),
  };
  return hierarchical ? { ...base, parent: integer({ description: 'The parent term ID.', minimum: 0 }) } : base;
}

export const linkedListArgs = {
  page: positiveInt({ description: 'The archive page to return', default: 1 }),
  per_page: positiveInt({ description: 'The number of items to return on each page', default: 3 }),
  search: filterText('Limit results to those matching a string'),
  event: integer({ description: 'Limit results to those linked to this event', ...cb, minimum: 1 }),
  has_events: any({ description: 'Limit results to those that have events' }),
  only_with_upcoming: any({ description: 'Limit results to those that have upcoming events', default: false }),
  status: statusArg('Limit results to those with this post status'),
} satisfies Record<string, Param>;

/**
 * TEC's term archive arguments: every filter is checked by a callback (`is_positive_int`, `is_string`,
 * `is_event_category`/`is_post_tag`, `is_event_id`), so a failure reads "Invalid parameter." with no details;
 * `order` and `orderby` are any non-empty string (WordPress's term query falls back to DESC and to name);
 * `per_page` above 50 is clamped by the handler; existence of included, excluded and parent terms too.
 */
export function termListArgs(hierarchical: boolean) {
  const args: Record<string, Param> = {
    page: positiveInt({ description: 'Current page of the collection.', default: 1 }),
    per_page: positiveInt({ description: 'Maximum number of items to be returned in result set (at most 50).', default: 3 }),
    search: filterText('Limit results to those matching a string.'),
    exclude: idList({ description: 'Ensure result set excludes specific IDs.', default: [], ...cb }),
    include: idList({ description: 'Limit result set to specific IDs.', default: [], ...cb }),
    order: filterText('Order sort attribute ascending or descending: asc or desc (anything else is desc).', { default: 'asc' }),
    orderby: filterText(
      'Sort collection by term attribute: id, include, name, slug, include_slugs, term_group, description or count (anything else is name).',
      {
        default: 'name',
      },
    ),
    hide_empty: boolean({ description: 'Whether to hide terms not assigned to any posts.', default: true }),
  };
  if (hierarchical) args.parent = integer({ description: 'Limit result set to terms assigned to a specific parent.', minimum: 1, ...cb });
  args.post = integer({ description: 'Limit result set to terms assigned to a specific post.', minimum: 1, ...cb });
  args.event = integer({
    description: 'Limit result set to terms assigned to a specific event (an alias of the "post" parameter).',
    minimum: 1,
    ...cb,
  });
  args.slug = stringList({ description: 'Limit result set to terms with one or more specific slugs.', ...cb });
  return args;
}
