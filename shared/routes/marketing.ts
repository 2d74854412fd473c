import { z } from 'zod';
import { boolean, enumString, integer, string } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';

/**
 * `marketing/v1`: the marketing (mailing list) integration. The spec lists the namespace without its routes, so
 * this is our own small, real set. No request ever leaves the server: the audience is kept here, ready for a
 * provider, and the provider's API key is stored encrypted with a key derived from the site secret.
 *   GET  /connection                manage_options: the connection (never the key)
 *   POST|PUT|PATCH /connection      manage_options: provider, api_key, list_id
 *   DELETE /connection              manage_options: forget the key
 *   POST /opt-ins                   manage_attendees: record an attendee's consent (or its withdrawal); not batchable,
 *                                   and a key bound to an event reaches that event's attendees only
 *   GET  /audience                  manage_options: the synchronised audience, paged
 *   POST /audience/sync             manage_options: rebuild the audience from attendees' latest consent
 *   GET  /status                    manage_options: counts and the last sync
 * Handlers: server/routes/marketing/.
 */

export const MARKETING_NS = 'marketing/v1';
const ns = MARKETING_NS;
const tl = { translation_language: translationLanguage };

export const PROVIDERS = ['mailchimp', 'brevo', 'mailerlite', 'other'] as const;

export const Connection = z.object({
  connected: z.boolean(),
  provider: z.enum(PROVIDERS).nullable(),
  list_id: z.string().nullable(),
  key_last4: z.string().nullable(),
  connected_at: z.string().nullable(),
  last_sync: z.string().nullable(),
});

export const AudienceMember = z.object({
  email: z.string(),
  full_name: z.string(),
  attendee_id: z.number().int(),
  status: z.enum(['subscribed', 'unsubscribed']),
  synced: z.string(),
});

export const OptIn = z.object({ attendee_id: z.number().int(), consent: z.boolean(), source: z.string(), time: z.string() });
export const SyncResult = z.object({
  added: z.number().int(),
  updated: z.number().int(),
  unsubscribed: z.number().int(),
  unchanged: z.number().int(),
  subscribed: z.number().int(),
  synced_at: z.string(),
  list_id: z.string().nullable(),
  provider: z.enum(PROVIDERS).nullable(),
});
export const MarketingStatus = Connection.extend({
  opted_in_attendees: z.number().int(),
  audience: z.object({ subscribed: z.number().int(), unsubscribed: z.number().int() }),
});

export const marketingRoutes = {
  readConnection: defineRoute({
    id: 'marketing.connection.read',
    namespace: ns,
    route: '/connection',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'The mailing-list connection (the API key is never shown)',
    doc: { responses: { '200': { description: 'The connection', schema: 'Connection' } } },
  }),
  connect: defineRoute({
    id: 'marketing.connection.update',
    namespace: ns,
    route: '/connection',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'manage_options',
    args: {
      provider: enumString(PROVIDERS, { description: 'The mailing-list provider', required: true }),
      api_key: string({ description: 'The provider API key (20 to 200 letters, digits, - and _), stored encrypted', required: true }),
      list_id: string({ description: "The provider's list (audience) ID", required: true, maxLength: 100 }),
      ...tl,
    },
    summary: 'Connects the mailing list',
    doc: { responses: { '200': { description: 'The connection', schema: 'Connection' } } },
  }),
  disconnect: defineRoute({
    id: 'marketing.connection.delete',
    namespace: ns,
    route: '/connection',
    methods: ['DELETE'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Disconnects the mailing list and forgets its API key',
    doc: {
      responses: {
        '200': { description: 'The connection, now empty; deleted says whether there was one', schema: Connection.extend({ deleted: z.boolean() }) },
      },
    },
  }),
  optIn: defineRoute({
    id: 'marketing.opt-ins.create',
    namespace: ns,
    route: '/opt-ins',
    methods: ['POST'],
    permission: 'manage_attendees',
    batch: false,
    args: {
      attendee_id: integer({ description: 'The attendee', required: true, minimum: 1 }),
      consent: boolean({ description: 'true: the attendee agrees to marketing mail; false: withdraws', required: true }),
      source: string({ description: 'Where the consent was given (e.g. checkout, door)', maxLength: 40 }),
      ...tl,
    },
    summary: "Records an attendee's marketing consent",
    doc: {
      responses: {
        '201': { description: 'The consent recorded', schema: 'OptIn' },
        '400': { description: 'A parameter is missing or invalid, the attendee is not one the caller may reach, or it has no e-mail address.' },
      },
    },
  }),
  audience: defineRoute({
    id: 'marketing.audience.list',
    namespace: ns,
    route: '/audience',
    methods: ['GET'],
    permission: 'manage_options',
    args: {
      page: integer({ description: 'The page of results', default: 1, minimum: 1 }),
      per_page: integer({ description: 'Results per page (at most 100)', default: 20, minimum: 1, maximum: 100 }),
      status: enumString(['subscribed', 'unsubscribed', 'any'], { description: 'Limit to one status', default: 'any' as const }),
      ...tl,
    },
    summary: 'The audience as last synchronised',
    doc: {
      responses: {
        '200': { description: 'The members of the page (X-WP-Total, X-WP-TotalPages)', schema: 'AudienceMember[]' },
        '400': { description: 'A parameter is invalid, or the page is past the last.' },
      },
    },
  }),
  sync: defineRoute({
    id: 'marketing.audience.sync',
    namespace: ns,
    route: '/audience/sync',
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: "Rebuilds the audience from the attendees' latest consent",
    doc: {
      responses: {
        '200': { description: 'What the sync changed', schema: 'SyncResult' },
        '409': { description: 'No mailing list is connected, or its key cannot be read (`marketing_not_connected`, `marketing_key_unreadable`).' },
      },
    },
  }),
  status: defineRoute({
    id: 'marketing.status',
    namespace: ns,
    route: '/status',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Connection, audience counts and the last sync',
    doc: { responses: { '200': { description: 'The connection and the audience counts', schema: 'MarketingStatus' } } },
  }),
};

export const marketingNamespace: NamespaceDef = {
  name: ns,
  routes: Object.values(marketingRoutes) as RouteDef[],
  doc: {
    title: 'Marketing integration',
    description: 'Mailing-list connection and the audience of attendees who opted in.',
    version: '1.0.0',
    schemas: { Connection, AudienceMember, OptIn, SyncResult, MarketingStatus },
  },
};
