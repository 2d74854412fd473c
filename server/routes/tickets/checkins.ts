import { dateDetails, parseDateInput } from '../../../shared/dates.ts';
import { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { apiKeyLabel } from '../../db/repos/api-keys.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { CHECKIN_RESULTS, queryCheckins, type CheckinRow } from '../../db/repos/checkins.ts';
import { archiveLinks, knownQuery } from '../events/archive.ts';
import { keyEventScope, organizerScope } from './attendee-access.ts';
import { utcToLocal } from './attendee-present.ts';
import { etTotalHeaders, invalidPage } from './paging.ts';

const SUPPORTED = Object.keys(ticketsRoutes.listCheckins.args).filter((k) => k !== 'translation_language');

/** Key labels by key ID, read once per page: a page of 100 scans comes from a handful of doors. */
type KeyLabels = Map<number, string | null>;

function keyLabel(ctx: Ctx, keyId: number, labels: KeyLabels): string | null {
  if (labels.has(keyId)) return labels.get(keyId)!;
  const label = apiKeyLabel(ctx.db, keyId) ?? null;
  labels.set(keyId, label);
  return label;
}

/** One scan of the log. `date` is the scan time in site time, as in `checkin_details`. */
export function presentCheckin(ctx: Ctx, c: CheckinRow, labels: KeyLabels = new Map()): Record<string, unknown> {
  const date = utcToLocal(ctx, c.scanned_at);
  return {
    id: c.id,
    attendee_id: c.attendee_id,
    post_id: c.event_id,
    result: c.result,
    reason: c.reason,
    date,
    date_details: dateDetails(date),
    scanned_at: c.scanned_at,
    received_at: c.received_at,
    device_id: c.device_id,
    nonce: c.nonce,
    source: c.source,
    author: String(c.user_id),
    api_key_id: c.api_key_id,
    // Additive, last: the label of the door key that scanned (`Door 2`), so a kiosk can name the other door.
    device_label: c.api_key_id === null ? null : keyLabel(ctx, c.api_key_id, labels),
  };
}

function isoBound(value: string, param: string): string {
  const d = parseDateInput(value, 'UTC', new Date());
  if (!d) throw invalidParam(param);
  return d.toISOString();
}

/** `GET /checkins`: the check-in log (CONTRACT section 7), paged like the attendee list. */
const list = implement(ticketsRoutes.listCheckins, (input, ctx) => {
  const results = input.result?.map((r) => r.toLowerCase());
  if (results?.some((r) => !(CHECKIN_RESULTS as readonly string[]).includes(r))) throw invalidParam('result');
  const scope = keyEventScope(ctx);
  let eventIds = input.post_id !== undefined ? [input.post_id] : undefined;
  if (scope !== null) eventIds = eventIds ? eventIds.filter((e) => e === scope) : [scope];
  const perPage = input.per_page;
  const { rows, total } = queryCheckins(ctx.db, {
    eventIds,
    // An organizer reads the check-ins of its own events only (CONTRACT section 3).
    eventAuthor: organizerScope(ctx) ?? undefined,
    attendeeId: input.attendee_id,
    deviceId: input.device_id,
    results,
    after: input.after ? isoBound(input.after, 'after') : undefined,
    before: input.before ? isoBound(input.before, 'before') : undefined,
    order: input.order,
    limit: perPage,
    offset: (input.page - 1) * perPage,
  });
  const totalPages = Math.ceil(total / perPage);
  if (input.page > 1 && input.page > totalPages) throw invalidPage();
  const { rest_url } = archiveLinks(ctx.urls.rest('/evt/tickets/v1/checkins/'), knownQuery(ctx.req.params, SUPPORTED), 1, 1);
  const labels: KeyLabels = new Map();
  return ok(
    { rest_url, total, total_pages: totalPages, checkins: rows.map((c) => presentCheckin(ctx, c, labels)) },
    etTotalHeaders(total, totalPages),
  );
});

export const checkinLogEndpoints: Endpoint[] = [list];
