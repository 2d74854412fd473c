import {
  decideCheckin,
  decideListScan,
  LIST_REFUSAL_CODES,
  type ListPass,
  type ListRefusalCode,
  type ListRules,
} from '../../../shared/checkin/decide.ts';
import { zonedToInstant } from '../../../shared/dates.ts';
import type { CheckinList } from '../../../shared/models/checkin-lists.ts';
import type { Ctx } from '../../kernel/context.ts';
import { forbidden, HttpError, invalidParam } from '../../kernel/errors.ts';
import { effectiveOrderStatus, type AttendeeRow } from '../../db/repos/attendees.ts';
import type { CheckinInsert, CheckinResult } from '../../db/repos/checkins.ts';
import { getCheckinList, listPassesOf, type CheckinListRow } from '../../db/repos/checkin-lists.ts';
import { checkinDetails, scanNowMs } from './standing.ts';
import type { ScanDecision, ScanRequest } from './scan.ts';

/**
 * Check-ins through a check-in list (CONTRACT section 8): which list a scan goes through, the list's rules as
 * the shared rule function takes them, and the decision and its log row. scan.ts `decideScan` asks here first;
 * a scan through no list (an event without lists, a key bound to an event or to none, a manager naming none) is
 * decided there as before.
 */

/** The list a door key is bound to, if any: such a key reads that list only. */
export function keyListScope(ctx: Ctx): number | null {
  return ctx.caller.kind === 'api_key' ? ctx.caller.listId : null;
}

export function listTicketIds(list: Pick<CheckinListRow, 'ticket_ids'>): number[] {
  return JSON.parse(list.ticket_ids) as number[];
}

/** A list as answered. */
export function presentList(list: CheckinListRow): CheckinList {
  return {
    id: list.id,
    event_id: list.event_id,
    name: list.name,
    ticket_ids: listTicketIds(list),
    allow_reentry: list.allow_reentry === 1,
    allow_multiple_entries: list.allow_multiple_entries === 1,
    window_start: list.window_start,
    window_end: list.window_end,
    entries_per_day: list.entries_per_day,
    direction: list.direction,
  };
}

/** The list's rules for the shared rule function: the window's site-local times resolved in the site's time zone. */
export function listRules(ctx: Ctx, list: CheckinListRow): ListRules {
  const tz = ctx.app.config.timezone;
  return {
    ticketIds: listTicketIds(list),
    allowReentry: list.allow_reentry === 1,
    allowMultipleEntries: list.allow_multiple_entries === 1,
    windowStart: list.window_start === null ? null : zonedToInstant(list.window_start, tz).getTime(),
    windowEnd: list.window_end === null ? null : zonedToInstant(list.window_end, tz).getTime(),
    entriesPerDay: list.entries_per_day,
    timezone: tz,
  };
}

/**
 * The tickets whose attendees a list-bound key downloads: null for a caller not bound to a list, or bound to one
 * admitting every ticket; `[]` (nothing) when its list is gone.
 */
export async function keyListTicketIds(ctx: Ctx): Promise<number[] | null> {
  const listId = keyListScope(ctx);
  if (listId === null) return null;
  const list = await getCheckinList(ctx.db, listId);
  if (!list) return [];
  const ids = listTicketIds(list);
  return ids.length ? ids : null;
}

/**
 * The moment a scan through a list is decided at (its window, its site-local day): the device's scan time when it
 * is believable, else the arrival. A door key could otherwise backdate a scan into an open window or onto a day
 * with entries left. The rule: a scan time may not be later than its arrival (a device clock running ahead, or a
 * claim about the future, is decided at arrival), and may be at most `maxAgeHours` (EVT_SCAN_MAX_AGE_HOURS,
 * default 24) earlier, so an offline kiosk's scans uploaded within a day are decided at the moment they were made,
 * as it decided them; older claims are decided at arrival (a late upload past the closed window is refused and
 * logged, which is what staff must see). pretixSCAN trusts offline scan times the same way, within its upload
 * window. Scans through no list decide nothing by time and keep their device time as before (CONTRACT section 7).
 */
export function believedScanTime(claimed: number | undefined, arrival: number, maxAgeHours: number): number {
  if (claimed === undefined || claimed > arrival || claimed < arrival - maxAgeHours * 3_600_000) return arrival;
  return claimed;
}

type LogBuilder = (result: CheckinResult, reason: string | null) => CheckinInsert;

/**
 * Decides a scan through the list it goes through (a list-bound key's, or the `list_id` a manager named), or
 * answers null when it goes through none. Called by `decideScan` under the attendee's lock, after the nonce
 * check: the attendee's history on the list is read under that lock, so no other scan of the attendee lands
 * between the read and the write of this one. Writes nothing; `log` builds the scan's log row.
 */
export async function decideThroughList(ctx: Ctx, row: AttendeeRow, req: ScanRequest, log: LogBuilder): Promise<ScanDecision | null> {
  const bound = keyListScope(ctx);
  if (bound !== null && req.listId !== undefined && req.listId !== bound) throw forbidden(false);
  const listId = bound ?? req.listId;
  if (listId === undefined) return null;
  const list = await getCheckinList(ctx.db, listId);
  if (!list || list.event_id !== row.event_id) throw invalidParam('list_id', 'list_id is not a check-in list of the attendee’s event.');
  // Through an exit list every scan is an exit, whatever check_in says (a door at the way out; the original's QR
  // app knows only check-in); the kiosk on such a list scans exits (renderer/checkin/checkin-service.ts).
  // Its exits are exits from the whole event: every list's history reads them (listPassesOf), and the standing
  // check-in is cleared (scan.ts applyScan). A door at the way out need not know which gate the guest came in by.
  if (list.direction === 'exit') req = { ...req, checkIn: false };
  const logged = (result: CheckinResult, reason: string | null): CheckinInsert => ({ ...log(result, reason), list_id: list.id });
  if (req.checkIn) {
    // What holds on every list: a trashed ticket or an order that does not allow check-in.
    const base = decideCheckin({
      id: row.id,
      eventId: row.event_id,
      status: row.status,
      orderStatus: effectiveOrderStatus(row),
      securityCodeHash: null,
      checkedIn: false,
      checkin: null,
      name: row.full_name,
      ticketTitle: row.ticket_title,
    });
    if (base.kind === 'invalid') return { outcome: { kind: 'rejected', reason: base.reason }, log: logged('rejected', base.reason) };
  }
  const history: ListPass[] = (await listPassesOf(ctx.db, list.id, row.id, row.event_id)).map((p) => ({
    kind: p.result === 'accepted' ? 'entry' : 'exit',
    at: Date.parse(p.scanned_at),
  }));
  const at = believedScanTime(req.scannedAt?.getTime(), scanNowMs(ctx), ctx.app.config.scanMaxAgeHours);
  // The pass is logged at the time it was decided at, so the attendee's later scans count it on that day.
  const listed = (result: CheckinResult, reason: string | null): CheckinInsert => ({
    ...log(result, reason),
    scanned_at: new Date(at).toISOString(),
    list_id: list.id,
  });
  const verdict = decideListScan(listRules(ctx, list), row.ticket_id, { kind: req.checkIn ? 'entry' : 'exit', at }, history);
  if (verdict.kind === 'admit') {
    if (req.checkIn) return { outcome: { kind: 'accepted' }, log: listed('accepted', null) };
    // An exit list is the venue's way out: its exit leaves the event, and counts when the attendee is inside it.
    const counts = list.direction === 'exit' ? row.checked_in === 1 : verdict.counts;
    return { outcome: { kind: 'checked_out' }, log: listed('checked_out', counts ? null : 'not_checked_in'), eventExit: list.direction === 'exit' };
  }
  if (verdict.code === 'tec-et-attendee-already-checked-in') {
    return { outcome: { kind: 'conflict', standing: checkinDetails(ctx, row) }, log: listed('conflict', 'already_checked_in') };
  }
  return { outcome: { kind: 'rejected', reason: verdict.code, listId: list.id }, log: listed('rejected', verdict.code) };
}

const REFUSAL_MESSAGES: Record<Exclude<ListRefusalCode, 'tec-et-attendee-already-checked-in'>, string> = {
  'checkin-list-ticket-not-admitted': 'This check-in list does not admit the attendee’s ticket.',
  'checkin-list-closed': 'This check-in list is closed at this time.',
  'checkin-list-no-reentry': 'This check-in list does not allow re-entry after an exit.',
  'checkin-list-entries-exhausted': 'The attendee has used the entries this check-in list allows today.',
};

/** Whether a refused scan's reason is a list's refusal (answered with its own code). */
export function isListRefusal(reason: string): reason is keyof typeof REFUSAL_MESSAGES {
  return reason in REFUSAL_MESSAGES && (LIST_REFUSAL_CODES as readonly string[]).includes(reason);
}

/** The 400 a list's refusal answers with; `checkin-list-closed` carries the list's window. */
export async function listRefusalError(ctx: Ctx, code: keyof typeof REFUSAL_MESSAGES, listId: number | null | undefined): Promise<HttpError> {
  let data: Record<string, unknown> | undefined;
  if (code === 'checkin-list-closed') {
    const list = listId ? await getCheckinList(ctx.db, listId) : undefined;
    data = { window_start: list?.window_start ?? null, window_end: list?.window_end ?? null };
  }
  return new HttpError(400, code, REFUSAL_MESSAGES[code], data);
}
