import { utcSeconds } from '../../db/clock.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import type { Ctx } from '../../kernel/context.ts';
import { ok } from '../../kernel/result.ts';
import { enumString, string } from '../../../shared/http/params.ts';
import { mailLogV1Routes as v1, mailLogV2Routes as v2, MAIL_LOG_API_VERSION, MAIL_LOG_V1 } from '../../../shared/routes/mail-log.ts';
import { addDays, addMonths, beginningOfDay, formatInZone, zonedToInstant } from '../../../shared/dates.ts';
import { utcString } from '../../content/site-time.ts';
import { allMailLogsBrief, countMailLogs, getAttachmentMeta, getMailLog, listMailLogs } from '../../db/repos/mail-log.ts';
import { humanTimeDiff } from '../../mail/human-time.ts';
import { esc } from '../../site/html.ts';
import { mailCaller } from './auth.ts';
import { header, idArg, logListArgs, readParams } from './params.ts';
import { attachmentList, fullRow, listRow, phpFiltered, wpDateTime } from './present.ts';
import { fail, jsonSuccess, replies } from './reply.ts';

async function listLogs(ctx: Ctx) {
  const p = readParams(ctx, logListArgs);
  // As in the original, a search ignores the status filter.
  const { rows, total } = await listMailLogs(ctx.db, { offset: p.start, limit: p.end, filter: p.query ? 'all' : p.filter, search: p.query });
  return { logs: rows.map(listRow), total };
}

const totalHeader = (total: number) => ({ 'X-WP-Total': String(total) });

const getLogsV1 = implement(
  v1.getLogs,
  replies(async (_i, ctx) => {
    await mailCaller(ctx);
    const { logs, total } = await listLogs(ctx);
    const build = Number(header(ctx, 'app_build_number') ?? '');
    const data = Number.isFinite(build) && build >= 14 ? { logs, plugin_version: MAIL_LOG_API_VERSION } : logs;
    return { ...jsonSuccess(data), headers: totalHeader(total) };
  }),
);

const getLogsV2 = implement(
  v2.getLogs,
  replies(async (_i, ctx) => {
    await mailCaller(ctx);
    const { logs, total } = await listLogs(ctx);
    return { ...jsonSuccess({ logs, plugin_version: MAIL_LOG_API_VERSION }), headers: totalHeader(total) };
  }),
);

const typeArg = { type: enumString(['log', 'transcript', 'show_view', 'show_transcript'], { description: 'What to show', default: 'log' as const }) };

const getLog = implement(
  v1.getLog,
  replies(async (_i, ctx) => {
    const who = await mailCaller(ctx);
    const p = readParams(ctx, { ...idArg, ...typeArg });
    if (!(await getMailLog(ctx.db, p.id))) throw fail({ error: 'Invalid email id.' }, 404);
    const type = p.type === 'transcript' || p.type === 'show_transcript' ? 'show_transcript' : 'show_view';
    const q = new URLSearchParams({ id: String(p.id), type });
    if (who.kind === 'app') q.set('access_token', who.token);
    return jsonSuccess(`${ctx.urls.rest(`/${MAIL_LOG_V1}/get-details`)}?${q}`);
  }),
);

const detailsArgs = {
  ...idArg,
  type: enumString(['show_view', 'show_transcript'], { description: 'What to show', default: 'show_view' as const }),
  access_token: string({ description: 'App token' }),
};

const getDetails = implement(
  v1.getDetails,
  replies(async (_i, ctx) => {
    await mailCaller(ctx, { accessToken: true });
    const p = readParams(ctx, detailsArgs);
    const row = await getMailLog(ctx.db, p.id);
    if (!row) throw fail({ message: 'Details not found' }, 404);
    let details: Record<string, unknown>;
    if (p.type === 'show_transcript') {
      details = { session_transcript: row.transcript };
    } else {
      const full = fullRow(row);
      details = Object.fromEntries(Object.entries(full).map(([k, v]) => [k, k === 'original_message' ? v : esc(v)]));
      details.log_url = `${ctx.urls.rest(`/${MAIL_LOG_V1}/get-details`)}?id=${row.id}&type=show_view`;
      details.time = wpDateTime(row.created_utc, ctx.app.config.timezone);
      details.status = row.status;
      details.resend_count = row.resend_count;
      details.attachments = attachmentList(await getAttachmentMeta(ctx.db, row.id));
    }
    return ok({ success: true, message: 'Details fetched successfully', status: 200, details });
  }),
);

const getFailedLogs = implement(v1.getFailedLogs, async (_i, ctx) => {
  const now = Math.floor(Date.now() / 1000);
  const all = (await allMailLogsBrief(ctx.db)).map((r) => ({
    row: r,
    out: {
      id: String(r.id),
      subject: r.subject,
      sent_to: r.to_header,
      status: r.status === 'sent' ? 'success' : 'failed',
      delivery_time: humanTimeDiff(utcSeconds(r.created_utc), now),
      opened: r.opened === 1,
      ...(r.status === 'sent' ? {} : { error: r.status === 'queued' ? 'In Queue' : (r.error ?? '') }),
    },
  }));
  const logs = phpFiltered(all, ({ row }) => row.status === 'failed' && row.notification_deleted === 0);
  const body = Array.isArray(logs) ? logs.map((l) => l.out) : Object.fromEntries(Object.entries(logs).map(([k, l]) => [k, l.out]));
  return ok({ success: true, message: 'Failed logs fetched successfully', status: 200, logs: body });
});

const periodArg = { period: enumString(['day', 'week', 'month'], { description: 'Period', default: 'day' as const }) };

const emailCount = implement(v1.emailCount, async (_i, ctx) => {
  const p = readParams(ctx, periodArg);
  const tz = ctx.app.config.timezone;
  const now = new Date();
  const today = beginningOfDay(formatInZone(now, tz));
  const from = p.period === 'week' ? addDays(today, -7) : p.period === 'month' ? addMonths(today, -1) : today;
  const count = await countMailLogs(ctx.db, utcString(zonedToInstant(from, tz)), utcString(now));
  return ok({ success: true, message: 'Email count fetched successfully', status: 200, count });
});

export const logEndpointsV1: Endpoint[] = [getLogsV1, getLog, getDetails, emailCount, getFailedLogs];
export const logEndpointsV2: Endpoint[] = [getLogsV2];
