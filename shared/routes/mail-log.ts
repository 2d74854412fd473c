import { z } from 'zod';
import { defineRoute, translationLanguage, type DocResponse, type NamespaceDef, type RouteDef } from '../http/route.ts';

/**
 * The mail logging namespaces, `mail-log/v1` and `mail-log/v2`.
 *
 * Naming: the original is the Post SMTP plugin's API. Its mobile-app routes live in `post-smtp/v1`
 * (connect-app, get-logs, disconnect-site, get-log, resend-email) and `post-smtp/v2` (get-logs,
 * validate-license); its dashboard routes (get-details, email-count, get-failed-logs) in `psd/v1`. The spec
 * names two versions of one mail-logging namespace, so here they are `mail-log/v1` (the mobile v1 routes
 * plus the dashboard routes) and `mail-log/v2`, with the original route paths and methods kept.
 *
 * As the spec says, each route declares only `translation_language`: like the original, handlers read
 * their parameters from the request (server/routes/mail-log/params.ts validates them, WordPress style).
 * Answers keep the original shapes: `{"success": true|false, "data": ...}` for the mobile routes and
 * `{success, message, status, ...}` for the dashboard routes; log rows come as the original's database rows
 * (values are strings, as wpdb returns them).
 *
 * Who may call: an administrator (`manage_options`), or a connected mobile app presenting its token in the
 * `fcm_token` header (the original's only credential for the mobile routes). connect-app is where an app
 * trades the administrator's pairing key (`auth_key`) for a connection.
 */

export const MAIL_LOG_V1 = 'mail-log/v1';
export const MAIL_LOG_V2 = 'mail-log/v2';
/** Reported as `plugin_version` to the app. */
export const MAIL_LOG_API_VERSION = '1.0.0';

const tl = { translation_language: translationLanguage };
/** Post SMTP's failure: the contract's envelope plus `success: false` and the plugin's `data.error`/`data.message`. */
export const MailLogError = z.object({
  code: z.string(),
  message: z.string(),
  data: z.looseObject({ status: z.number().int(), error: z.string().optional(), message: z.string().optional() }),
  /** Absent from the errors the server gives before the handler runs (parameters, credentials). */
  success: z.literal(false).optional(),
});
const success = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

/** A log row as the list routes send it (the original's database row: values are strings). */
export const MailLogRow = z.object({ id: z.string(), original_subject: z.string(), to_header: z.string(), success: z.string(), time: z.string() });
const FailedLog = z.object({
  id: z.string(),
  subject: z.string(),
  sent_to: z.string(),
  status: z.enum(['success', 'failed']),
  delivery_time: z.string(),
  opened: z.boolean(),
  error: z.string().optional(),
});
const ConnectedApp = z.object({
  device: z.string(),
  token_hint: z.string(),
  server_url: z.string(),
  enable_notification: z.boolean(),
  connected: z.string(),
  last_seen: z.string().nullable(),
});
const dashboard = <S extends z.ZodRawShape>(shape: S) =>
  z.object({ success: z.literal(true), message: z.string(), status: z.literal(200), ...shape });

/**
 * Answers of the mail-log routes. As in the original, the mobile routes check the app token (or an
 * administrator) in the handler: 401 without either, 403 for a caller that is neither.
 */
const json = (description: string, schema: z.ZodType, more: Record<string, DocResponse> = {}) => ({
  responses: {
    '200': { description, schema },
    '401': { description: 'Neither a connected app token nor a signed-in administrator.' },
    '403': { description: 'The caller may not read the mail log (not an administrator, unknown app token), or nothing to act on.' },
    ...more,
  },
});
const notFound = { '404': { description: 'No such log entry (or license).' } };
/** Query parameters the handlers read themselves (server/routes/mail-log/params.ts), for `/doc`. */
const idParam = { name: 'id', in: 'query' as const, description: 'The log entry ID', required: true, schema: { type: 'integer', minimum: 1 } };
const listParams = [
  { name: 'start', in: 'query' as const, description: 'Offset (default 0)', schema: { type: 'integer', minimum: 0 } },
  { name: 'end', in: 'query' as const, description: 'How many rows (1 to 100, default 25)', schema: { type: 'integer', minimum: 1, maximum: 100 } },
  { name: 'filter', in: 'query' as const, description: 'Which rows', schema: { type: 'string', enum: ['all', 'success', 'failed', 'in_queue'] } },
  {
    name: 'query',
    in: 'query' as const,
    description: 'Search in subject, recipients and status (filter is then ignored)',
    schema: { type: 'string' },
  },
];

export const mailLogV1Routes = {
  connectApp: defineRoute({
    id: 'mail.connect-app',
    namespace: MAIL_LOG_V1,
    route: '/connect-app',
    methods: ['POST'],
    permission: 'public',
    args: { ...tl },
    summary:
      'Connects a mobile app. Headers: auth_key (the pairing key from GET connect-app), fcm_token (the app token, 16 to 4096 visible characters), device (name), server_url (optional, http or https)',
    doc: json(
      '{"success":true,"data":{"fcm_token","plugin_version"}}; a wrong or expired pairing key answers 200 with the failure {"success":false,"data":{"error":"Regenerate QR Code, and scan again."}}',
      z.union([success(z.object({ fcm_token: z.string(), plugin_version: z.string() })), MailLogError]),
    ),
  }),
  pairingKey: defineRoute({
    id: 'mail.pairing-key',
    namespace: MAIL_LOG_V1,
    route: '/connect-app',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Issues a new pairing key for a mobile app (valid 30 minutes, one use) with its QR code, and lists the connected apps',
    doc: json(
      '{"success":true,"data":{"auth_key","expires","connect_url","qr_code","connected":[...]}}',
      success(
        z.object({ auth_key: z.string(), expires: z.string(), connect_url: z.string(), qr_code: z.string(), connected: z.array(ConnectedApp) }),
      ),
    ),
  }),
  getLogs: defineRoute({
    id: 'mail.v1.get-logs',
    namespace: MAIL_LOG_V1,
    route: '/get-logs',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary:
      'Lists logged messages, newest first. Query: start (offset, default 0), end (count, 1 to 100, default 25), filter (all, success, failed, in_queue), query (search in subject, recipients and status; when given, filter is ignored). Header app_build_number >= 14 wraps the rows as {logs, plugin_version}',
    doc: {
      extraParams: listParams,
      ...json(
        '{"success":true,"data":[{"id","original_subject","to_header","success","time"}]} (app_build_number >= 14: {"logs","plugin_version"})',
        success(z.union([z.array(MailLogRow), z.object({ logs: z.array(MailLogRow), plugin_version: z.string() })])),
      ),
    },
  }),
  disconnectSite: defineRoute({
    id: 'mail.disconnect-site',
    namespace: MAIL_LOG_V1,
    route: '/disconnect-site',
    methods: ['POST', 'PUT', 'PATCH'],
    permission: 'public',
    args: { ...tl },
    summary: 'Disconnects the calling app (fcm_token header); an administrator without a token disconnects every app',
    doc: json(
      '{"success":true,"data":{"message":"Site Disconnected."}}; nothing connected: 403 {"success":false,"data":{"error":"Invalid Request."}}',
      success(z.object({ message: z.string() })),
    ),
  }),
  getLog: defineRoute({
    id: 'mail.get-log',
    namespace: MAIL_LOG_V1,
    route: '/get-log',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary: 'The address where one logged message can be viewed. Query: id (required), type (log or transcript, default log)',
    doc: {
      extraParams: [
        idParam,
        { name: 'type', in: 'query', description: 'log or transcript (default log)', schema: { type: 'string', enum: ['log', 'transcript'] } },
      ],
      ...json('{"success":true,"data":"<url>"}', success(z.string()), notFound),
    },
  }),
  resendEmail: defineRoute({
    id: 'mail.v1.resend-email',
    namespace: MAIL_LOG_V1,
    route: '/resend-email',
    methods: ['POST'],
    permission: 'public',
    args: { ...tl },
    summary:
      'Sends a logged message again and waits for the outcome. Body: id (required), sent_to (optional comma-separated recipients: a copy goes to them instead)',
    doc: json(
      '{"success":true,"data":{"message":"Email successfully resend.",...}}; failure: {"success":false,"data":{"message":"Email not send.",...}}',
      z.union([
        success(
          z.looseObject({ message: z.string(), id: z.number().int(), status: z.string(), resend_count: z.number().int(), transport: z.string() }),
        ),
        MailLogError,
      ]),
      notFound,
    ),
  }),
  getDetails: defineRoute({
    id: 'mail.get-details',
    namespace: MAIL_LOG_V1,
    route: '/get-details',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary:
      'One logged message. Query: id (required), type (show_view: the message; show_transcript: the delivery transcript). Apps may pass their token as access_token (the get-log URL)',
    doc: {
      extraParams: [
        idParam,
        {
          name: 'type',
          in: 'query',
          description: 'show_view (the message) or show_transcript',
          schema: { type: 'string', enum: ['show_view', 'show_transcript'] },
        },
      ],
      ...json(
        '{"success":true,"message":"Details fetched successfully","status":200,"details":{...}}',
        dashboard({ details: z.record(z.string(), z.unknown()) }),
        notFound,
      ),
    },
  }),
  emailCount: defineRoute({
    id: 'mail.email-count',
    namespace: MAIL_LOG_V1,
    route: '/email-count',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Counts messages since the start of today, of 7 days ago or of a month ago (site time). Query: period (day, week, month; default day)',
    doc: {
      extraParams: [
        {
          name: 'period',
          in: 'query',
          description: 'Since the start of today, of 7 days ago or of a month ago (default day)',
          schema: { type: 'string', enum: ['day', 'week', 'month'] },
        },
      ],
      ...json(
        '{"success":true,"message":"Email count fetched successfully","status":200,"count":{"success","failed","total"}}',
        dashboard({ count: z.object({ success: z.number().int(), failed: z.number().int(), total: z.number().int() }) }),
      ),
    },
  }),
  getFailedLogs: defineRoute({
    id: 'mail.get-failed-logs',
    namespace: MAIL_LOG_V1,
    route: '/get-failed-logs',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Failed messages, newest first, with how long ago they were sent',
    doc: json(
      '{"success":true,"message":"Failed logs fetched successfully","status":200,"logs":...} (a list, or an object keyed by position as PHP filters it)',
      dashboard({ logs: z.union([z.array(FailedLog), z.record(z.string(), FailedLog)]) }),
    ),
  }),
};

export const mailLogV2Routes = {
  getLogs: defineRoute({
    id: 'mail.v2.get-logs',
    namespace: MAIL_LOG_V2,
    route: '/get-logs',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary: 'Lists logged messages, newest first, as {logs, plugin_version}. Query: start, end, filter, query as in v1',
    doc: {
      extraParams: listParams,
      ...json(
        '{"success":true,"data":{"logs":[...],"plugin_version"}}',
        success(z.object({ logs: z.array(MailLogRow), plugin_version: z.string() })),
      ),
    },
  }),
  validateLicense: defineRoute({
    id: 'mail.validate-license',
    namespace: MAIL_LOG_V2,
    route: '/validate-license',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary: 'Validates the stored license key (format DSMAIL-XXXXX-XXXXX-XXXXX-XXXXX, Crockford base32, last character a check symbol)',
    doc: json(
      '{"success":true,"data":{"license","key","activated","checked"}}; none or invalid: 404 {"success":false,"data":{"message":"License not found."}}',
      success(z.looseObject({ license: z.string(), key: z.string() })),
      notFound,
    ),
  }),
  activateLicense: defineRoute({
    id: 'mail.activate-license',
    namespace: MAIL_LOG_V2,
    route: '/validate-license',
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Stores a license key after checking its format. Body: license_key (required)',
    doc: json('{"success":true,"data":{"license":"valid",...}}', success(z.looseObject({ license: z.string() }))),
  }),
};

export const mailLogV1Namespace: NamespaceDef = {
  name: MAIL_LOG_V1,
  routes: Object.values(mailLogV1Routes) as RouteDef[],
  doc: {
    title: 'Mail log',
    description: 'The mail log of the site, for administrators and connected mobile apps.',
    version: '1.0.0',
    schemas: { MailLogError, MailLogRow },
    errorSchema: 'MailLogError',
  },
};

export const mailLogV2Namespace: NamespaceDef = {
  name: MAIL_LOG_V2,
  routes: Object.values(mailLogV2Routes) as RouteDef[],
  doc: {
    title: 'Mail log',
    description: 'The mail log of the site, version 2.',
    version: '2.0.0',
    schemas: { MailLogError, MailLogRow },
    errorSchema: 'MailLogError',
  },
};
