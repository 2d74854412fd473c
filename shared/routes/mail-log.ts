import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';

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
const json = (description: string) => ({ responses: { '200': { description } } });

export const mailLogV1Routes = {
  connectApp: defineRoute({
    id: 'mail.connect-app', namespace: MAIL_LOG_V1, route: '/connect-app', methods: ['POST'], permission: 'public', args: { ...tl },
    summary: 'Connects a mobile app. Headers: auth_key (the pairing key from GET connect-app), fcm_token (the app token, 16 to 4096 visible characters), device (name), server_url (optional, http or https)',
    doc: json('{"success":true,"data":{"fcm_token","plugin_version"}}; a wrong or expired pairing key: {"success":false,"data":{"error":"Regenerate QR Code, and scan again."}}'),
  }),
  pairingKey: defineRoute({
    id: 'mail.pairing-key', namespace: MAIL_LOG_V1, route: '/connect-app', methods: ['GET'], permission: 'manage_options', args: { ...tl },
    summary: 'Issues a new pairing key for a mobile app (valid 30 minutes, one use) with its QR code, and lists the connected apps',
    doc: json('{"success":true,"data":{"auth_key","expires","connect_url","qr_code","connected":[...]}}'),
  }),
  getLogs: defineRoute({
    id: 'mail.v1.get-logs', namespace: MAIL_LOG_V1, route: '/get-logs', methods: ['GET'], permission: 'public', args: { ...tl },
    summary: 'Lists logged messages, newest first. Query: start (offset, default 0), end (count, 1 to 100, default 25), filter (all, success, failed, in_queue), query (search in subject, recipients and status; when given, filter is ignored). Header app_build_number >= 14 wraps the rows as {logs, plugin_version}',
    doc: json('{"success":true,"data":[{"id","original_subject","to_header","success","time"}]}'),
  }),
  disconnectSite: defineRoute({
    id: 'mail.disconnect-site', namespace: MAIL_LOG_V1, route: '/disconnect-site', methods: ['POST', 'PUT', 'PATCH'], permission: 'public', args: { ...tl },
    summary: 'Disconnects the calling app (fcm_token header); an administrator without a token disconnects every app',
    doc: json('{"success":true,"data":{"message":"Site Disconnected."}}; nothing connected: 403 {"success":false,"data":{"error":"Invalid Request."}}'),
  }),
  getLog: defineRoute({
    id: 'mail.get-log', namespace: MAIL_LOG_V1, route: '/get-log', methods: ['GET'], permission: 'public', args: { ...tl },
    summary: 'The address where one logged message can be viewed. Query: id (required), type (log or transcript, default log)',
    doc: json('{"success":true,"data":"<url>"}'),
  }),
  resendEmail: defineRoute({
    id: 'mail.v1.resend-email', namespace: MAIL_LOG_V1, route: '/resend-email', methods: ['POST'], permission: 'public', args: { ...tl },
    summary: 'Sends a logged message again and waits for the outcome. Body: id (required), sent_to (optional comma-separated recipients: a copy goes to them instead)',
    doc: json('{"success":true,"data":{"message":"Email successfully resend.",...}}; failure: {"success":false,"data":{"message":"Email not send.",...}}'),
  }),
  getDetails: defineRoute({
    id: 'mail.get-details', namespace: MAIL_LOG_V1, route: '/get-details', methods: ['GET'], permission: 'public', args: { ...tl },
    summary: 'One logged message. Query: id (required), type (show_view: the message; show_transcript: the delivery transcript). Apps may pass their token as access_token (the get-log URL)',
    doc: json('{"success":true,"message":"Details fetched successfully","status":200,"details":{...}}'),
  }),
  emailCount: defineRoute({
    id: 'mail.email-count', namespace: MAIL_LOG_V1, route: '/email-count', methods: ['GET'], permission: 'manage_options', args: { ...tl },
    summary: 'Counts messages since the start of today, of 7 days ago or of a month ago (site time). Query: period (day, week, month; default day)',
    doc: json('{"success":true,"message":"Email count fetched successfully","status":200,"count":{"success","failed","total"}}'),
  }),
  getFailedLogs: defineRoute({
    id: 'mail.get-failed-logs', namespace: MAIL_LOG_V1, route: '/get-failed-logs', methods: ['GET'], permission: 'manage_options', args: { ...tl },
    summary: 'Failed messages, newest first, with how long ago they were sent',
    doc: json('{"success":true,"message":"Failed logs fetched successfully","status":200,"logs":...}'),
  }),
};

export const mailLogV2Routes = {
  getLogs: defineRoute({
    id: 'mail.v2.get-logs', namespace: MAIL_LOG_V2, route: '/get-logs', methods: ['GET'], permission: 'public', args: { ...tl },
    summary: 'Lists logged messages, newest first, as {logs, plugin_version}. Query: start, end, filter, query as in v1',
    doc: json('{"success":true,"data":{"logs":[...],"plugin_version"}}'),
  }),
  validateLicense: defineRoute({
    id: 'mail.validate-license', namespace: MAIL_LOG_V2, route: '/validate-license', methods: ['GET'], permission: 'public', args: { ...tl },
    summary: 'Validates the stored license key (format DSMAIL-XXXXX-XXXXX-XXXXX-XXXXX, Crockford base32, last character a check symbol)',
    doc: json('{"success":true,"data":{"license","key","activated","checked"}}; none or invalid: 404 {"success":false,"data":{"message":"License not found."}}'),
  }),
  activateLicense: defineRoute({
    id: 'mail.activate-license', namespace: MAIL_LOG_V2, route: '/validate-license', methods: ['POST'], permission: 'manage_options', args: { ...tl },
    summary: 'Stores a license key after checking its format. Body: license_key (required)',
    doc: json('{"success":true,"data":{"license":"valid",...}}'),
  }),
};

export const mailLogV1Namespace: NamespaceDef = {
  name: MAIL_LOG_V1,
  routes: Object.values(mailLogV1Routes) as RouteDef[],
  doc: { title: 'Mail log', description: 'The mail log of the site, for administrators and connected mobile apps.', version: '1.0.0', schemas: {} },
};

export const mailLogV2Namespace: NamespaceDef = {
  name: MAIL_LOG_V2,
  routes: Object.values(mailLogV2Routes) as RouteDef[],
  doc: { title: 'Mail log', description: 'The mail log of the site, version 2.', version: '2.0.0', schemas: {} },
};
