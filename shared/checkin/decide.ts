import { orderAllowsCheckin } from './order-status.ts';
import { securityCodeMatches } from './security-code.ts';
import type { TicketCode } from './ticket-code.ts';

/** A cache older than this cannot vouch that an unknown ticket really is unknown. */
export const CACHE_STALE_AFTER_MS = 5 * 60_000;

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
    }
  | {
      kind: 'invalid';
      reason: InvalidReason;
      attendeeId: number | null;
      name: string | null;
      orderStatus?: string | null;
      message?: string;
    }
  /** Not in the cache, and the cache is too old to be sure the ticket does not exist. */
  | { kind: 'stale'; attendeeId: number; cacheAgeMs: number | null };

export interface ScanContext {
  /** The event this device admits to. */
  eventId: number;
  /** Current time, ms since epoch. */
  now: number;
  /** Time of the last successful attendee download, ms since epoch; `null` if never. */
  lastSyncAt: number | null;
  staleAfterMs?: number;
}

/**
 * The part of the rules that needs no security code: the server applies it to a check-in request, the
 * kiosk to a cached attendee once the code is verified.
 */
export function decideCheckin(subject: ScanSubject): ScanVerdict {
  const who = { attendeeId: subject.id, name: subject.name };
  if (subject.status === 'trash') return { kind: 'invalid', reason: 'revoked', ...who };
  if (!orderAllowsCheckin(subject.orderStatus)) {
    return { kind: 'invalid', reason: 'order_not_complete', orderStatus: subject.orderStatus, ...who };
  }
  if (subject.checkedIn) {
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
export function decideScan(
  code: TicketCode | null,
  subject: ScanSubject | undefined,
  ctx: ScanContext,
): ScanVerdict {
  if (code === null) return { kind: 'invalid', reason: 'unreadable', attendeeId: null, name: null };
  if (code.eventId !== null && code.eventId !== ctx.eventId) {
    return { kind: 'invalid', reason: 'other_event', attendeeId: code.attendeeId, name: null };
  }
  if (subject === undefined) {
    const age = ctx.lastSyncAt === null ? null : Math.max(0, ctx.now - ctx.lastSyncAt);
    if (age === null || age > (ctx.staleAfterMs ?? CACHE_STALE_AFTER_MS)) {
      return { kind: 'stale', attendeeId: code.attendeeId, cacheAgeMs: age };
    }
    return { kind: 'invalid', reason: 'unknown_ticket', attendeeId: code.attendeeId, name: null };
  }
  if (
    subject.securityCodeHash === null ||
    !securityCodeMatches(subject.id, code.securityCode, subject.securityCodeHash)
  ) {
    return { kind: 'invalid', reason: 'wrong_security_code', attendeeId: code.attendeeId, name: null };
  }
  if (subject.eventId !== ctx.eventId) {
    return { kind: 'invalid', reason: 'other_event', attendeeId: subject.id, name: null };
  }
  return decideCheckin(subject);
}
