import { z } from 'zod';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';

/**
 * `security/v1`: the security scanner, after Wordfence's `wordfence/v1` routes (same paths, methods and body
 * shapes; as there, the routes declare no arguments besides the language, and the handlers read `data`,
 * `signature`, `fields`, `issue`, `group`, `offset`, `limit` from the request). Differences: every route but
 * `GET|POST /authenticate` needs `manage_options` (the original checks a Central token instead), no call ever
 * leaves the server, and a scan runs this site's own checks (weak start-up password, default admin logins,
 * idle API keys and application passwords, a non-HTTPS public URL, open registration, too many administrators).
 * Added: `GET /scan/issue?id=` reads one issue. Handlers: server/routes/security/.
 */

export const SECURITY_NS = 'security/v1';
const ns = SECURITY_NS;
const tl = { translation_language: translationLanguage };
const EDITABLE = ['POST', 'PUT', 'PATCH'] as const;

/** The scanner's settings (`config` route), with their defaults. */
export const SecurityConfig = z.object({
  scansEnabled_weakPasswords: z.boolean().default(true),
  scansEnabled_defaultLogins: z.boolean().default(true),
  scansEnabled_apiKeys: z.boolean().default(true),
  scansEnabled_https: z.boolean().default(true),
  scansEnabled_registration: z.boolean().default(true),
  scansEnabled_administrators: z.boolean().default(true),
  /** Keys and application passwords idle this long are reported. */
  apiKeyMaxIdleDays: z.number().int().min(7).max(3650).default(90),
  maxAdministrators: z.number().int().min(1).max(50).default(3),
  /** Comma-separated addresses for alerts. */
  alertEmails: z
    .string()
    .max(500)
    .refine(
      (s) =>
        s
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean)
          .every((e) => /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(e)),
      'Invalid email address',
    )
    .default(''),
});
export type SecurityConfig = z.infer<typeof SecurityConfig>;

export const ISSUE_STATUSES = ['new', 'ignoreP', 'ignoreC'] as const;

export const SecurityIssue = z.object({
  id: z.number().int(),
  time: z.number().int(),
  lastUpdated: z.number().int(),
  status: z.enum(ISSUE_STATUSES),
  type: z.string(),
  severity: z.number().int(),
  ignoreP: z.string(),
  ignoreC: z.string(),
  shortMsg: z.string(),
  longMsg: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const IssueList = z.object({ count: z.number().int(), 'last-scan-time': z.number().int().nullable(), issues: z.array(SecurityIssue) });

const Success = z.object({ success: z.literal(true) });
export const ConfigAnswer = z.object({
  config: SecurityConfig.partial(),
  info: z.looseObject({ site_url: z.string(), rest_url: z.string(), https: z.boolean(), connected: z.boolean(), premium: z.boolean() }),
});
const forbiddenContext = {
  '401': { description: 'Not signed in, or the signature or token is not valid (`rest_forbidden_context`).' },
  '403': { description: 'The caller may not do this, or the site is not connected (`rest_forbidden_context`).' },
};

export const securityRoutes = {
  nonce: defineRoute({
    id: 'security.authenticate.nonce',
    namespace: ns,
    route: '/authenticate',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary: 'A short-lived nonce for the connected account to sign',
    doc: { responses: { '200': { description: 'The nonce', schema: z.object({ nonce: z.string(), admin_url: z.string() }) } } },
  }),
  authenticate: defineRoute({
    id: 'security.authenticate',
    namespace: ns,
    route: '/authenticate',
    methods: ['POST'],
    permission: 'public',
    args: { ...tl },
    summary: 'Exchanges `data` (`<nonce>|<site id>`) and its Ed25519 `signature` (hex) by the connected account for a token',
    doc: {
      responses: { '200': { description: 'The token', schema: z.object({ token: z.string(), expires: z.number().int() }) }, ...forbiddenContext },
    },
  }),
  authenticatePremium: defineRoute({
    id: 'security.authenticate-premium',
    namespace: ns,
    route: '/authenticate-premium',
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Activates a premium license: `license_key` (64 to 128 hex digits), stored only as a keyed hash',
    doc: {
      responses: {
        '200': {
          description: 'The license is active',
          schema: z.object({ success: z.literal(true), premium: z.literal(true), key_last4: z.string() }),
        },
      },
    },
  }),
  readConfig: defineRoute({
    id: 'security.config.read',
    namespace: ns,
    route: '/config',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'The scanner settings (`fields` limits them) and site information',
    doc: { responses: { '200': { description: 'The settings and the site information', schema: 'ConfigAnswer' } } },
  }),
  setConfig: defineRoute({
    id: 'security.config.update',
    namespace: ns,
    route: '/config',
    methods: EDITABLE,
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Saves scanner settings from the `fields` object (422 on a validation error)',
    doc: {
      responses: {
        '200': { description: 'Saved', schema: Success },
        '422': { description: 'A setting is invalid (`rest_save_config_error`, `rest_set_config_error`).' },
      },
    },
  }),
  disconnect: defineRoute({
    id: 'security.disconnect',
    namespace: ns,
    route: '/disconnect',
    methods: EDITABLE,
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Disconnects the site from its account and forgets the account keys',
    doc: { responses: { '200': { description: 'Disconnected', schema: z.object({ success: z.literal(true), was_connected: z.boolean() }) } } },
  }),
  premiumConnect: defineRoute({
    id: 'security.premium-connect',
    namespace: ns,
    route: '/premium-connect',
    methods: EDITABLE,
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Connects the account: `public-key` (Ed25519, hex), `site-id` (UUID), `site-data`; answers with the site public key',
    doc: {
      responses: {
        '200': { description: 'Connected', schema: z.object({ success: z.literal(true), 'public-key': z.string() }) },
        ...forbiddenContext,
      },
    },
  }),
  issues: defineRoute({
    id: 'security.scan.issues',
    namespace: ns,
    route: '/scan/issues',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Issues of the last scan: `group` (all or pending), `offset`, `limit` (default 100)',
    doc: { responses: { '200': { description: 'The issues', schema: 'IssueList' } } },
  }),
  scan: defineRoute({
    id: 'security.scan.start',
    namespace: ns,
    route: '/scan',
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Runs a scan of this site now and stores its issues',
    doc: {
      responses: {
        '200': {
          description: 'The scan',
          schema: z.object({
            success: z.literal(true),
            scan: z.object({
              id: z.number().int(),
              started: z.number().int(),
              finished: z.number().int(),
              issue_count: z.number().int(),
              pending_count: z.number().int(),
            }),
          }),
        },
      },
    },
  }),
  stopScan: defineRoute({
    id: 'security.scan.stop',
    namespace: ns,
    route: '/scan',
    methods: ['DELETE'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Stops a running scan (scans run to completion within the request, so none is ever left running)',
    doc: { responses: { '200': { description: 'Nothing is running', schema: z.object({ success: z.literal(true), running: z.literal(false) }) } } },
  }),
  updateIssue: defineRoute({
    id: 'security.scan.issue.update',
    namespace: ns,
    route: '/scan/issue',
    methods: EDITABLE,
    permission: 'manage_options',
    args: { ...tl },
    summary: "Sets an issue's status: `issue` = {id, status: new | ignoreP | ignoreC}",
    doc: {
      responses: {
        '200': {
          description: 'Saved, or (as the original) `{success: false, error}` when the last scan has no such issue',
          schema: z.union([Success, z.object({ success: z.literal(false), error: z.string() })]),
        },
      },
    },
  }),
  readIssue: defineRoute({
    id: 'security.scan.issue.read',
    namespace: ns,
    route: '/scan/issue',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'One issue of the last scan by `id` (an extension of this server)',
    doc: { responses: { '200': { description: 'The issue', schema: 'SecurityIssue' }, '404': { description: 'The last scan has no such issue.' } } },
  }),
};

export const securityNamespace: NamespaceDef = {
  name: ns,
  routes: Object.values(securityRoutes) as RouteDef[],
  doc: {
    title: 'Security scanner',
    description: "Scans this site's configuration for weaknesses and keeps the account connection state.",
    version: '1.0.0',
    schemas: { SecurityConfig, SecurityIssue, IssueList, ConfigAnswer },
  },
};
