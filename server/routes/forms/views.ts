import type { Endpoint } from '../../http/registry.ts';
import { implement } from '../../http/registry.ts';
import { callerUserId } from '../../kernel/context.ts';
import { HttpError } from '../../kernel/errors.ts';
import { created, ok, type Result } from '../../kernel/result.ts';
import { viewsRoutes as R } from '../../../shared/routes/forms.ts';
import { checkValue, displayValue, type FieldValue } from '../../../shared/models/forms.ts';
import { createForm, getFields, getForm, insertSubmission, listForms, querySubmissions, submissionValues } from '../../db/repos/forms.ts';
import { formNotFound, now } from './common.ts';
import { hashIp } from './signing.ts';
import { hit } from './rate-limit.ts';
import { clientKey } from '../../security/window-limiter.ts';
import { authorizeViews, issueViewsToken, revokeOwnToken, VIEWS_TOKEN_TTL } from './views-auth.ts';

/** `forms-views`: the data behind a submissions table, the views token, and (additive) form creation and public submit. */

/** Public submits allowed per client address per minute. */
export const SUBMIT_LIMIT = 10;

const forms = implement(R.forms, async (_input, ctx) => {
  const { forms: allowed } = await authorizeViews(ctx);
  return ok((await listForms(ctx.db)).filter((f) => allowed === null || allowed.includes(f.id)).map((f) => ({ formID: f.id, formTitle: f.title })));
});

const createFormHandler = implement(R.createForm, async (input, ctx) => {
  const keys = input.fields.map((f) => f.key).filter((k): k is string => k !== undefined);
  if (new Set(keys).size !== keys.length) {
    throw new HttpError(400, 'rest_invalid_param', 'Invalid parameter(s): fields', { params: { fields: 'Field keys must be unique.' }, details: [] });
  }
  const id = await createForm(ctx.db, { title: input.title.trim(), author: callerUserId(ctx), fields: input.fields, dates: now(ctx) });
  return created({ formID: id, formTitle: input.title.trim(), fields: await getFields(ctx.db, id) });
});

const fields = implement(R.fields, async (input, ctx) => {
  await authorizeViews(ctx, input.id);
  if (!(await getForm(ctx.db, input.id))) throw formNotFound();
  return ok(await getFields(ctx.db, input.id));
});

const submissions = implement(R.submissions, async (input, ctx) => {
  await authorizeViews(ctx, input.id);
  if (!(await getForm(ctx.db, input.id))) throw formNotFound();
  const formFields = await getFields(ctx.db, input.id);
  // Without perPage the original returns every submission (posts_per_page -1).
  const perPage = input.perPage;
  const { rows, total } = await querySubmissions(ctx.db, {
    formIds: [input.id],
    status: 'publish',
    ...(perPage !== undefined ? { limit: perPage, offset: (input.page - 1) * perPage } : {}),
  });
  const values = await submissionValues(
    ctx.db,
    rows.map((r) => r.id),
  );
  const body = rows.map((r) => {
    const v = values.get(r.id)!;
    return Object.fromEntries(formFields.map((f) => [String(f.id), displayValue(v.get(f.id))]));
  });
  const pages = perPage !== undefined ? Math.ceil(total / perPage) : total > 0 ? 1 : 0;
  return ok(body, { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(pages) });
});

const submit = implement(R.submit, async (input, ctx): Promise<Result> => {
  const ipHash = hashIp(ctx.app.secret, ctx.req.ip);
  // Limited per client key (an IPv6 client by its /64, which one machine commonly holds whole).
  const wait = await hit(ctx.app, 'forms-submit', hashIp(ctx.app.secret, clientKey(ctx.req.ip)), SUBMIT_LIMIT, 60_000);
  if (wait > 0) {
    const e = new HttpError(429, 'rest_too_many_requests', 'Too many submissions from your address. Try again later.', { retry_after: wait });
    return { status: 429, body: e.body(), headers: { 'Retry-After': String(wait) }, isError: true };
  }
  const form = await getForm(ctx.db, input.id);
  if (form?.status !== 'publish') throw formNotFound();
  const formFields = await getFields(ctx.db, input.id);
  const errors: Record<string, string> = {};
  const known = new Set(formFields.flatMap((f) => [f.key, String(f.id)]));
  for (const k of Object.keys(input.values)) if (!known.has(k)) errors[k] = 'Unknown field.';
  const values = new Map<number, FieldValue>();
  for (const f of formFields) {
    // Own properties only: a field keyed `constructor` must not read Object.prototype.
    const own = (k: string) => (Object.hasOwn(input.values, k) ? input.values[k] : undefined);
    const raw = own(f.key) ?? own(String(f.id));
    const r = checkValue(f, raw);
    if ('error' in r) errors[f.key] = r.error;
    else if (r.value !== null) values.set(f.id, r.value);
  }
  if (Object.keys(errors).length) throw new HttpError(400, 'form_validation_failed', 'The form has errors.', { errors });
  const dates = now(ctx);
  const { id, seq } = await insertSubmission(ctx.db, { formId: input.id, values, ipHash, dates });
  return created({ id, formID: input.id, seq_num: seq, date: dates.date });
});

const tokenRefresh = implement(R.tokenRefresh, async (input, ctx) => {
  const userId = callerUserId(ctx);
  if (input.formID !== undefined && !(await getForm(ctx.db, input.formID))) throw formNotFound();
  await revokeOwnToken(ctx, userId);
  const { token, id } = await issueViewsToken(ctx, userId, input.formID !== undefined ? [input.formID] : null);
  return ok({ token, publicKey: id, expiresIn: VIEWS_TOKEN_TTL, formID: input.formID ?? null });
});

export const viewsEndpoints: Endpoint[] = [forms, createFormHandler, fields, submissions, submit, tokenRefresh];
