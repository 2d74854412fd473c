import { z } from 'zod';
import { checkinDateMs, decideListScan, type ListPass, type ListRules, type ScanVerdict } from '../../shared/checkin/decide.ts';
import { formatInZone, zonedToInstant } from '../../shared/dates.ts';
import { CheckinList, CheckinListStatus } from '../../shared/models/checkin-lists.ts';
import type { AttendeeRow, KioskDb, ListPassRow } from '../store/db.ts';

/**
 * The kiosk's check-in list (its "gate", CONTRACT section 8): a kiosk paired with a key bound to a list keeps the
 * list's rules, the site's time zone its window is written in, and the list's counts, and decides every scan
 * through the list with the shared rule function, from the passes it knows of. A kiosk whose key is bound to an
 * event has no gate and decides as before.
 */

const META_KEY = 'gate';

export const GateState = z.object({
  list: CheckinList,
  /** The site's time zone (IANA), in which `window_start`/`window_end` and the daily count are read. */
  timezone: z.string(),
  /** The list's status as of `statusAt` (the last sync), `null` before the first. */
  status: CheckinListStatus.nullable(),
  statusAt: z.number().nullable(),
  /**
   * The server's log cursor (`X-EVT-Cursor` of `GET /checkins?after_id`) as of the last read of the list's passes:
   * the next sync reads only what arrived after it. Absent: read the whole log (a server that sends no cursor).
   */
  passCursor: z.number().int().nonnegative().optional(),
});
export type GateState = z.infer<typeof GateState>;

export const GATE_META_KEY = META_KEY;

export async function loadGate(db: KioskDb): Promise<GateState | null> {
  const row = await db.meta.get(META_KEY);
  return gateOf(row?.value);
}

let lastGate: { value: unknown; gate: GateState | null } | null = null;

/**
 * The gate a `meta` row's value holds (`null`: none, or the key is bound to no list). The last value's parse is kept:
 * the in-memory copy of `meta` (store/scan-memory.ts) hands every scan the same object until the row is written.
 */
export function gateOf(value: unknown): GateState | null {
  const last = lastGate;
  if (last && last.value === value && value !== undefined) return last.gate;
  const parsed = GateState.safeParse(value);
  const gate = parsed.success ? parsed.data : null;
  lastGate = { value, gate };
  return gate;
}

/** `null`: the key is bound to no list (a key's binding never changes, so this is asked once per pairing). */
export async function saveGate(db: KioskDb, gate: GateState | null): Promise<void> {
  await db.meta.put({ key: META_KEY, value: gate ?? { unbound: true } });
}

/** Whether the server already said this kiosk's key is bound to no list (cleared when the kiosk is paired again). */
export async function knownUnbound(db: KioskDb): Promise<boolean> {
  const row = await db.meta.get(META_KEY);
  return typeof row?.value === 'object' && row.value !== null && (row.value as { unbound?: unknown }).unbound === true;
}

/** The list's rules as the shared function takes them: the window's site-local times resolved in the site's zone. */
export function gateRules(gate: GateState): ListRules {
  const { list, timezone } = gate;
  const at = (local: string | null) => {
    if (local === null) return null;
    try {
      return zonedToInstant(local, timezone).getTime();
    } catch {
      return null;
    }
  };
  return {
    ticketIds: list.ticket_ids,
    allowReentry: list.allow_reentry,
    allowMultipleEntries: list.allow_multiple_entries,
    windowStart: at(list.window_start),
    windowEnd: at(list.window_end),
    entriesPerDay: list.entries_per_day,
    timezone,
  };
}

/** The attendee's passes through the list known to this kiosk (its own and the server's log), in scan order. */
export async function gateHistory(db: KioskDb, listId: number, attendeeId: number): Promise<ListPass[]> {
  return historyOf(await attendeePasses(db, attendeeId), listId);
}

/** Every pass of the attendee this kiosk knows of, on any list (read alongside the attendee on a scan). */
export function attendeePasses(db: KioskDb, attendeeId: number): Promise<ListPassRow[]> {
  return db.listPasses.where('attendeeId').equals(attendeeId).toArray();
}

/** The passes through one list, in scan order. */
export function historyOf(rows: readonly ListPassRow[], listId: number): ListPass[] {
  return rows
    .filter((r) => r.listId === listId)
    .sort((a, b) => a.at - b.at || a.nonce.localeCompare(b.nonce))
    .map((r) => ({ kind: r.kind, at: r.at }));
}

/** A pass this kiosk let through (an entry, or an exit of someone inside): kept with its scan's nonce. */
export async function recordGatePass(db: KioskDb, pass: Omit<ListPassRow, 'source'>): Promise<void> {
  await db.listPasses.put({ ...pass, source: 'local' });
}

/** The server refused a pass this kiosk let through: it leaves the history. */
export async function forgetGatePass(db: KioskDb, nonce: string): Promise<void> {
  await db.listPasses
    .where('nonce')
    .equals(nonce)
    .filter((r) => r.source === 'local')
    .delete();
}

/**
 * Replaces the server's passes with the log as the server holds it now (read after the sync's upload). This
 * kiosk's own passes stay while their scans wait in the outbox, so a scan not uploaded yet still counts; an
 * uploaded one is in the log under the same nonce, or was refused and leaves the history.
 */
export async function replaceServerPasses(db: KioskDb, passes: Omit<ListPassRow, 'source'>[]): Promise<void> {
  await mergeServerPasses(db, passes, true);
}

/**
 * Adds the passes the server's log took in since the last read (`full`: the whole log, replacing what was kept).
 * Either way this kiosk's passes no longer waiting in the outbox leave: an uploaded scan the server took arrived
 * in its log after the last read, so its pass is among `passes` under the same nonce and replaces the local one;
 * one that is not was refused.
 */
export async function mergeServerPasses(db: KioskDb, passes: Omit<ListPassRow, 'source'>[], full: boolean): Promise<void> {
  await db.transaction('rw', db.listPasses, db.outbox, async () => {
    const waiting = new Set((await db.outbox.toArray()).map((r) => r.nonce));
    await db.listPasses.filter((r) => (full && r.source === 'server') || (r.source === 'local' && !waiting.has(r.nonce))).delete();
    await db.listPasses.bulkPut(passes.map((p) => ({ ...p, source: 'server' as const })));
  });
}

/**
 * A scan's verdict through the kiosk's list. `base` is the verdict of the rules that hold on every list (code,
 * event, revoked, order); a standing check-in on the event does not decide here, the list's history does.
 * `checkIn: false` is an exit. Refusals are the server's codes, so online and offline read the same.
 */
export function decideThroughGate(
  gate: GateState,
  base: ScanVerdict,
  local: AttendeeRow | undefined,
  checkIn: boolean,
  at: number,
  history: readonly ListPass[],
): ScanVerdict {
  if (!local) return base;
  const passable = base.kind === 'admitted' || base.kind === 'already' || base.kind === 'already_here';
  if (!passable) return base;
  const who = { attendeeId: local.id, name: local.name };
  const verdict = decideListScan(gateRules(gate), local.ticketId, { kind: checkIn ? 'entry' : 'exit', at }, history);
  if (verdict.kind === 'admit') return { kind: 'admitted', ...who, ticketTitle: local.ticketTitle };
  if (verdict.code === 'tec-et-attendee-already-checked-in') {
    const last = history[history.length - 1];
    return {
      kind: 'already',
      ...who,
      ticketTitle: local.ticketTitle,
      checkedInAt: last ? new Date(last.at).toISOString() : (local.checkinDate ?? ''),
      deviceId: null,
    };
  }
  return { kind: 'invalid', reason: 'refused', ...who, code: verdict.code };
}

/** Whether an exit lets someone out who is inside (an exit of someone not inside changes nothing). */
export function exitCounts(history: readonly ListPass[]): boolean {
  return history.length > 0 && history[history.length - 1]!.kind === 'entry';
}

export interface Presence {
  checkedIn: number;
  inside: number;
  expected: number;
}

export interface GateCounts {
  list: Presence;
  event: Presence;
}

/**
 * The list's and the event's counts: the server's status as of the last sync, plus this kiosk's passes the
 * server's log did not have then (scans not uploaded, or uploaded after the status was read).
 */
export async function gateCounts(db: KioskDb, gate: GateState): Promise<GateCounts | null> {
  const { status } = gate;
  if (!status) return null;
  const list = { checkedIn: status.checked_in, inside: status.inside, expected: status.expected };
  const event = { checkedIn: status.event.checked_in, inside: status.event.inside, expected: status.event.expected };
  const passes = (await db.listPasses.toArray()).filter((p) => p.listId === gate.list.id).sort((a, b) => a.at - b.at);
  const byAttendee = new Map<number, ListPassRow[]>();
  for (const p of passes) byAttendee.set(p.attendeeId, [...(byAttendee.get(p.attendeeId) ?? []), p]);
  for (const rows of byAttendee.values()) {
    const server = rows.filter((r) => r.source === 'server');
    const local = rows.filter((r) => r.source === 'local');
    if (local.length === 0) continue;
    const wasIn = server.some((r) => r.kind === 'entry');
    const wasInside = server.length > 0 && server[server.length - 1]!.kind === 'entry';
    const isIn = wasIn || local.some((r) => r.kind === 'entry');
    const isInside = rows[rows.length - 1]!.kind === 'entry';
    const dChecked = !wasIn && isIn ? 1 : 0;
    const dInside = (isInside ? 1 : 0) - (wasInside ? 1 : 0);
    list.checkedIn += dChecked;
    list.inside += dInside;
    event.checkedIn += dChecked;
    event.inside += dInside;
  }
  for (const p of [list, event]) {
    p.inside = Math.max(0, Math.min(p.inside, p.expected));
    p.checkedIn = Math.min(p.checkedIn, p.expected);
  }
  return { list, event };
}

/** A pass from the server's check-in log, as `GET /checkins` answers it to a list-bound key. */
export const LogPass = z.object({
  id: z.number().int(),
  attendee_id: z.number().int(),
  result: z.string(),
  reason: z.string().nullish(),
  scanned_at: z.string(),
  nonce: z.string().nullish(),
});

/** The log's rows that are passes on the list: entries, and exits that let someone out (reason `null`). */
export function passesFromLog(listId: number, rows: z.infer<typeof LogPass>[]): Omit<ListPassRow, 'source'>[] {
  const out: Omit<ListPassRow, 'source'>[] = [];
  for (const r of rows) {
    const kind = r.result === 'accepted' ? 'entry' : r.result === 'checked_out' && !r.reason ? 'exit' : null;
    const at = checkinDateMs(r.scanned_at);
    if (kind === null || at === null) continue;
    out.push({ nonce: r.nonce || `server-${r.id}`, listId, attendeeId: r.attendee_id, kind, at });
  }
  return out;
}

/** The site-local wall time of the window's start or end, and whether it falls on the day of `now`. */
export function windowTime(local: string | null, timezone: string, now: number): { time: string; date: string; sameDay: boolean } | null {
  if (local === null) return null;
  let today: string;
  try {
    today = formatInZone(new Date(now), timezone).slice(0, 10);
  } catch {
    today = '';
  }
  return { time: local.slice(11, 16), date: local.slice(0, 10), sameDay: local.slice(0, 10) === today };
}
