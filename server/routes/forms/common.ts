import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { nowDates, utcString, type PostDates } from '../../content/site-time.ts';
import { parseDateInput } from '../../../shared/dates.ts';
import { getSubmissions, unknownFormIds, type SubmissionRow } from '../../db/repos/forms.ts';

/** Small helpers shared by the forms handlers. */

export const now = (ctx: Ctx): PostDates => nowDates(ctx.app.config.timezone);

export const missingData = () => new HttpError(400, 'malformed_request', 'This request is missing data');

export const formNotFound = () => new HttpError(404, 'form_not_found', 'The requested form does not exist');

/** Every ID must name a form, or the parameter is invalid (and nothing happens). */
export async function requireForms(ctx: Ctx, ids: number[], param: string): Promise<void> {
  const unknown = await unknownFormIds(ctx.db, ids);
  if (unknown.length) throw invalidParam(param, `Unknown form ID(s): ${unknown.join(', ')}.`, 'rest_invalid_form_id');
}

/** Every ID must name a submission, or the parameter is invalid. */
export async function requireSubmissions(ctx: Ctx, ids: number[], param: string): Promise<SubmissionRow[]> {
  const rows = await getSubmissions(ctx.db, [...new Set(ids)]);
  const found = new Set(rows.map((r) => r.id));
  const unknown = ids.filter((id) => !found.has(id));
  if (unknown.length) throw invalidParam(param, `Unknown submission ID(s): ${unknown.join(', ')}.`, 'rest_invalid_submission_id');
  return rows;
}

/** The submission a JSON-encoded entity names by `submissionRecordId`. */
export async function entitySubmission(ctx: Ctx, entity: Record<string, unknown>, param: string): Promise<SubmissionRow> {
  const raw = entity.submissionRecordId;
  const id = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) throw invalidParam(param, `${param} needs a submissionRecordId.`, 'rest_invalid_submission_id');
  return (await requireSubmissions(ctx, [id], param))[0];
}

/**
 * A date bound as the original takes it (a Unix timestamp) or any date string, in site time, as a UTC
 * storage string. A bare date as an end bound means the end of that day.
 */
export function dateBound(ctx: Ctx, value: string | undefined, param: string, end: boolean): string | undefined {
  if (value === undefined || value === '' || value === '0') return undefined;
  const input = end && /^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? `${value.trim()} 23:59:59` : value;
  const d = parseDateInput(input, ctx.app.config.timezone, new Date());
  if (!d) throw invalidParam(param, `${param} is not a valid date.`, 'rest_invalid_date');
  return utcString(d);
}
