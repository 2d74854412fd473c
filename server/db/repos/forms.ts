import type { Db } from '../connection.ts';
import { likeContains, statement } from '../connection.ts';
import { inJson, LIKE_NOCASE, sql, sqlFor } from '../engine/sql.ts';
import { insertPost, sanitizeSlug, uniqueSlug, updatePost } from './posts.ts';
import type { PostDates } from '../../content/site-time.ts';
import type { FieldInput, FieldOption, FieldType, FieldValue, FormField } from '../../../shared/models/forms.ts';

/** Forms (posts of type `form`), their fields, submissions (posts of type `submission`) and their values. */

export interface FormRow {
  id: number;
  title: string;
  status: string;
  date_gmt: string;
}

export interface SubmissionRow {
  id: number;
  form_id: number;
  status: string;
  date: string;
  date_gmt: string;
  seq_num: number;
  is_read: number;
  starred: number;
  spam: number;
  note: string;
}

interface FieldDbRow {
  id: number;
  form_id: number;
  key: string;
  label: string;
  type: FieldType;
  required: number;
  options: string;
}

const toField = (r: FieldDbRow): FormField => ({
  id: r.id,
  label: r.label,
  key: r.key,
  type: r.type,
  required: r.required === 1,
  options: JSON.parse(r.options) as FieldOption[],
});

export async function createForm(db: Db, input: { title: string; author: number; fields: FieldInput[]; dates: PostDates }): Promise<number> {
  const id = await insertPost(db, 'form', {
    title: input.title,
    author: input.author,
    status: 'publish',
    slug: await uniqueSlug(db, 'form', input.title),
    ...input.dates,
  });
  const used = new Set<string>();
  for (const [i, f] of input.fields.entries()) {
    let key =
      f.key ??
      (sanitizeSlug(f.label)
        .replace(/-/g, '_')
        .replace(/^[^a-z]+/, '')
        .slice(0, 48) ||
        'field');
    const base = key;
    for (let n = 2; used.has(key); n++) key = `${base}_${n}`;
    used.add(key);
    await statement(db, 'INSERT INTO form_fields (form_id, position, key, label, type, required, options) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      id,
      i,
      key,
      f.label,
      f.type,
      f.required ? 1 : 0,
      JSON.stringify(f.options),
    );
  }
  return id;
}

/** A form that is not in the trash. */
export async function getForm(db: Db, id: number): Promise<FormRow | undefined> {
  return (await statement(db, "SELECT id, title, status, date_gmt FROM posts WHERE id = ? AND type = 'form' AND status <> 'trash'").get(id)) as
    | FormRow
    | undefined;
}

export async function listForms(db: Db): Promise<FormRow[]> {
  return (await statement(
    db,
    "SELECT id, title, status, date_gmt FROM posts WHERE type = 'form' AND status <> 'trash' ORDER BY id",
  ).all()) as FormRow[];
}

/** IDs among `ids` that are not forms. */
export async function unknownFormIds(db: Db, ids: number[]): Promise<number[]> {
  const found = new Set(
    (
      (await statement(db, sql`SELECT id FROM posts WHERE type = 'form' AND status <> 'trash' AND ${inJson('id', 'id')}`).all(
        JSON.stringify(ids),
      )) as { id: number }[]
    ).map((r) => r.id),
  );
  return ids.filter((id) => !found.has(id));
}

export async function getFields(db: Db, formId: number): Promise<FormField[]> {
  return ((await statement(db, 'SELECT * FROM form_fields WHERE form_id = ? ORDER BY position, id').all(formId)) as FieldDbRow[]).map(toField);
}

export async function insertSubmission(
  db: Db,
  input: { formId: number; values: Map<number, FieldValue>; ipHash: string; dates: PostDates },
): Promise<{ id: number; seq: number }> {
  const seq =
    (((await statement(db, 'SELECT MAX(seq_num) AS m FROM submissions WHERE form_id = ?').get(input.formId)) as { m: number | null }).m ?? 0) + 1;
  const id = await insertPost(db, 'submission', { status: 'publish', parent: input.formId, title: `Submission ${seq}`, ...input.dates });
  await statement(db, 'INSERT INTO submissions (post_id, form_id, seq_num, ip_hash) VALUES (?, ?, ?, ?)').run(id, input.formId, seq, input.ipHash);
  for (const [fieldId, v] of input.values) await setValue(db, id, fieldId, v);
  return { id, seq };
}

export async function setValue(db: Db, submissionId: number, fieldId: number, value: FieldValue | null): Promise<void> {
  if (value === null) await statement(db, 'DELETE FROM submission_values WHERE submission_id = ? AND field_id = ?').run(submissionId, fieldId);
  else
    await statement(
      db,
      'INSERT INTO submission_values (submission_id, field_id, value) VALUES (?, ?, ?) ON CONFLICT (submission_id, field_id) DO UPDATE SET value = excluded.value',
    ).run(submissionId, fieldId, JSON.stringify(value));
}

const SUB_SELECT = `SELECT p.id, s.form_id, p.status, p.date, p.date_gmt, s.seq_num, s.is_read, s.starred, s.spam, s.note
  FROM posts p JOIN submissions s ON s.post_id = p.id`;

export async function getSubmissions(db: Db, ids: number[]): Promise<SubmissionRow[]> {
  return (await statement(db, sql`${SUB_SELECT} WHERE ${inJson('p.id', 'id')} ORDER BY p.id`).all(JSON.stringify(ids))) as SubmissionRow[];
}

export interface SubmissionQuery {
  formIds: number[];
  status: 'publish' | 'trash';
  /** Inclusive UTC bounds, `YYYY-MM-DD HH:MM:SS`. */
  after?: string;
  before?: string;
  search?: string;
  ids?: number[];
  limit?: number;
  offset?: number;
}

/** Submissions of the forms, newest first, with the total before paging. */
export async function querySubmissions(db: Db, q: SubmissionQuery): Promise<{ rows: SubmissionRow[]; total: number }> {
  const where = [sqlFor(db.engine, inJson('s.form_id', 'id')), 'p.status = ?'];
  const params: unknown[] = [JSON.stringify(q.formIds), q.status];
  if (q.after) where.push('p.date_gmt >= ?'), params.push(q.after);
  if (q.before) where.push('p.date_gmt <= ?'), params.push(q.before);
  if (q.ids) where.push(sqlFor(db.engine, inJson('p.id', 'id'))), params.push(JSON.stringify(q.ids));
  if (q.search) {
    // Values are JSON text; a LIKE on the encoded text finds plain substrings (escaped for LIKE).
    where.push(`EXISTS (SELECT 1 FROM submission_values v WHERE v.submission_id = p.id AND v.value ${sqlFor(db.engine, LIKE_NOCASE)} ? ESCAPE '\\')`);
    params.push(likeContains(q.search));
  }
  const sqlWhere = where.join(' AND ');
  const total = (
    (await statement(db, `SELECT COUNT(*) AS n FROM posts p JOIN submissions s ON s.post_id = p.id WHERE ${sqlWhere}`).get(...params)) as {
      n: number;
    }
  ).n;
  const paging = q.limit !== undefined ? ' LIMIT ? OFFSET ?' : '';
  const rows = (await statement(db, `${SUB_SELECT} WHERE ${sqlWhere} ORDER BY p.date_gmt DESC, p.id DESC${paging}`).all(
    ...params,
    ...(q.limit !== undefined ? [q.limit, q.offset ?? 0] : []),
  )) as SubmissionRow[];
  return { rows, total };
}

/** Values of the submissions: submission ID -> field ID -> value. */
export async function submissionValues(db: Db, ids: number[]): Promise<Map<number, Map<number, FieldValue>>> {
  const out = new Map<number, Map<number, FieldValue>>();
  for (const id of ids) out.set(id, new Map());
  const rows = (await statement(db, sql`SELECT submission_id, field_id, value FROM submission_values WHERE ${inJson('submission_id', 'id')}`).all(
    JSON.stringify(ids),
  )) as {
    submission_id: number;
    field_id: number;
    value: string;
  }[];
  for (const r of rows) out.get(r.submission_id)?.set(r.field_id, JSON.parse(r.value) as FieldValue);
  return out;
}

export async function trashSubmission(db: Db, row: SubmissionRow, modified: PostDates): Promise<void> {
  if (row.status === 'trash') return;
  await updatePost(db, row.id, { status: 'trash', trashed_from: row.status, modified: modified.date, modified_gmt: modified.date_gmt });
}

export async function untrashSubmission(db: Db, row: SubmissionRow, modified: PostDates): Promise<void> {
  if (row.status !== 'trash') return;
  const back =
    ((await statement(db, 'SELECT trashed_from FROM posts WHERE id = ?').get(row.id)) as { trashed_from: string | null }).trashed_from ?? 'publish';
  await statement(db, 'UPDATE posts SET status = ?, trashed_from = NULL, modified = ?, modified_gmt = ? WHERE id = ?').run(
    back,
    modified.date,
    modified.date_gmt,
    row.id,
  );
}

/** Deletes a submission for good (its values and flags go with the post row). */
export async function deleteSubmission(db: Db, id: number): Promise<void> {
  await statement(db, "DELETE FROM posts WHERE id = ? AND type = 'submission'").run(id);
}

export async function touchSubmission(db: Db, id: number, modified: PostDates): Promise<void> {
  await updatePost(db, id, { modified: modified.date, modified_gmt: modified.date_gmt });
}

export async function setFlags(db: Db, id: number, flags: Partial<{ is_read: number; starred: number; spam: number; note: string }>): Promise<void> {
  const cols = (['is_read', 'starred', 'spam', 'note'] as const).filter((c) => flags[c] !== undefined);
  if (!cols.length) return;
  await statement(db, `UPDATE submissions SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE post_id = ?`).run(...cols.map((c) => flags[c]), id);
}

// ---- views tokens ----

export interface ViewTokenRow {
  id: string;
  user_id: number;
  form_ids: string | null;
  created: string;
  expires: string;
  revoked_at: string | null;
}

export async function insertViewToken(db: Db, row: Omit<ViewTokenRow, 'revoked_at'>): Promise<void> {
  await statement(db, 'INSERT INTO form_view_tokens (id, user_id, form_ids, created, expires) VALUES (?, ?, ?, ?, ?)').run(
    row.id,
    row.user_id,
    row.form_ids,
    row.created,
    row.expires,
  );
}

export async function getViewToken(db: Db, id: string): Promise<ViewTokenRow | undefined> {
  return (await statement(db, 'SELECT * FROM form_view_tokens WHERE id = ?').get(id)) as ViewTokenRow | undefined;
}

export async function revokeViewToken(db: Db, id: string, at: string): Promise<void> {
  await statement(db, 'UPDATE form_view_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
}

/** Rows of tokens long expired are of no further use. */
export async function pruneViewTokens(db: Db, before: string): Promise<void> {
  await statement(db, 'DELETE FROM form_view_tokens WHERE expires < ?').run(before);
}
