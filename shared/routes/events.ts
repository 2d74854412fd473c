import { boolean, integer, number, string } from '../http/params.ts';
import { defineRoute, translationLanguage, type Args, type NamespaceDef, type RouteDef } from '../http/route.ts';
import { CostDetails, DateDetails, Image, ImageSize } from '../models/common.ts';
import { CategoryArchive, Event, EventArchive, Organizer, OrganizerArchive, TagArchive, Term, Venue, VenueArchive } from '../models/events.ts';
import {
  eventCreateArgs,
  eventUpdateArgs,
  filterText,
  idListArg,
  linkedListArgs,
  organizerCreateArgs,
  organizerUpdateArgs,
  positiveInt,
  statusArg,
  termFields,
  termListArgs,
  termRefs,
  timeArg,
  truthyFlag,
  venueCreateArgs,
  venueUpdateArgs,
} from './event-args.ts';

export const EVENTS_NS = 'evt/events/v1';
const ns = EVENTS_NS;
const tl = { translation_language: translationLanguage };

const idArg = (what: string) => integer({ description: `the ${what} post ID`, required: true, style: 'callback', in: 'path', minimum: 0 });
const slugArg = (what: string) => string({ description: `the ${what} slug`, required: true, in: 'path' });
const passwordArg = string({ description: 'The event password' });

/** The archives clamp `per_page` to 50 (the original's behaviour) rather than refusing more: `/doc` shows the bound. */
const perPageBound = { per_page: { maximum: 50 } };

const r = {
  ok: (schema: string, description = 'Returns the data') => ({ '200': { description, schema } }),
};

const single = (what: string, schema: string, extra: Record<string, { description: string }> = {}) => ({
  responses: {
    ...r.ok(schema, `Returns the data of the ${what}`),
    '400': { description: `The ${what} ID or slug is invalid.` },
    '403': { description: `The ${what} is not accessible.` },
    '404': { description: `The ${what} does not exist.` },
    ...extra,
  },
});

export const eventListArgs = {
  page: positiveInt({ description: 'The archive page to return', default: 1 }),
  per_page: positiveInt({ description: 'The number of events to return on each page (at most 50)', default: 3 }),
  start_date: timeArg('Limit events to those starting on or after the date (format YYYY-MM-DD HH:MM:SS); default: yesterday'),
  end_date: timeArg('Limit events to those ending on or before the date; default: two years from the start'),
  search: filterText('Events should contain the specified string in the title or description'),
  categories: termRefs('Events should be assigned one of the specified categories slugs or IDs'),
  tags: termRefs('Events should be assigned one of the specified tags slugs or IDs'),
  venue: idListArg('Events should be assigned one of the specified venue IDs'),
  organizer: idListArg('Events should be assigned one of the specified organizer IDs'),
  featured: boolean({ description: 'Events should be filtered by their featured status' }),
  status: statusArg('The event post status'),
  geoloc: boolean({ description: 'Requires Events Calendar Pro. Events should be filtered by whether their venue has geolocation data' }),
  geoloc_lat: number({
    description: 'Requires Events Calendar Pro. Events should be filtered by their venue latitude location, must also provide geoloc_lng',
    extra: { format: 'double' },
    minimum: -90,
    maximum: 90,
  }),
  geoloc_lng: number({
    description: 'Requires Events Calendar Pro. Events should be filtered by their venue longitude location, must also provide geoloc_lat',
    extra: { format: 'double' },
    minimum: -180,
    maximum: 180,
  }),
  include: idListArg('Include events with one of the post IDs specified in the array of CSV list, date filters will be ignored.'),
  post_parent: integer({ description: 'Events should be filtered by their post_parent being the specified one.', style: 'callback', minimum: 1 }),
  starts_before: timeArg('Events should start before the specified date'),
  starts_after: timeArg('Events should start after the specified date'),
  ends_before: timeArg('Events should end before the specified date'),
  ends_after: timeArg('Events should end after the specified date'),
  strict_dates: truthyFlag('Dates should be used exactly as given (no whole-day widening)'),
  ticketed: boolean({ description: 'Filter events with or without tickets' }),
  password: passwordArg,
  ...tl,
};

function venueLike<const C extends Args, const U extends Args>(kind: 'venue' | 'organizer', Kind: string, createArgs: C, updateArgs: U) {
  const plural = `${kind}s`;
  return {
    list: defineRoute({
      id: `${plural}.list`,
      namespace: ns,
      route: `/${plural}`,
      methods: ['GET'],
      permission: 'public',
      publicCache: true,
      args: { ...linkedListArgs, ...tl },
      summary: `Returns all the ${plural} matching the search criteria`,
      doc: {
        paramBounds: perPageBound,
        responses: {
          '200': { description: `Returns all the ${plural} matching the search criteria`, schema: `${Kind}Archive` },
          '400': { description: 'One or more of the specified query variables has a bad format' },
          '404': { description: 'The requested page was not found.' },
        },
      },
    }),
    read: defineRoute({
      id: `${plural}.read`,
      namespace: ns,
      route: `/${plural}/(?P<id>\\d+)`,
      methods: ['GET'],
      permission: 'public',
      publicCache: true,
      args: { id: idArg(kind), ...tl },
      summary: `Returns the data of the ${kind} with the specified post ID`,
      doc: single(kind, Kind),
    }),
    delete: defineRoute({
      id: `${plural}.delete`,
      namespace: ns,
      route: `/${plural}/(?P<id>\\d+)`,
      methods: ['DELETE'],
      permission: 'edit_events',
      batch: true,
      args: { id: idArg(kind), ...tl },
      summary: `Trashes the ${kind} with the specified ID`,
      doc: single(kind, Kind, { '410': { description: `The ${kind} was already trashed.` } }),
    }),
    update: defineRoute({
      id: `${plural}.update`,
      namespace: ns,
      route: `/${plural}/(?P<id>\\d+)`,
      methods: ['POST', 'PUT', 'PATCH'],
      permission: 'edit_events',
      batch: true,
      args: { id: idArg(kind), ...updateArgs, ...tl },
      summary: `Edits the ${kind} with the specified ID`,
      doc: single(kind, Kind),
    }),
    create: defineRoute({
      id: `${plural}.create`,
      namespace: ns,
      route: `/${plural}`,
      methods: ['POST'],
      permission: 'edit_events',
      batch: true,
      args: { ...createArgs, ...tl },
      summary: `Creates a new ${kind}`,
      doc: {
        responses: {
          '201': { description: `Returns the data of the created ${kind}`, schema: Kind },
          '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
          '403': { description: `The user is not authorized to create ${plural}` },
        },
      },
    }),
    readBySlug: defineRoute({
      id: `${plural}.readBySlug`,
      namespace: ns,
      route: `/${plural}/by-slug/(?P<slug>[^/]+)`,
      methods: ['GET'],
      permission: 'public',
      publicCache: true,
      args: { slug: slugArg(kind), ...tl },
      summary: `Returns the data of the ${kind} with the specified slug`,
      doc: single(kind, Kind),
    }),
    deleteBySlug: defineRoute({
      id: `${plural}.deleteBySlug`,
      namespace: ns,
      route: `/${plural}/by-slug/(?P<slug>[^/]+)`,
      methods: ['DELETE'],
      permission: 'edit_events',
      batch: true,
      args: { slug: slugArg(kind), ...tl },
      summary: `Trashes the ${kind} with the specified slug`,
      doc: single(kind, Kind),
    }),
    updateBySlug: defineRoute({
      id: `${plural}.updateBySlug`,
      namespace: ns,
      route: `/${plural}/by-slug/(?P<slug>[^/]+)`,
      methods: ['POST', 'PUT', 'PATCH'],
      permission: 'edit_events',
      batch: true,
      args: { slug: slugArg(kind), ...updateArgs, ...tl },
      summary: `Edits the ${kind} with the specified slug`,
      doc: single(kind, Kind),
    }),
  };
}

const termRoutes = (plural: 'categories' | 'tags', singular: string, hierarchical: boolean) => ({
  list: defineRoute({
    id: `${plural}.list`,
    namespace: ns,
    route: `/${plural}`,
    methods: ['GET'],
    permission: 'public',
    publicCache: true,
    args: { ...termListArgs(hierarchical), ...tl },
    summary: `Returns a list of event ${plural}`,
    doc: {
      paramBounds: perPageBound,
      responses: {
        '200': {
          description: `Returns all the event ${plural} matching the search criteria`,
          schema: plural === 'tags' ? 'TagArchive' : 'CategoryArchive',
        },
        '400': { description: 'One or more of the specified query variables has a bad format' },
        '404': { description: 'The requested page was not found.' },
      },
    },
  }),
  create: defineRoute({
    id: `${plural}.create`,
    namespace: ns,
    route: `/${plural}`,
    methods: ['POST'],
    permission: 'edit_events',
    batch: true,
    args: { ...termFields(true, hierarchical), ...tl },
    summary: `Creates a new event ${singular}`,
    doc: {
      responses: {
        '201': { description: `Returns the data of the created event ${singular}`, schema: 'Term' },
        '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
        '403': { description: `The user is not authorized to create event ${plural}` },
      },
    },
  }),
  read: defineRoute({
    id: `${plural}.read`,
    namespace: ns,
    route: `/${plural}/(?P<id>\\d+)`,
    methods: ['GET'],
    permission: 'public',
    publicCache: true,
    args: { id: integer({ description: `the event ${singular} term ID`, required: true, style: 'callback', in: 'path', minimum: 0 }), ...tl },
    summary: `Returns the data of the event ${singular} with the specified term ID`,
    doc: single(`event ${singular}`, 'Term'),
  }),
  update: defineRoute({
    id: `${plural}.update`,
    namespace: ns,
    route: `/${plural}/(?P<id>\\d+)`,
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'edit_events',
    batch: true,
    args: {
      id: integer({ description: `the event ${singular} term ID`, required: true, style: 'callback', in: 'path', minimum: 0 }),
      ...termFields(false, hierarchical),
      ...tl,
    },
    summary: `Updates an event ${singular}`,
    doc: single(`event ${singular}`, 'Term'),
  }),
  delete: defineRoute({
    id: `${plural}.delete`,
    namespace: ns,
    route: `/${plural}/(?P<id>\\d+)`,
    methods: ['DELETE'],
    permission: 'edit_events',
    batch: true,
    args: { id: integer({ description: `the event ${singular} term ID`, required: true, style: 'callback', in: 'path', minimum: 0 }), ...tl },
    summary: `Deletes an event ${singular}`,
    doc: single(`event ${singular}`, 'Term'),
  }),
});

const eventSingle = { responses: { ...single('event', 'Event').responses } };

export const eventsRoutes = {
  list: defineRoute({
    id: 'events.list',
    namespace: ns,
    route: '/events',
    methods: ['GET'],
    permission: 'public',
    publicCache: true,
    args: eventListArgs,
    summary: 'Returns all the upcoming events matching the search criteria',
    doc: {
      paramBounds: perPageBound,
      responses: {
        '200': { description: 'Returns all the upcoming events matching the search criteria', schema: 'EventArchive' },
        '400': { description: 'One or more of the specified query variables has a bad format' },
        '404': { description: 'The requested page was not found.' },
      },
    },
  }),
  read: defineRoute({
    id: 'events.read',
    namespace: ns,
    route: '/events/(?P<id>\\d+)',
    methods: ['GET'],
    permission: 'public',
    publicCache: true,
    args: {
      id: idArg('event'),
      password: passwordArg,
      context: string({ description: 'Use `edit` with edit rights to bypass the password.' }),
      ...tl,
    },
    summary: 'Returns the data of the event with the specified post ID',
    doc: eventSingle,
  }),
  delete: defineRoute({
    id: 'events.delete',
    namespace: ns,
    route: '/events/(?P<id>\\d+)',
    methods: ['DELETE'],
    permission: 'edit_events',
    batch: true,
    args: { id: idArg('event'), password: passwordArg, ...tl },
    summary: 'Trashes the event with the specified ID',
    doc: { responses: { ...eventSingle.responses, '410': { description: 'The event was already trashed.' } } },
  }),
  update: defineRoute({
    id: 'events.update',
    namespace: ns,
    route: '/events/(?P<id>\\d+)',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'edit_events',
    batch: true,
    args: { id: idArg('event'), ...eventUpdateArgs, ...tl },
    summary: 'Edits the event with the specified ID',
    doc: eventSingle,
  }),
  create: defineRoute({
    id: 'events.create',
    namespace: ns,
    route: '/events',
    methods: ['POST'],
    permission: 'edit_events',
    batch: true,
    args: { ...eventCreateArgs, ...tl },
    summary: 'Creates a new event',
    doc: {
      responses: {
        '201': { description: 'Returns the data of the created event', schema: 'Event' },
        '400': { description: 'A required parameter is missing or an input parameter is in the wrong format' },
        '403': { description: 'The user is not authorized to create events' },
      },
    },
  }),
  readBySlug: defineRoute({
    id: 'events.readBySlug',
    namespace: ns,
    route: '/events/by-slug/(?P<slug>[^/]+)',
    methods: ['GET'],
    permission: 'public',
    publicCache: true,
    args: { slug: slugArg('event'), password: passwordArg, ...tl },
    summary: 'Returns the data of the event with the specified slug',
    doc: eventSingle,
  }),
  deleteBySlug: defineRoute({
    id: 'events.deleteBySlug',
    namespace: ns,
    route: '/events/by-slug/(?P<slug>[^/]+)',
    methods: ['DELETE'],
    permission: 'edit_events',
    batch: true,
    args: { slug: slugArg('event'), password: passwordArg, ...tl },
    summary: 'Trashes the event with the specified slug',
    doc: eventSingle,
  }),
  updateBySlug: defineRoute({
    id: 'events.updateBySlug',
    namespace: ns,
    route: '/events/by-slug/(?P<slug>[^/]+)',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'edit_events',
    batch: true,
    args: { ...eventUpdateArgs, slug: slugArg('event'), ...tl },
    summary: 'Edits the event with the specified slug',
    doc: eventSingle,
  }),
};

export const venuesRoutes = venueLike('venue', 'Venue', venueCreateArgs, venueUpdateArgs);
export const organizersRoutes = venueLike('organizer', 'Organizer', organizerCreateArgs, organizerUpdateArgs);
export const categoriesRoutes = termRoutes('categories', 'category', true);
export const tagsRoutes = termRoutes('tags', 'tag', false);

/** Registration order, as TEC registers them (it decides the order of the index). */
export const eventsNamespace: NamespaceDef = {
  name: ns,
  routes: [
    eventsRoutes.list,
    eventsRoutes.read,
    eventsRoutes.delete,
    eventsRoutes.update,
    eventsRoutes.create,
    eventsRoutes.readBySlug,
    eventsRoutes.deleteBySlug,
    eventsRoutes.updateBySlug,
    ...Object.values(venuesRoutes),
    ...Object.values(organizersRoutes),
    ...Object.values(categoriesRoutes),
    ...Object.values(tagsRoutes),
  ] as RouteDef[],
  doc: {
    title: 'The Events Calendar REST API',
    description: 'The Events Calendar REST API allows accessing upcoming events information easily and conveniently.',
    version: '1.0.0',
    schemas: {
      ImageSize,
      CostDetails,
      Term,
      Image,
      DateDetails,
      Event,
      Venue,
      Organizer,
      EventArchive,
      VenueArchive,
      OrganizerArchive,
      CategoryArchive,
      TagArchive,
    },
  },
};
