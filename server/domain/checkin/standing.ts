import { dateDetails, formatInZone } from '../../../shared/dates.ts';
import type { CheckinDetails } from '../../../shared/models/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import type { AttendeeRow } from '../../db/repos/attendees.ts';

/** An attendee's standing check-in as the interface shows it (a check-in decision names it in a conflict). */

// Stored times repeat a lot on a page (an order's date on each of its attendees): converted once each.
const localTimes = new Map<string, string>();

/** A stored UTC time (`YYYY-MM-DD HH:MM:SS` or ISO 8601) as site-local `Y-m-d H:i:s`. */
export function utcToLocal(ctx: Ctx, utc: string): string {
  const key = `${ctx.app.config.timezone}|${utc}`;
  let local = localTimes.get(key);
  if (local === undefined) {
    const iso = utc.includes('T') ? utc : `${utc.replace(' ', 'T')}Z`;
    local = formatInZone(new Date(iso), ctx.app.config.timezone);
    if (localTimes.size >= 20_000) localTimes.clear();
    localTimes.set(key, local);
  }
  return local;
}

/**
 * The standing check-in of a row, or `false`. `doorLabel` (the door view): adds `device_label`, the door key's
 * label, so a kiosk deciding from its cache names the other door as the server's conflict answer does.
 */
export function checkinDetails(ctx: Ctx, row: AttendeeRow, doorLabel = false): CheckinDetails | false {
  if (!row.checked_in || !row.ci_scanned_at) return false;
  const date = utcToLocal(ctx, row.ci_scanned_at);
  const out: CheckinDetails = {
    date,
    date_details: dateDetails(date),
    source: row.ci_source ?? 'site',
    author: row.ci_user_id ?? 0,
    device_id: row.ci_device_id,
  };
  if (doorLabel) out.device_label = row.ci_device_label ?? null;
  // A venue hub's check-in that overruled one of its kiosks' scans names that scan (server/hub/push.ts).
  if (row.ci_replaced_nonce && row.ci_replaced_scanned_at)
    out.replaced = { device_id: row.ci_replaced_device_id ?? null, date: utcToLocal(ctx, row.ci_replaced_scanned_at), nonce: row.ci_replaced_nonce };
  return out;
}
