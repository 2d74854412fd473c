import { z } from 'zod';
import type { Endpoint } from '../../http/registry.ts';
import { implement } from '../../http/registry.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { ok } from '../../kernel/result.ts';
import type { Ctx } from '../../kernel/context.ts';
import { submissionsRoutes as R } from '../../../shared/routes/forms.ts';
import { displayValue, type FieldValue, type FormField } from '../../../shared/models/forms.ts';
import { getFields, getForm, submissionValues, type SubmissionRow } from '../../db/repos/forms.ts';
import { stripTags } from '../../content/text.ts';
import { esc } from '../../site/html.ts';
import { schedule, sendMail } from '../../mail/service.ts';
import { requireSubmissions } from './common.ts';

/**
 * email-action: sends one submission by e-mail with the settings of the original's e-mail action (`to`,
 * `email_subject`, `email_message`, `from_name`, `from_address`, `reply_to`, `cc`, `bcc`, `email_format`),
 * merge tags applied, through the mail service (logged, then delivered after the transaction). As the
 * original, it answers `true` when the message went out, otherwise the submission's sequence number.
 */

const Settings = z.object({
  to: z.string().trim().min(1).max(2000),
  email_subject: z.string().trim().min(1).max(500),
  email_message: z.string().max(100_000).default(''),
  from_name: z.string().max(200).default(''),
  from_address: z.string().max(254).default(''),
  reply_to: z.string().max(254).default(''),
  cc: z.string().max(2000).default(''),
  bcc: z.string().max(2000).default(''),
  email_format: z.enum(['html', 'plain']).default('html'),
});

function fieldsTable(fields: FormField[], values: Map<number, FieldValue>, html: boolean, all: boolean): string {
  const shown = fields.filter((f) => all || values.has(f.id));
  if (!html) return shown.map((f) => `${f.label}: ${displayValue(values.get(f.id))}`).join('\n');
  const rows = shown.map((f) => `<tr><td>${esc(f.label)}:</td><td>${esc(displayValue(values.get(f.id)))}</td></tr>`);
  return `<table>${rows.join('')}</table>`;
}

/** Replaces `{field:key}`, `{field:id}`, `{all_fields_table}`, `{fields_table}`, `{submission:sequence}`, `{form:title}`, `{site:title}`. */
function merge(
  template: string,
  c: { fields: FormField[]; values: Map<number, FieldValue>; row: SubmissionRow; formTitle: string; siteName: string },
  html: boolean,
): string {
  const escText = html ? esc : (s: string) => s;
  return template.replace(/\{([a-z_]+)(?::([A-Za-z0-9_]+))?\}/g, (tag, kind: string, arg: string | undefined) => {
    if (kind === 'field' && arg) {
      const f = c.fields.find((x) => x.key === arg || String(x.id) === arg);
      return f ? escText(displayValue(c.values.get(f.id))) : '';
    }
    if (kind === 'all_fields_table' && !arg) return fieldsTable(c.fields, c.values, html, true);
    if (kind === 'fields_table' && !arg) return fieldsTable(c.fields, c.values, html, false);
    if (kind === 'submission' && arg === 'sequence') return String(c.row.seq_num);
    if (kind === 'form' && arg === 'title') return escText(c.formTitle);
    if (kind === 'site' && arg === 'title') return escText(c.siteName);
    return tag;
  });
}

async function queue(ctx: Ctx, submissionId: number, raw: Record<string, unknown>): Promise<{ mailId: number; seq: number }> {
  const row = (await requireSubmissions(ctx, [submissionId], 'submission'))[0];
  const parsed = Settings.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw invalidParam('action_settings', `action_settings[${i.path.join('.')}]: ${i.message}`, 'rest_invalid_param');
  }
  const s = parsed.data;
  const fields = await getFields(ctx.db, row.form_id);
  const c = {
    fields,
    values: (await submissionValues(ctx.db, [row.id])).get(row.id)!,
    row,
    formTitle: (await getForm(ctx.db, row.form_id))?.title ?? '',
    siteName: ctx.app.config.siteName,
  };
  const html = s.email_format === 'html';
  const body = merge(s.email_message || '{all_fields_table}', c, html);
  const from = s.from_address
    ? s.from_name
      ? `"${s.from_name.replace(/["\\\r\n]/g, '')}" <${s.from_address.trim()}>`
      : s.from_address.trim()
    : undefined;
  const mailId = await sendMail(ctx.app, {
    to: merge(s.to, c, false),
    cc: merge(s.cc, c, false) || undefined,
    bcc: merge(s.bcc, c, false) || undefined,
    replyTo: merge(s.reply_to, c, false).trim() || undefined,
    from,
    subject: merge(s.email_subject, c, false),
    ...(html ? { html: body, text: stripTags(body.replace(/<\/tr>/g, '\n').replace(/<\/td><td>/g, ' ')) } : { text: body }),
    source: 'forms',
    relatedId: row.id,
  });
  return { mailId, seq: row.seq_num };
}

const emailAction = implement(
  R.emailAction,
  async (input, ctx) => {
    // Logged in one transaction; the delivery is awaited after it has committed.
    const { mailId, seq } = await ctx.db.transaction(() => queue(ctx, input.submission, input.action_settings));
    const result = await schedule(ctx.app, mailId);
    return ok(result?.ok ? true : seq);
  },
  { async: true },
);

export const emailEndpoints: Endpoint[] = [emailAction];
