import type { Endpoint } from '../../http/registry.ts';
import { implement } from '../../http/registry.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { ok } from '../../kernel/result.ts';
import type { Ctx } from '../../kernel/context.ts';
import { submissionsRoutes as R } from '../../../shared/routes/forms.ts';
import { checkValue, type FormField } from '../../../shared/models/forms.ts';
import {
  deleteSubmission,
  getFields,
  querySubmissions,
  setFlags,
  setValue,
  submissionValues,
  touchSubmission,
  trashSubmission,
  untrashSubmission,
  type SubmissionRow,
} from '../../db/repos/forms.ts';
import { dateBound, entitySubmission, missingData, now, requireForms, requireSubmissions } from './common.ts';
import { fieldsOf, formCsv, singleSubmission } from './present.ts';

/** `forms-submissions/submissions/*` and `export`: the submissions screen of the admin. */

const get = implement(R.get, async (input, ctx) => {
  const formIds = [...new Set(input.form_ids)];
  if (!formIds.length) throw missingData();
  await requireForms(ctx, formIds, 'form_ids');
  const fields = await fieldsOf(ctx.db, formIds);
  if (input.type === 'columns') {
    return ok(formIds.flatMap((id) => fields.get(id)!.map((f) => ({ ...f, slug: f.key, adminLabel: f.label, formId: String(id) }))));
  }
  const { rows, total } = await querySubmissions(ctx.db, {
    formIds,
    status: input.status === 'trash' ? 'trash' : 'publish',
    after: dateBound(ctx, input.start_date, 'start_date', false),
    before: dateBound(ctx, input.end_date, 'end_date', true),
    search: input.search_term || undefined,
    limit: input.page_size,
    offset: (input.current_page - 1) * input.page_size,
  });
  const values = await submissionValues(
    ctx.db,
    rows.map((r) => r.id),
  );
  return ok({ data: rows.map((r) => singleSubmission(r, fields.get(r.form_id)!, values.get(r.id)!)), count: total });
});

const del = implement(R.delete, async (input, ctx) => {
  const at = now(ctx);
  for (const row of await requireSubmissions(ctx, input.submissions, 'submissions')) await trashSubmission(ctx.db, row, at);
  return ok('ok');
});

const restore = implement(R.restore, async (input, ctx) => {
  const at = now(ctx);
  for (const row of await requireSubmissions(ctx, input.submissions, 'submissions')) {
    if (input.restore) await untrashSubmission(ctx.db, row, at);
    else await deleteSubmission(ctx.db, row.id);
  }
  return ok('ok');
});

/** The field a `submissionFieldCollection` entry names: by slug (the key of the entry or its `slug`), or by field `id`. */
function fieldFor(fields: FormField[], entryKey: string, entry: unknown): FormField | undefined {
  const e = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
  const slug = typeof e.slug === 'string' ? e.slug : entryKey;
  return fields.find((f) => f.key === slug) ?? fields.find((f) => String(f.id) === String(e.id ?? entryKey));
}

const update = implement(R.update, async (input, ctx) => {
  const entity = input.singleSubmission;
  const row = await entitySubmission(ctx, entity, 'singleSubmission');
  const collection = entity.submissionFieldCollection;
  if (!collection || typeof collection !== 'object')
    throw invalidParam('singleSubmission', 'singleSubmission needs a submissionFieldCollection.', 'rest_invalid_param');
  const fields = await getFields(ctx.db, row.form_id);
  const entries: [string, unknown][] = Array.isArray(collection) ? collection.map((e, i) => [String(i), e]) : Object.entries(collection);
  const errors: string[] = [];
  const changes: [FormField, ReturnType<typeof checkValue>][] = [];
  for (const [k, entry] of entries) {
    const field = fieldFor(fields, k, entry);
    if (!field) {
      errors.push(`Unknown field: ${k}.`);
      continue;
    }
    const value = entry && typeof entry === 'object' && 'value' in entry ? (entry as { value: unknown }).value : entry;
    const checked = checkValue(field, value);
    if ('error' in checked) errors.push(checked.error);
    else changes.push([field, checked]);
  }
  if (errors.length) throw invalidParam('singleSubmission', errors.join(' '), 'rest_invalid_submission_value');
  for (const [field, checked] of changes) if ('value' in checked) await setValue(ctx.db, row.id, field.id, checked.value);
  await touchSubmission(ctx.db, row.id, now(ctx));
  return ok('ok');
});

function noteOf(entity: Record<string, unknown>): string {
  const extra = entity.extraValues && typeof entity.extraValues === 'object' ? (entity.extraValues as Record<string, unknown>) : {};
  const note = extra.note ?? entity.note;
  if (typeof note !== 'string' || note.length > 5000)
    throw invalidParam(
      'singleSubmission',
      'singleSubmission needs a note (extraValues.note, text of at most 5000 characters).',
      'rest_invalid_param',
    );
  return note;
}

const FLAGS = {
  read: { is_read: 1 },
  unread: { is_read: 0 },
  star: { starred: 1 },
  unstar: { starred: 0 },
  spam: { spam: 1 },
  not_spam: { spam: 0 },
} as const;

const handleExtra = implement(R.handleExtra, async (input, ctx) => {
  const row = await entitySubmission(ctx, input.singleSubmission, 'singleSubmission');
  const response = { responseType: 'none', download: '', blobType: '', result: 'ok', filename: '' };
  const h = input.handleExtra;
  if (h === 'csv') {
    const csv = await formCsv(ctx.db, await getFields(ctx.db, row.form_id), [row]);
    return ok({
      ...response,
      responseType: 'download',
      download: Buffer.from(csv, 'utf8').toString('base64'),
      blobType: 'text/csv',
      filename: `submission-${row.form_id}-${row.seq_num}.csv`,
    });
  }
  await setFlags(ctx.db, row.id, h === 'note' ? { note: noteOf(input.singleSubmission) } : FLAGS[h]);
  return ok(response);
});

/** One CSV per form; the original's three request shapes (single submission, IDs, date range) and their mix. */
const exportCsv = implement(R.export, async (input, ctx) => {
  const out: Record<string, string> = {};
  if (input.singleSubmission) {
    const row = await entitySubmission(ctx, input.singleSubmission, 'singleSubmission');
    out[String(row.form_id)] = await formCsv(ctx.db, await getFields(ctx.db, row.form_id), [row]);
    return ok(out);
  }
  let rowsById: SubmissionRow[] | undefined;
  if (input.submissions) rowsById = await requireSubmissions(ctx, input.submissions, 'submissions');
  const formIds = [...new Set(input.form_ids?.length ? input.form_ids : (rowsById ?? []).map((r) => r.form_id))];
  if (!formIds.length) throw missingData();
  await requireForms(ctx, formIds, 'form_ids');
  const after = dateBound(ctx, input.start_date, 'start_date', false);
  const before = dateBound(ctx, input.end_date, 'end_date', true);
  const fields = await fieldsOf(ctx.db, formIds);
  for (const formId of formIds) {
    const { rows } = await querySubmissions(ctx.db, { formIds: [formId], status: 'publish', after, before, ids: rowsById?.map((r) => r.id) });
    out[String(formId)] = await formCsv(ctx.db, fields.get(formId)!, rows.reverse());
  }
  return ok(out);
});

export async function exportCsvOf(ctx: Ctx, formId: number): Promise<string> {
  const { rows } = await querySubmissions(ctx.db, { formIds: [formId], status: 'publish' });
  return await formCsv(ctx.db, await getFields(ctx.db, formId), rows.reverse());
}

export const submissionEndpoints: Endpoint[] = [get, del, update, restore, handleExtra, exportCsv];
