import { z } from 'zod';

/**
 * Forms, fields and submissions as the forms namespaces send them, plus the pure validation of submitted
 * values (used by the server on submit and update, and usable by a client before it posts).
 * Field type names are those of the original form plugin.
 */

export const FIELD_TYPES = [
  'textbox',
  'textarea',
  'email',
  'number',
  'phone',
  'date',
  'checkbox',
  'listselect',
  'listradio',
  'listcheckbox',
  'hidden',
] as const;
export const FieldType = z.enum(FIELD_TYPES);
export type FieldType = z.infer<typeof FieldType>;

const LIST_TYPES: readonly FieldType[] = ['listselect', 'listradio', 'listcheckbox'];
export const isListType = (t: FieldType): boolean => LIST_TYPES.includes(t);

export const FieldOption = z.object({ label: z.string().min(1).max(200), value: z.string().min(1).max(200) });
export type FieldOption = z.infer<typeof FieldOption>;

/** A field as given when a form is created. */
export const FieldInput = z
  .object({
    label: z.string().trim().min(1).max(200),
    type: FieldType,
    key: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .optional(),
    required: z.boolean().default(false),
    options: z
      .array(z.union([z.string().min(1).max(200), FieldOption]))
      .max(200)
      .default([]),
  })
  .transform((f) => ({ ...f, options: f.options.map((o) => (typeof o === 'string' ? { label: o, value: o } : o)) }))
  .refine((f) => (isListType(f.type) ? f.options.length > 0 : f.options.length === 0), {
    message: 'list fields need options; other fields take none',
  })
  .refine((f) => new Set(f.options.map((o) => o.value)).size === f.options.length, { message: 'option values must be unique' });
export type FieldInput = z.infer<typeof FieldInput>;

/** A field as the server sends it (forms-views fields, and the definitions of submissions/get `columns`). */
export const FormField = z.object({
  id: z.number().int(),
  label: z.string(),
  key: z.string(),
  type: FieldType,
  required: z.boolean(),
  options: z.array(FieldOption),
});
export type FormField = z.infer<typeof FormField>;

export const FormSummary = z.object({ formID: z.number().int(), formTitle: z.string() });

export type FieldValue = string | number | boolean | string[];

/** One submitted field inside a `SingleSubmission` (the original's SubmissionField entity). */
export const SubmissionField = z.object({
  id: z.string(),
  slug: z.string(),
  label: z.string(),
  adminLabel: z.string(),
  type: z.string(),
  options: z.array(FieldOption),
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]),
});

/** The original's SingleSubmission entity, as submissions/get returns it. */
export const SingleSubmission = z.object({
  submissionRecordId: z.string(),
  timestamp: z.string(),
  formId: z.string(),
  dataSource: z.string(),
  status: z.array(z.string()),
  submissionFieldCollection: z.record(z.string(), SubmissionField),
  extraValues: z.object({ seq_num: z.number().int(), read: z.boolean(), starred: z.boolean(), spam: z.boolean(), note: z.string() }),
  submissionHandlers: z.record(z.string(), z.string()),
});

/** A field definition as submissions/get `type=columns` returns it. */
export const SubmissionColumn = FormField.extend({ slug: z.string(), adminLabel: z.string(), formId: z.string() });

/** submissions/get `type=data`. */
export const SubmissionPage = z.object({ data: z.array(SingleSubmission), count: z.number().int() });

/** submissions/handle-extra: `responseType` `download` carries a base64 CSV. */
export const HandleExtraResult = z.object({
  responseType: z.enum(['none', 'download']),
  download: z.string(),
  blobType: z.string(),
  result: z.string(),
  filename: z.string(),
});

/** download-all: the signed link to the file. */
export const DownloadLink = z.object({
  formId: z.string(),
  downloadUrl: z.string(),
  filePath: z.string(),
  formIds: z.array(z.string()),
  expires: z.string(),
});

/** forms-views POST /forms. */
export const CreatedForm = z.object({ formID: z.number().int(), formTitle: z.string(), fields: z.array(FormField) });

/** forms-views submit. */
export const SubmitResult = z.object({ id: z.number().int(), formID: z.number().int(), seq_num: z.number().int(), date: z.string() });

/** forms-views token/refresh. */
export const ViewsToken = z.object({ token: z.string(), publicKey: z.string(), expiresIn: z.number().int(), formID: z.number().int().nullable() });

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
export const isEmail = (s: string): boolean => s.length <= 254 && EMAIL.test(s);

const MAX_TEXT = 10000;

function blank(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || v === false;
}

/** Checks one value against its field; returns the normalised value or an error message. */
export function checkValue(
  field: Pick<FormField, 'type' | 'required' | 'options' | 'label'>,
  raw: unknown,
): { value: FieldValue | null } | { error: string } {
  if (blank(raw)) return field.required ? { error: `${field.label} is required.` } : { value: null };
  const allowed = new Set(field.options.map((o) => o.value));
  switch (field.type) {
    case 'checkbox': {
      if (raw === true || raw === 'true' || raw === '1' || raw === 1 || raw === 'on' || raw === 'checked') return { value: true };
      if (raw === 'false' || raw === '0' || raw === 0 || raw === 'unchecked')
        return field.required ? { error: `${field.label} is required.` } : { value: false };
      return { error: `${field.label} must be checked or unchecked.` };
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      return Number.isFinite(n) ? { value: n } : { error: `${field.label} must be a number.` };
    }
    case 'listcheckbox': {
      const list = Array.isArray(raw) ? raw : [raw];
      if (!list.every((v): v is string => typeof v === 'string' && allowed.has(v)))
        return { error: `${field.label} has a value that is not one of its options.` };
      return { value: [...new Set(list)] };
    }
    default:
      break;
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') return { error: `${field.label} must be text.` };
  const s = String(raw).trim();
  if (s.length > MAX_TEXT) return { error: `${field.label} is too long.` };
  if (s === '') return field.required ? { error: `${field.label} is required.` } : { value: null };
  if (field.type === 'email' && !isEmail(s)) return { error: `${field.label} must be an e-mail address.` };
  if ((field.type === 'listselect' || field.type === 'listradio') && !allowed.has(s)) return { error: `${field.label} must be one of its options.` };
  if (field.type === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(s)) return { error: `${field.label} must be a date (YYYY-MM-DD).` };
  if (field.type === 'phone' && !/^[+()0-9 .\-/]{3,40}$/.test(s)) return { error: `${field.label} must be a phone number.` };
  return { value: s };
}

/** Human-readable text of a stored value (lists joined as the original's submissions table does). */
export function displayValue(v: FieldValue | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'boolean') return v ? 'checked' : 'unchecked';
  return String(v);
}
