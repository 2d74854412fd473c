import { z } from 'zod';
import { ISSUE_STATUSES, SecurityConfig, securityRoutes as R } from '../../../shared/routes/security.ts';
import { integer, stringList } from '../../../shared/http/params.ts';
import type { Ctx } from '../../kernel/context.ts';
import { callerUserId } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { validateArgs } from '../../http/validate.ts';
import { nowUtc, utcSeconds } from '../../db/clock.ts';
import { getJsonOption, setJsonOption } from '../../db/repos/site-options.ts';
import {
  countIssues,
  deleteDismissal,
  getDismissal,
  getIssue,
  insertIssue,
  insertScan,
  latestScan,
  listIssues,
  putDismissal,
  setIssueStatus,
  type IssueRow,
} from '../../db/repos/security.ts';
import { detailHash, runChecks } from '../../security/checks.ts';
import { DISCONNECTED, getConnection, getPremium } from './connection.ts';

const SETTINGS = 'security.config';

export async function settings(ctx: Ctx): Promise<SecurityConfig> {
  const parsed = SecurityConfig.safeParse(await getJsonOption<unknown>(ctx.db, SETTINGS, {}));
  return parsed.success ? parsed.data : SecurityConfig.parse({});
}

function presentIssue(i: IssueRow) {
  return {
    id: i.id,
    time: utcSeconds(i.time),
    lastUpdated: utcSeconds(i.last_updated),
    status: i.status,
    type: i.type,
    severity: i.severity,
    ignoreP: i.ignore_key,
    ignoreC: i.detail_hash,
    shortMsg: i.short_msg,
    longMsg: i.long_msg,
    data: JSON.parse(i.data) as Record<string, unknown>,
  };
}

const readConfig = implement(R.readConfig, async (_input, ctx) => {
  const { fields } = validateArgs({ fields: stringList() }, ctx.req.params) as { fields?: string[] };
  const all = await settings(ctx);
  const config = Object.fromEntries(Object.entries(all).filter(([k]) => !fields?.length || fields.includes(k)));
  const conn = await getConnection(ctx);
  const premium = await getPremium(ctx);
  const disconnected = await getJsonOption<{ time: string; email: string | null } | null>(ctx.db, DISCONNECTED, null);
  const scan = await latestScan(ctx.db);
  return ok({
    config,
    info: {
      site_url: ctx.app.config.publicUrl,
      rest_url: ctx.urls.root,
      https: ctx.app.config.publicUrl.startsWith('https://'),
      node_version: process.version,
      connected: conn !== null,
      site_id: conn?.site_id ?? null,
      connect_time: conn ? utcSeconds(conn.connect_time) : null,
      connect_email: conn?.connect_email ?? null,
      last_authenticated: conn?.last_authenticated ? utcSeconds(conn.last_authenticated) : null,
      disconnect_time: disconnected ? utcSeconds(disconnected.time) : null,
      premium: premium !== null,
      license_last4: premium?.key_last4 ?? null,
      last_scan_time: scan ? utcSeconds(scan.finished) : null,
    },
  });
});

/** A setting from a JSON or form body: "true"/"1" and "12" arrive as strings. */
function coerce(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (/^(true|1)$/i.test(v)) return true;
  if (/^(false|0)$/i.test(v)) return false;
  return /^-?\d+$/.test(v) ? Number(v) : v;
}

const setConfig = implement(R.setConfig, async (_input, ctx) => {
  const fields = ctx.req.params.fields;
  if (!fields || typeof fields !== 'object' || Array.isArray(fields) || Object.keys(fields).length === 0) {
    throw new HttpError(422, 'rest_save_config_error', "Validation error: 'fields' parameter is empty or not an array.");
  }
  const shape = SecurityConfig.shape;
  const next: Record<string, unknown> = { ...(await settings(ctx)) };
  const errors: string[] = [];
  for (const [key, raw] of Object.entries(fields as Record<string, unknown>)) {
    if (!(key in shape)) {
      errors.push(`Unknown option: ${key}`);
      continue;
    }
    const schema = shape[key as keyof typeof shape] as z.ZodType;
    const value = key === 'alertEmails' ? raw : coerce(raw);
    const r = schema.safeParse(value);
    if (r.success) next[key] = r.data;
    else errors.push(`Invalid value for ${key}`);
  }
  if (errors.length === 1) throw new HttpError(422, 'rest_set_config_error', `An error occurred while saving the configuration: ${errors[0]}`);
  if (errors.length > 1) throw new HttpError(422, 'rest_set_config_error', `Errors occurred while saving the configuration: ${errors.join(', ')}`);
  await setJsonOption(ctx.db, SETTINGS, SecurityConfig.parse(next));
  return ok({ success: true });
});

const scan = implement(R.scan, async (_input, ctx) => {
  const started = nowUtc();
  const findings = await runChecks(ctx.db, ctx.app.config, await settings(ctx));
  const finished = nowUtc();
  const scanId = await insertScan(ctx.db, { started, finished, issue_count: findings.length, user_id: callerUserId(ctx) });
  let pending = 0;
  for (const f of findings) {
    const hash = detailHash(f);
    const d = await getDismissal(ctx.db, f.key);
    let status: IssueRow['status'] = 'new';
    if (d?.status === 'ignoreP' || (d?.status === 'ignoreC' && d.detail_hash === hash)) status = d.status;
    else if (d) await deleteDismissal(ctx.db, f.key);
    if (status === 'new') pending++;
    await insertIssue(ctx.db, {
      scan_id: scanId,
      type: f.type,
      severity: f.severity,
      status,
      ignore_key: f.key,
      detail_hash: hash,
      short_msg: f.shortMsg,
      long_msg: f.longMsg,
      data: JSON.stringify(f.data),
      time: finished,
      last_updated: finished,
    });
  }
  return ok({
    success: true,
    scan: { id: scanId, started: utcSeconds(started), finished: utcSeconds(finished), issue_count: findings.length, pending_count: pending },
  });
});

// Scans run to completion inside their request, so there is never one to stop.
const stopScan = implement(R.stopScan, () => ok({ success: true, running: false }));

const issues = implement(R.issues, async (_input, ctx) => {
  const p = ctx.req.params;
  const pending = p.group === 'pending';
  // Wordfence reads offset and limit with absint(); a limit of 0 means 100.
  const absint = (v: unknown) => Math.abs(Math.trunc(Number(v))) || 0;
  const offset = absint(p.offset);
  const limit = Math.min(absint(p.limit) || 100, 1000);
  const last = await latestScan(ctx.db);
  if (!last) return ok({ count: 0, 'last-scan-time': null, issues: [] });
  return ok({
    count: await countIssues(ctx.db, last.id, pending),
    'last-scan-time': utcSeconds(last.finished),
    issues: (await listIssues(ctx.db, last.id, pending, offset, limit)).map(presentIssue),
  });
});

const IssueUpdate = z.object({
  id: z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.number().int().min(1)).optional(),
  status: z.enum(ISSUE_STATUSES),
});

const updateIssue = implement(R.updateIssue, async (_input, ctx) => {
  const parsed = IssueUpdate.safeParse(ctx.req.params.issue);
  if (!parsed.success)
    throw invalidParam('issue', `issue must be {id, status} with status one of ${ISSUE_STATUSES.join(', ')}.`, 'rest_invalid_issue');
  const { id, status } = parsed.data;
  const row = id ? await getIssue(ctx.db, id) : undefined;
  if (!row || row.scan_id !== (await latestScan(ctx.db))?.id) return ok({ success: false, error: 'Issue not found.' });
  const now = nowUtc();
  await setIssueStatus(ctx.db, row.id, status, now);
  if (status === 'new') await deleteDismissal(ctx.db, row.ignore_key);
  else await putDismissal(ctx.db, { ignore_key: row.ignore_key, status, detail_hash: row.detail_hash, time: now });
  return ok({ success: true });
});

const readIssue = implement(R.readIssue, async (_input, ctx) => {
  const { id } = validateArgs({ id: integer({ required: true, minimum: 1 }) }, ctx.req.params) as { id: number };
  const row = await getIssue(ctx.db, id);
  if (!row || row.scan_id !== (await latestScan(ctx.db))?.id) throw new HttpError(404, 'security_issue_not_found', 'Issue not found.');
  return ok(presentIssue(row));
});

export const scanEndpoints: Endpoint[] = [readConfig, setConfig, scan, stopScan, issues, updateIssue, readIssue];
