import { formatInZone } from '../dates.ts';
import { orderAllowsCheckin } from './order-status.ts';
import { securityCodeMatches } from './security-code.ts';
import type { TicketCode } from './ticket-code.ts';

/** An attendee as the check-in rules see it; the kiosk cache and the server both map their rows to this. */
export interface ScanSubject {
  id: number;
  eventId: number;
  /** Post status: `publish`, or `trash` when the ticket was deleted. */
  status: string;
  orderStatus: string | null;
  /** {@link hashSecurityCode} of the attendee's code; `null` when unknown (the code cannot be verified). */
  securityCodeHash: string | null;
  checkedIn: boolean;
  /** The standing check-in when `checkedIn`. */
  checkin: { date: string; deviceId: string | null } | null;
  name: string;
  ticketTitle: string | null;
}

/** Why a scan is not valid. */
export type InvalidReason =
  | 'unreadable'
  | 'unknown_ticket'
  | 'other_event'
  | 'wrong_security_code'
  | 'order_not_complete'
  | 'revoked'
  /** A signed code whose signature does not verify under the event's key (CONTRACT section 8). */
  | 'forged'
  /** The server refused for a reason the rules do not name; `message` says which. */
  | 'refused';

/** The outcome of one scan, as shown at the door. */
export type ScanVerdict =
  | { kind: 'admitted'; attendeeId: number; name: string; ticketTitle: string | null }
  | {
      kind: 'already';
      attendeeId: number;
      name: string;
      ticketTitle: string | null;
      /** When the standing check-in happened (server or device clock, as recorded). */
      checkedInAt: string;
      /** Device that admitted the attendee, when known. */
      deviceId: string | null;
      /** That device's name (its key's label, e.g. "Door 2"), when the server sent it. */
      deviceLabel?: string | null;
    }
  | {
      kind: 'invalid';
      reason: InvalidReason;
      attendeeId: number | null;
      name: string | null;
      orderStatus?: string | null;
      message?: string;
      /** `refused`: the server's error code, which the kiosk shows as local text. */
      code?: string;
    }
  /**
   * This device admitted the attendee itself `agoMs` ago: a re-scan, not a conflict (shown amber, never sent
   * as a new check-in).
   */
  | { kind: 'already_here'; attendeeId: number; name: string; ticketTitle: string | null; checkedInAt: string; agoMs: number }
  /**
   * A well-formed code for this event that the cache does not know (a walk-in sold after the last sync), and
   * the server could not be asked in time: neither valid nor not valid, staff check by hand or sync.
   * `syncedAgoMs` is the age of the last download, `null` when there was none.
   */
  | { kind: 'not_in_list'; attendeeId: number; syncedAgoMs: number | null };

export interface ScanContext {
  /** The event this device admits to. */
  eventId: number;
  /** Current time, ms since epoch. */
  now: number;
  /** Time of the last successful attendee download, ms since epoch; `null` if never. */
  lastSyncAt: number | null;
  /** This device's ID: a standing check-in made by it is a re-scan (`already_here`), not someone else's. */
  deviceId?: string;
}

/** Reads a check-in date (ISO with offset, or the original's `Y-m-d H:i:s` as local time) as ms. */
export function checkinDateMs(date: string | null | undefined): number | null {
  if (!date) return null;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(date) ? date.replace(' ', 'T') : date);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The part of the rules that needs no security code: the server applies it to a check-in request, the
 * kiosk to a cached attendee once the code is verified.
 */
export function decideCheckin(subject: ScanSubject, ctx?: Pick<ScanContext, 'deviceId' | 'now'>): ScanVerdict {
  const who = { attendeeId: subject.id, name: subject.name };
  if (subject.status === 'trash') return { kind: 'invalid', reason: 'revoked', ...who };
  if (!orderAllowsCheckin(subject.orderStatus)) {
    return { kind: 'invalid', reason: 'order_not_complete', orderStatus: subject.orderStatus, ...who };
  }
  if (subject.checkedIn) {
    if (ctx?.deviceId !== undefined && subject.checkin?.deviceId === ctx.deviceId) {
      const at = checkinDateMs(subject.checkin.date);
      return {
        kind: 'already_here',
        ...who,
        ticketTitle: subject.ticketTitle,
        checkedInAt: subject.checkin.date,
        agoMs: at === null ? 0 : Math.max(0, ctx.now - at),
      };
    }
    return {
      kind: 'already',
      ...who,
      ticketTitle: subject.ticketTitle,
      checkedInAt: subject.checkin?.date ?? '',
      deviceId: subject.checkin?.deviceId ?? null,
    };
  }
  return { kind: 'admitted', ...who, ticketTitle: subject.ticketTitle };
}

/**
 * Decides a scanned code against what is known locally. `code` is `null` when the scan was not a ticket
 * code; `subject` is the cached attendee with the code's attendee ID, if any.
 *
 * The security code is checked before anything about the attendee is revealed, so a guessed ID learns
 * neither name nor status.
 */
export function decideScan(code: TicketCode | null, subject: ScanSubject | undefined, ctx: ScanContext): ScanVerdict {
  if (code === null) return { kind: 'invalid', reason: 'unreadable', attendeeId: null, name: null };
  if (code.eventId !== null && code.eventId !== ctx.eventId) {
    return { kind: 'invalid', reason: 'other_event', attendeeId: code.attendeeId, name: null };
  }
  if (subject === undefined) {
    // Only the server can say a well-formed code for this event does not exist: the cache may predate it.
    const age = ctx.lastSyncAt === null ? null : Math.max(0, ctx.now - ctx.lastSyncAt);
    return { kind: 'not_in_list', attendeeId: code.attendeeId, syncedAgoMs: age };
  }
  if (subject.securityCodeHash === null || !securityCodeMatches(subject.id, code.securityCode, subject.securityCodeHash)) {
    return { kind: 'invalid', reason: 'wrong_security_code', attendeeId: code.attendeeId, name: null };
  }
  if (subject.eventId !== ctx.eventId) {
    return { kind: 'invalid', reason: 'other_event', attendeeId: subject.id, name: null };
  }
  return decideCheckin(subject, ctx);
}

/** Why a check-in list refuses a scan: the error code the server answers with (CONTRACT section 8). */
export type ListRefusalCode =
  | 'checkin-list-ticket-not-admitted'
  | 'checkin-list-closed'
  | 'tec-et-attendee-already-checked-in'
  | 'checkin-list-no-reentry'
  | 'checkin-list-entries-exhausted';

export const LIST_REFUSAL_CODES: readonly ListRefusalCode[] = [
  'checkin-list-ticket-not-admitted',
  'checkin-list-closed',
  'tec-et-attendee-already-checked-in',
  'checkin-list-no-reentry',
  'checkin-list-entries-exhausted',
];

/** A check-in list's rules as a scan is decided by them; the server and the kiosk map a list to this. */
export interface ListRules {
  /** Tickets the list admits; empty admits every ticket of the event. */
  ticketIds: readonly number[];
  /** After an exit, may the attendee enter again. */
  allowReentry: boolean;
  /** May the attendee enter again without an exit in between. */
  allowMultipleEntries: boolean;
  /** The window's ends as instants (ms), resolved by the caller from the list's site-local times; null: open. */
  windowStart: number | null;
  windowEnd: number | null;
  /** Entries allowed per site-local day; null: no limit. */
  entriesPerDay: number | null;
  /** The site's time zone (IANA): the days `entriesPerDay` counts in. */
  timezone: string;
}

/** One pass through a list: an entry (check-in) or an exit (check-out), at a moment (ms). */
export interface ListPass {
  kind: 'entry' | 'exit';
  at: number;
}

export type ListVerdict =
  /** `counts`: whether the pass enters the attendee's history (an exit of someone not inside changes nothing). */
  { kind: 'admit'; counts: boolean } | { kind: 'refuse'; code: ListRefusalCode };

/**
 * Decides a scan through a check-in list (CONTRACT section 8), from the list's rules, the attendee's ticket, the
 * scan and the attendee's history on that list: its earlier passes that counted, in the order they were made.
 * Pure: the server reads the history from its log, the kiosk from what it admitted, and both get the same answer.
 *
 * In order: a ticket the list does not admit is refused, exits included; an exit is then always let through (no one
 * is kept in), and counts when the attendee is inside (its last pass an entry). An entry is refused outside the
 * window, when inside and multiple entries are not allowed, after an exit when re-entry is not allowed, and when
 * the entries of the scan's site-local day are used up.
 */
export function decideListScan(rules: ListRules, ticketId: number, scan: ListPass, history: readonly ListPass[]): ListVerdict {
  if (rules.ticketIds.length > 0 && !rules.ticketIds.includes(ticketId)) return { kind: 'refuse', code: 'checkin-list-ticket-not-admitted' };
  const inside = history.length > 0 && history[history.length - 1]!.kind === 'entry';
  if (scan.kind === 'exit') return { kind: 'admit', counts: inside };
  if ((rules.windowStart !== null && scan.at < rules.windowStart) || (rules.windowEnd !== null && scan.at > rules.windowEnd)) {
    return { kind: 'refuse', code: 'checkin-list-closed' };
  }
  if (inside && !rules.allowMultipleEntries) return { kind: 'refuse', code: 'tec-et-attendee-already-checked-in' };
  if (!rules.allowReentry && history.some((p) => p.kind === 'exit')) return { kind: 'refuse', code: 'checkin-list-no-reentry' };
  if (rules.entriesPerDay !== null) {
    const day = localDay(scan.at, rules.timezone);
    const used = history.filter((p) => p.kind === 'entry' && localDay(p.at, rules.timezone) === day).length;
    if (used >= rules.entriesPerDay) return { kind: 'refuse', code: 'checkin-list-entries-exhausted' };
  }
  return { kind: 'admit', counts: true };
}

/** The site-local day (`YYYY-MM-DD`) of an instant. */
function localDay(ms: number, timezone: string): string {
  return formatInZone(new Date(ms), timezone).slice(0, 10);
}

/** The last pass of an attendee through one list (`listId` null: the event's implicit list), and its log row's ID. */
export interface LastPass {
  listId: number | null;
  kind: 'entry' | 'exit';
  /** The log row that made the pass: log rows are numbered in the order they were accepted. */
  id: number;
  /** The list is an exit list (direction `exit`): its exit is an exit from the whole event. */
  exitList?: boolean;
}

/**
 * The attendee's standing check-in on the event (CONTRACT section 7's `checked_in`) after an exit through list
 * `exitListId` let the attendee out of it: the latest entry on a list the attendee is still inside (its last pass
 * an entry), or `null` when inside none, and only then checked out of the event. Each list keeps its own
 * inside/outside, as pretix's check-in lists do: leaving the VIP lounge is no exit from the festival. An exit
 * through no list (the implicit list) is an exit from the whole event, as before lists: entries before it stand no
 * more, and so is an exit through an exit list. `last` holds the attendee's last pass on each list, the exit's own list included or not.
 */
export function standingAfterListExit(exitListId: number, last: readonly LastPass[]): number | null {
  let eventExit = 0;
  for (const p of last) if (p.kind === 'exit' && (p.listId === null || p.exitList) && p.id > eventExit) eventExit = p.id;
  let standing: number | null = null;
  for (const p of last) {
    if (p.listId === exitListId || p.kind !== 'entry' || p.id < eventExit) continue;
    if (standing === null || p.id > standing) standing = p.id;
  }
  return standing;
}
