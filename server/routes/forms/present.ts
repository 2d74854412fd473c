import type { Db } from '../../db/connection.ts';
import { getFields, submissionValues, type SubmissionRow } from '../../db/repos/forms.ts';
import { displayValue, type FieldValue, type FormField } from '../../../shared/models/forms.ts';
import { toCsv } from './csv.ts';

/** Shapes of the original plugin's entities (SingleSubmission, SubmissionField) and the CSV export. */

export function singleSubmission(row: SubmissionRow, fields: FormField[], values: Map<number, FieldValue>) {
  const collection: Record<string, unknown> = {};
  for (const f of fields) {
    collection[f.key] = {
      id: String(f.id),
      slug: f.key,
      label: f.label,
      adminLabel: f.label,
      type: f.type,
      options: f.options,
      value: values.get(f.id) ?? null,
    };
  }
  return {
    submissionRecordId: String(row.id),
    timestamp: row.date,
    formId: String(row.form_id),
    dataSource: 'nf_post',
    status: [row.status],
    submissionFieldCollection: collection,
    extraValues: { seq_num: row.seq_num, read: row.is_read === 1, starred: row.starred === 1, spam: row.spam === 1, note: row.note },
    submissionHandlers: {},
  };
}

/** Field definitions keyed by form, loaded once per request. */
export async function fieldsOf(db: Db, formIds: number[]): Promise<Map<number, FormField[]>> {
  const m = new Map<number, FormField[]>();
  for (const id of formIds) if (!m.has(id)) m.set(id, await getFields(db, id));
  return m;
}

/** The CSV of one form's submissions: `#`, `Date Submitted`, then one column per field, in field order. */
export async function formCsv(db: Db, fields: FormField[], rows: SubmissionRow[]): Promise<string> {
  const values = await submissionValues(
    db,
    rows.map((r) => r.id),
  );
  const table: string[][] = [['#', 'Date Submitted', ...fields.map((f) => f.label)]];
  for (const r of rows) {
    const v = values.get(r.id)!;
    table.push([String(r.seq_num), r.date, ...fields.map((f) => displayValue(v.get(f.id)))]);
  }
  return toCsv(table);
}
