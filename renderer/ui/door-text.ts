import type { ConflictRow, ScanRow } from '../store/db.ts';
import { formatAge, formatClock, refusalText, type Lang, type MessageKey, type Translate } from './i18n.ts';
import type { VerdictTone } from './verdict-text.ts';

/**
 * Texts of the door's main screen, as pure functions of what the cache holds (unit-tested without a page).
 */

/**
 * The conflict as the door reads it, worded by who came first (by scan time):
 * "Karl Rebane was also admitted at Door 2, 19:02:11, 19 s after you" when this door was first, "... was
 * already admitted at Door 2, 19:01:52, 19 s before you" when the other door was. The other door is named
 * by its key's label, never by a hex ID.
 */
export function conflictLine(c: ConflictRow, t: Translate, lang: Lang, door: (c: ConflictRow) => string): string {
  const name = c.name || t('door.ticketNo', { id: c.attendeeId });
  const where = door(c);
  if (c.first == null || c.theirScanAt == null || c.gapMs == null) return t('conflict.noTime', { name, door: where });
  const vars = { name, door: where, time: formatClock(lang, c.theirScanAt), gap: formatAge(t, c.gapMs) };
  return c.first === 'ours' ? t('conflict.after', vars) : t('conflict.before', vars);
}

export interface RecentScan {
  tone: VerdictTone;
  /** The name where the verdict itself showed one; otherwise the ticket number (a guessed code learns nothing). */
  who: string;
  label: string;
  time: string;
  verdict: string;
}

/** Verdicts whose screen named the guest (a wrong security code or another event's ticket never does). */
function namesGuest(scan: ScanRow): boolean {
  if (scan.verdict !== 'invalid') return scan.verdict !== 'not_in_list';
  // A check-in list's refusal made here named the guest too (the security code matched).
  return scan.reason === 'order_not_complete' || scan.reason === 'revoked' || scan.reason === 'refused' || !!scan.reason?.startsWith('checkin-list-');
}

export function recentScan(scan: ScanRow, name: string | undefined, t: Translate, lang: Lang): RecentScan {
  const tone: VerdictTone =
    scan.verdict === 'admitted'
      ? 'ok'
      : scan.verdict === 'checked_out'
        ? 'out'
        : scan.verdict === 'already' || scan.verdict === 'already_here'
          ? 'warn'
          : scan.verdict === 'not_in_list'
            ? 'stale'
            : 'bad';
  const label =
    scan.verdict === 'admitted'
      ? t('verdict.admitted')
      : scan.verdict === 'checked_out'
        ? t('verdict.checkedOut')
        : scan.verdict === 'already'
          ? t('verdict.already')
          : scan.verdict === 'already_here'
            ? t('verdict.alreadyHereShort')
            : scan.verdict === 'not_in_list'
              ? t('verdict.notInList')
              : notValidLabel(scan.reason, t);
  const who = namesGuest(scan) && name ? name : scan.attendeeId !== null ? t('door.ticketNo', { id: scan.attendeeId }) : t('door.unknownName');
  return { tone, who, label, time: formatClock(lang, scan.at), verdict: scan.verdict };
}

/** "Not valid: Ticket for another event": the last scans keep the reason the verdict gave. */
function notValidLabel(reason: string | null, t: Translate): string {
  const why = reason?.startsWith('checkin-list-')
    ? refusalText(t, reason)
    : reason === 'order_not_complete'
      ? t('reason.order_not_complete_short')
      : reason === 'refused'
        ? t('reason.refused_short')
        : reason && `reason.${reason}` in REASON_KEYS
          ? t(`reason.${reason}` as MessageKey)
          : null;
  return why ? `${t('verdict.notValidShort')}: ${why}` : t('verdict.notValidShort');
}

const REASON_KEYS: Record<string, true> = {
  'reason.unreadable': true,
  'reason.unknown_ticket': true,
  'reason.other_event': true,
  'reason.wrong_security_code': true,
  'reason.revoked': true,
  'reason.forged': true,
  'reason.not_in_list': true,
};
