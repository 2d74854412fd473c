import { z } from 'zod';
import type { Endpoint } from '../../http/registry.ts';
import { implement } from '../../http/registry.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { ok } from '../../kernel/result.ts';
import { SETTING_NAMES, submissionsRoutes as R } from '../../../shared/routes/forms.ts';
import { getFields } from '../../db/repos/forms.ts';
import { getOption, setOption } from '../../db/repos/site-options.ts';
import { requireForms } from './common.ts';

/**
 * Settings of the submissions screen, stored as one option `{formID: {settingName: data}}` as the original
 * does. Both routes answer JSON-encoded text (a JSON string holding JSON), exactly as the original's
 * `rest_ensure_response(json_encode(...))`; the get route answers `"false"` before anything is saved.
 */

const OPTION = 'forms_submissions_settings';

type Settings = Record<string, Record<string, unknown>>;

const DATA: Record<(typeof SETTING_NAMES)[number], z.ZodType<Record<string, unknown>>> = {
  hiddenFields: z.strictObject({ fields: z.array(z.coerce.number().int().min(1)).max(500) }),
  pageSize: z.strictObject({ value: z.coerce.number().int().min(1).max(100) }),
  sort: z.strictObject({ field: z.string().regex(/^[A-Za-z0-9_]{1,64}$/), order: z.enum(['asc', 'desc']) }),
  dateFormat: z.strictObject({ value: z.enum(['Y-m-d', 'Y-m-d H:i', 'd.m.Y', 'd.m.Y H:i', 'm/d/Y', 'd/m/Y', 'F j, Y']) }),
};

function load(raw: string | undefined): Settings | undefined {
  return raw === undefined ? undefined : (JSON.parse(raw) as Settings);
}

const setSettings = implement(R.setSettings, async (input, ctx) => {
  const name = input.settingName as (typeof SETTING_NAMES)[number];
  if (!SETTING_NAMES.includes(name)) throw invalidParam('settingName', `settingName is not one of ${SETTING_NAMES.join(', ')}.`, 'rest_not_in_enum');
  if (input.data === undefined) throw invalidParam('data', `data is required for ${name}.`, 'rest_missing_callback_param');
  const formKey = input.formID ?? '';
  if (formKey !== '') {
    if (!/^\d+$/.test(formKey)) throw invalidParam('formID', 'formID is not a form ID.', 'rest_invalid_form_id');
    await requireForms(ctx, [Number(formKey)], 'formID');
  }
  const parsed = DATA[name].safeParse(input.data);
  if (!parsed.success)
    throw invalidParam(
      'data',
      `data is not valid for ${name}: ${parsed.error.issues[0].path.join('.') || 'data'} ${parsed.error.issues[0].message}.`,
      'rest_invalid_param',
    );
  if (name === 'hiddenFields') {
    if (formKey === '') throw invalidParam('formID', 'hiddenFields needs a formID.', 'rest_missing_callback_param');
    const own = new Set((await getFields(ctx.db, Number(formKey))).map((f) => f.id));
    const foreign = (parsed.data.fields as number[]).filter((id) => !own.has(id));
    if (foreign.length) throw invalidParam('data', `Field(s) ${foreign.join(', ')} are not fields of form ${formKey}.`, 'rest_invalid_param');
  }
  const current = load(await getOption(ctx.db, OPTION));
  const next: Settings = structuredClone(current ?? {});
  next[formKey] = { ...(next[formKey] ?? {}), [name]: parsed.data };
  let response: { message: string; status: boolean };
  if (current === undefined) {
    await setOption(ctx.db, OPTION, JSON.stringify(next));
    response = { message: 'add_option', status: true };
  } else if (JSON.stringify(current[formKey]?.[name]) === JSON.stringify(parsed.data)) {
    response = { message: 'unchanged', status: false };
  } else {
    await setOption(ctx.db, OPTION, JSON.stringify(next));
    response = { message: 'update_option', status: true };
  }
  return ok(JSON.stringify(response));
});

const getSettings = implement(R.getSettings, async (_input, ctx) => {
  const raw = await getOption(ctx.db, OPTION);
  return ok(raw === undefined ? 'false' : JSON.stringify(load(raw)));
});

export const settingsEndpoints: Endpoint[] = [setSettings, getSettings];
