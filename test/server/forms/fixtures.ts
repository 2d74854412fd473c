import { call, type TestServer } from '../../helpers/server.ts';
import { insertSubmission } from '../../../server/db/repos/forms.ts';
import { getFields } from '../../../server/db/repos/forms.ts';
import type { FieldValue } from '../../../shared/models/forms.ts';

/** A contact form with one field of each kind the validation cares about. */
export const CONTACT_FIELDS = [
  { label: 'Name', type: 'textbox', required: true },
  { label: 'Email', type: 'email', required: true },
  { label: 'Age', type: 'number' },
  { label: 'Ticket type', type: 'listselect', options: ['Adult', 'Child'] },
  {
    label: 'Topics',
    type: 'listcheckbox',
    options: [
      { label: 'Music', value: 'music' },
      { label: 'Food', value: 'food' },
    ],
  },
  { label: 'Newsletter', type: 'checkbox' },
  { label: 'Message', type: 'textarea' },
];

export async function createForm(
  s: TestServer,
  title = 'Contact',
  fields: unknown[] = CONTACT_FIELDS,
): Promise<{ id: number; fields: { id: number; key: string; label: string }[] }> {
  const r = await call(`${s.root}forms-views/forms`, { method: 'POST', auth: s.admin, body: { title, fields } });
  if (r.status !== 201) throw new Error(`create form: ${r.status} ${r.text}`);
  return { id: r.body.formID, fields: r.body.fields };
}

export function submitUrl(s: TestServer, formId: number): string {
  return `${s.root}forms-views/forms/${formId}/submit`;
}

/** Seeds a submission straight into the database (for tests that need more than the public rate limit allows). */
export async function seedSubmission(
  s: TestServer,
  formId: number,
  byKey: Record<string, FieldValue>,
  date = '2026-11-01 10:00:00',
): Promise<number> {
  const fields = await getFields(s.db, formId);
  const values = new Map<number, FieldValue>();
  for (const [k, v] of Object.entries(byKey)) values.set(fields.find((f) => f.key === k)!.id, v);
  return (await insertSubmission(s.db, { formId, values, ipHash: 'seed', dates: { date, date_gmt: date } })).id;
}

export async function postStatus(s: TestServer, id: number): Promise<string | undefined> {
  return ((await s.db.prepare('SELECT status FROM posts WHERE id = ?').get(id)) as { status: string } | undefined)?.status;
}
