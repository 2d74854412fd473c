import { z } from 'zod';
import { boolean, custom, enumString, idList, integer, MAX_LIST_ITEMS, object, parseList, string, wpIssue } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';
import {
  CreatedForm,
  DownloadLink,
  FieldInput,
  FormField,
  FormSummary,
  HandleExtraResult,
  SingleSubmission,
  SubmissionColumn,
  SubmissionPage,
  SubmitResult,
  ViewsToken,
} from '../models/forms.ts';

/**
 * The two forms namespaces, after the original form plugin's admin API (`ninja-forms-submissions` and
 * `ninja-forms-views`, renamed). Argument names and types are the original's; the routes marked "additive"
 * are ours (creating forms, the public submit, fetching a download-all file by its signed link).
 * Handlers live in server/routes/forms/.
 */

export const SUBMISSIONS_NS = 'forms-submissions';
export const VIEWS_NS = 'forms-views';
const tl = { translation_language: translationLanguage };

/** A JSON-encoded submission entity: a string holding a JSON object, or (as the original also reads it) the object itself. */
const jsonSubmission = <const O extends { required?: boolean; description: string }>(o: O) =>
  custom(
    z.unknown().transform((v, ctx): Record<string, unknown> => {
      let parsed = v;
      if (typeof v === 'string') {
        try {
          parsed = JSON.parse(v);
        } catch {
          return wpIssue(ctx, 'rest_invalid_json_param', '%s is not valid JSON.');
        }
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        return wpIssue(ctx, 'rest_invalid_type', '%s is not a JSON-encoded submission object.');
      return parsed as Record<string, unknown>;
    }),
    z.string(),
    { ...o, extra: { format: 'json' } },
  );

/** Submission IDs: integers, numeric strings or submission entities (`{submissionRecordId}`), as an array or CSV. */
const submissionIds = (description: string) => {
  // An empty list is valid and changes nothing, as in the original.
  const base = z.array(z.number().int().min(1)).max(MAX_LIST_ITEMS);
  const schema = z.preprocess((v) => {
    const l = parseList(v);
    if (!Array.isArray(l)) return l;
    return l.slice(0, MAX_LIST_ITEMS + 1).map((x) => {
      const id = x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>).submissionRecordId : x;
      return typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id;
    });
  }, base);
  return custom(schema, base, { description, required: true });
};

const formIds = (description: string, required: boolean) => idList({ description, required });
const pathId = integer({ description: 'Unique identifier for the object.', required: true, in: 'path' });

export const HANDLE_EXTRA = ['read', 'unread', 'star', 'unstar', 'spam', 'not_spam', 'note', 'csv'] as const;
export const SETTING_NAMES = ['hiddenFields', 'pageSize', 'sort', 'dateFormat'] as const;

export const submissionsRoutes = {
  get: defineRoute({
    id: 'forms.submissions.get',
    namespace: SUBMISSIONS_NS,
    route: '/submissions/get',
    methods: ['GET'],
    permission: 'manage_forms',
    args: {
      form_ids: formIds('Form IDs', true),
      type: enumString(['data', 'columns'], { description: 'data: the submissions; columns: the field definitions', default: 'data' as const }),
      page_size: integer({ description: 'Submissions per page', default: 10, minimum: 1, maximum: 100 }),
      current_page: integer({ description: 'Page of submissions', default: 1, minimum: 1 }),
      start_date: string({ description: 'Only submissions on or after this date (Unix timestamp or date string)' }),
      end_date: string({ description: 'Only submissions on or before this date (Unix timestamp or date string)' }),
      search_term: string({ description: 'Only submissions with a value containing this text', maxLength: 200 }),
      status: enumString(['active', 'trash'], { description: 'active submissions, or those in the trash', default: 'active' as const }),
      ...tl,
    },
    summary: 'Returns the submissions (or the field definitions) of forms',
    doc: {
      responses: {
        '200': {
          description: '{data: SingleSubmission[], count}, or (type=columns) the field definitions',
          schema: z.union([SubmissionPage, z.array(SubmissionColumn)]),
        },
      },
    },
  }),
  delete: defineRoute({
    id: 'forms.submissions.delete',
    namespace: SUBMISSIONS_NS,
    route: '/submissions/delete',
    methods: ['POST'],
    permission: 'manage_forms',
    args: { submissions: submissionIds('Submissions'), ...tl },
    summary: 'Moves submissions to the trash; answers "ok"',
    doc: { responses: { '200': { description: '"ok"', schema: z.literal('ok') }, '404': { description: 'No such submission.' } } },
  }),
  update: defineRoute({
    id: 'forms.submissions.update',
    namespace: SUBMISSIONS_NS,
    route: '/submissions/update',
    methods: ['POST'],
    permission: 'manage_forms',
    args: { singleSubmission: jsonSubmission({ required: true, description: 'Update single Submission' }), ...tl },
    summary: 'Updates the values of one submission; answers "ok"',
    doc: { responses: { '200': { description: '"ok"', schema: z.literal('ok') }, '404': { description: 'No such submission.' } } },
  }),
  restore: defineRoute({
    id: 'forms.submissions.restore',
    namespace: SUBMISSIONS_NS,
    route: '/submissions/restore',
    methods: ['POST'],
    permission: 'manage_forms',
    args: {
      restore: boolean({ description: 'true restores the submissions from the trash; false deletes them for good', required: true }),
      submissions: submissionIds('Array of Submissions'),
      ...tl,
    },
    summary: 'Restores trashed submissions, or deletes them permanently; answers "ok"',
    doc: { responses: { '200': { description: '"ok"', schema: z.literal('ok') }, '404': { description: 'No such submission.' } } },
  }),
  handleExtra: defineRoute({
    id: 'forms.submissions.handleExtra',
    namespace: SUBMISSIONS_NS,
    route: '/submissions/handle-extra',
    methods: ['POST'],
    permission: 'manage_forms',
    args: {
      singleSubmission: jsonSubmission({ required: true, description: 'Update Submission' }),
      handleExtra: enumString(HANDLE_EXTRA, { description: 'Extra Handler of Submission', required: true }),
      ...tl,
    },
    summary: 'Sets a flag of a submission (read, starred, spam, note) or downloads it as CSV',
    doc: { responses: { '200': { description: '{responseType, download, blobType, result, filename}', schema: 'HandleExtraResult' } } },
  }),
  export: defineRoute({
    id: 'forms.submissions.export',
    namespace: SUBMISSIONS_NS,
    route: '/export',
    methods: ['POST'],
    permission: 'manage_forms',
    args: {
      form_ids: formIds('Array of Form IDs we want to get the submissions from.', false),
      start_date: string({ description: 'Date (Unix timestamp or date string) of the first submissions to export.' }),
      end_date: string({ description: 'Date (Unix timestamp or date string) of the last submissions to export.' }),
      singleSubmission: jsonSubmission({ description: 'Export single submission if a JSON encoded submission is passed' }),
      submissions: custom(submissionIds('').schema, z.array(z.number().int()), {
        description: 'Export submissions based on array of submissions IDs',
      }),
      ...tl,
    },
    summary: 'Exports submissions as CSV text, one CSV per form',
    doc: { responses: { '200': { description: 'Object keyed by form ID, each value a CSV document', schema: z.record(z.string(), z.string()) } } },
  }),
  downloadAll: defineRoute({
    id: 'forms.submissions.downloadAll',
    namespace: SUBMISSIONS_NS,
    route: '/download-all',
    methods: ['POST'],
    permission: 'manage_forms',
    args: { form_ids: formIds('Array of Form IDs we want to get the submissions from.', false), ...tl },
    summary: 'Writes the submissions of the forms to a private file and returns an expiring link to it',
    doc: { responses: { '200': { description: '{formId, downloadUrl, filePath, formIds, expires}', schema: 'DownloadLink' } } },
  }),
  deleteDownloadFile: defineRoute({
    id: 'forms.submissions.deleteDownloadFile',
    namespace: SUBMISSIONS_NS,
    route: '/delete-download-file',
    methods: ['POST'],
    permission: 'manage_forms',
    args: { file_path: string({ description: 'File path of the file to delete', required: true, maxLength: 255 }), ...tl },
    summary: 'Deletes a file made by download-all (only inside the private downloads directory)',
    doc: {
      responses: {
        '200': { description: '{result}: what became of the file', schema: z.object({ result: z.string() }) },
        '403': { description: 'The path is not a file of the downloads directory.' },
      },
    },
  }),
  setSettings: defineRoute({
    id: 'forms.submissions.setSettings',
    namespace: SUBMISSIONS_NS,
    route: '/set-submissions-settings',
    methods: ['POST'],
    permission: 'manage_forms',
    args: {
      settingName: string({ description: 'Setting name in the submissionsSettings array', required: true }),
      data: object({ description: 'Settings data' }),
      formID: string({ description: 'Form ID of the setting saved' }),
      ...tl,
    },
    summary: 'Saves a setting of the submissions screen (answers a JSON-encoded {message, status})',
    doc: { responses: { '200': { description: 'JSON-encoded {message, status}', schema: z.string() } } },
  }),
  getSettings: defineRoute({
    id: 'forms.submissions.getSettings',
    namespace: SUBMISSIONS_NS,
    route: '/get-submissions-settings',
    methods: ['GET'],
    permission: 'manage_forms',
    args: { ...tl },
    summary: 'Returns the settings of the submissions screen, JSON-encoded',
    doc: { responses: { '200': { description: 'JSON-encoded settings keyed by form ID ("false" when none)', schema: z.string() } } },
  }),
  emailAction: defineRoute({
    id: 'forms.submissions.emailAction',
    namespace: SUBMISSIONS_NS,
    route: '/email-action',
    methods: ['POST'],
    permission: 'manage_forms',
    args: {
      submission: integer({ description: 'Submission ID', required: true }),
      action_settings: object({ description: 'Email Action Settings', required: true }),
      ...tl,
    },
    summary: 'Sends a submission by e-mail (answers true when sent, else the submission number)',
    doc: {
      responses: {
        '200': { description: 'true, or the sequence number when sending failed', schema: z.union([z.literal(true), z.number().int()]) },
        '404': { description: 'No such submission.' },
      },
    },
  }),
  download: defineRoute({
    id: 'forms.submissions.download',
    namespace: SUBMISSIONS_NS,
    route: '/download',
    methods: ['GET'],
    permission: 'public',
    args: { token: string({ description: 'The signed link token from download-all', required: true, maxLength: 1000 }), ...tl },
    summary: 'Additive: serves a download-all file while its signed link is valid',
    doc: {
      responses: {
        '200': { description: 'The CSV or ZIP file', media: ['text/csv', 'application/zip'] },
        '403': { description: 'The link is invalid or expired.' },
        '404': { description: 'The file is gone.' },
      },
    },
  }),
};

export const viewsRoutes = {
  forms: defineRoute({
    id: 'forms.views.forms',
    namespace: VIEWS_NS,
    route: '/forms',
    methods: ['GET'],
    permission: 'public',
    args: { ...tl },
    summary: 'Lists the forms (a manager, or a views token for the forms it covers)',
    doc: {
      responses: {
        '200': { description: 'The forms', schema: 'FormSummary[]' },
        '403': { description: 'The caller may not read forms (a manager, or a views token for the form).' },
      },
    },
  }),
  createForm: defineRoute({
    id: 'forms.views.createForm',
    namespace: VIEWS_NS,
    route: '/forms',
    methods: ['POST'],
    permission: 'manage_forms',
    args: {
      title: string({ description: 'The form title', required: true, minLength: 1, maxLength: 200 }),
      fields: custom(
        z.array(FieldInput).min(1).max(100),
        z.array(
          z.object({
            label: z.string(),
            type: z.string(),
            key: z.string().optional(),
            required: z.boolean().optional(),
            options: z.array(z.string()).optional(),
          }),
        ),
        {
          description: 'The fields: {label, type, key?, required?, options?}',
          required: true,
        },
      ),
      ...tl,
    },
    summary: 'Additive: creates a form with its fields',
    doc: { responses: { '201': { description: 'The form with its fields', schema: 'CreatedForm' } } },
  }),
  fields: defineRoute({
    id: 'forms.views.fields',
    namespace: VIEWS_NS,
    route: '/forms/(?P<id>\\d+)/fields',
    methods: ['GET'],
    permission: 'public',
    args: { id: pathId, ...tl },
    summary: 'Lists the input fields of a form',
    doc: {
      responses: {
        '200': { description: 'The fields', schema: 'FormField[]' },
        '403': { description: 'The caller may not read this form.' },
        '404': { description: 'No such form.' },
      },
    },
  }),
  submissions: defineRoute({
    id: 'forms.views.submissions',
    namespace: VIEWS_NS,
    route: '/forms/(?P<id>\\d+)/submissions',
    methods: ['GET'],
    permission: 'public',
    args: {
      id: pathId,
      perPage: integer({ description: 'Maximum number of items to be returned in result set.', minimum: 1, maximum: 100 }),
      page: integer({ description: 'Current page of the collection.', default: 1, minimum: 1 }),
      ...tl,
    },
    summary: 'Lists the submissions of a form, newest first, as {field id: text}',
    doc: {
      responses: {
        '200': { description: 'The submissions, each {field ID: displayed value}', schema: z.array(z.record(z.string(), z.string())) },
        '403': { description: 'The caller may not read this form.' },
        '404': { description: 'No such form.' },
      },
    },
  }),
  submit: defineRoute({
    id: 'forms.views.submit',
    namespace: VIEWS_NS,
    route: '/forms/(?P<id>\\d+)/submit',
    methods: ['POST'],
    permission: 'public',
    args: { id: pathId, values: object({ description: 'Values keyed by field key or field ID', required: true }), ...tl },
    summary: 'Additive: submits a form (public, rate-limited per client address)',
    doc: {
      responses: {
        '201': { description: 'The new submission', schema: 'SubmitResult' },
        '400': { description: 'A value is missing or invalid.' },
        '429': { description: 'Too many submissions.' },
      },
    },
  }),
  tokenRefresh: defineRoute({
    id: 'forms.views.tokenRefresh',
    namespace: VIEWS_NS,
    route: '/token/refresh',
    methods: ['POST'],
    permission: 'manage_forms',
    args: { formID: integer({ description: 'Limit the new token to this form', minimum: 1 }), ...tl },
    summary: 'Issues a short-lived views token bound to the caller (and revokes the one sent in X-EVT-FormsViews-Auth)',
    doc: { responses: { '200': { description: '{token, publicKey, expiresIn, formID}', schema: 'ViewsToken' } } },
  }),
};

export const formsSubmissionsNamespace: NamespaceDef = {
  name: SUBMISSIONS_NS,
  routes: Object.values(submissionsRoutes) as RouteDef[],
  doc: {
    title: 'Form Submissions REST API',
    description: 'Reads, edits, exports and e-mails form submissions.',
    version: '1.0.0',
    schemas: { SingleSubmission, FormField, SubmissionPage, SubmissionColumn, HandleExtraResult, DownloadLink },
  },
};

export const formsViewsNamespace: NamespaceDef = {
  name: VIEWS_NS,
  routes: Object.values(viewsRoutes) as RouteDef[],
  doc: {
    title: 'Form Views REST API',
    description: 'Forms, their fields and submissions for the submissions-table views.',
    version: '1.0.0',
    schemas: { FormSummary, FormField, CreatedForm, SubmitResult, ViewsToken },
  },
};
