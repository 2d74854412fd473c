import type { ScanVerdict } from '../../shared/checkin/decide.ts';
import { gateRules, type GateState } from '../checkin/gate.ts';
import { formatAge, formatTime, type Lang, type Translate } from './i18n.ts';
import type { PreflightItem } from './preflight-text.ts';
import type { VerdictText } from './verdict-text.ts';

/**
 * How a kiosk on a check-in list words its list's refusals (CONTRACT section 8), the same whether it decided
 * offline or the server did: the list's name, and the window's times in the site's time as the list states them.
 * `null`: the verdict is worded as on a kiosk without a list.
 */
export function gateVerdictText(v: ScanVerdict, t: Translate, lang: Lang, gate: GateState, now = Date.now()): VerdictText | null {
  const list = gate.list.name;
  if (v.kind === 'admitted' && gate.list.direction === 'exit') {
    return { tone: 'ok', name: v.name, headline: t('gate.exitHeadline'), detail: t('gate.exitDetail', { list }) };
  }
  if (v.kind === 'already') {
    const time = formatTime(lang, v.checkedInAt, now);
    return { tone: 'warn', name: v.name, headline: t('gate.alreadyInsideHeadline'), detail: t('gate.alreadyInside', { time }) };
  }
  if (v.kind === 'not_in_list' && gate.list.ticket_ids.length > 0) {
    return {
      tone: 'stale',
      name: '',
      headline: t('gate.notInListHeadline', { list }),
      detail: v.syncedAgoMs === null ? t('gate.notInListNever') : t('gate.notInList', { age: formatAge(t, v.syncedAgoMs) }),
    };
  }
  if (v.kind !== 'invalid' || v.reason !== 'refused') return null;
  const bad = (detail: string): VerdictText => ({ tone: 'bad', name: v.name ?? '', headline: t('verdict.invalid'), detail });
  switch (v.code) {
    case 'checkin-list-ticket-not-admitted':
      return bad(t('gate.notAdmitted', { list }));
    case 'checkin-list-closed':
      return bad(closedText(t, lang, gate, now));
    case 'checkin-list-no-reentry':
      return bad(t('refusal.checkin-list-no-reentry'));
    case 'checkin-list-entries-exhausted':
      return bad(t('refusal.checkin-list-entries-exhausted'));
    default:
      return null;
  }
}

/** "Doors open at 18:00" before the window, "This gate closed at 23:00" after it, in the site's time. */
export function closedText(t: Translate, lang: Lang, gate: GateState, now: number): string {
  const { windowStart, windowEnd } = gateRules(gate);
  const { window_start: start, window_end: end } = gate.list;
  const today = siteDay(now, gate.timezone);
  const say = (local: string, sameDay: 'gate.opensAt' | 'gate.closedAt', otherDay: 'gate.opensOn' | 'gate.closedOn') => {
    const time = local.slice(11, 16);
    return local.slice(0, 10) === today ? t(sameDay, { time }) : t(otherDay, { time, date: dayText(lang, local.slice(0, 10)) });
  };
  if (start !== null && windowStart !== null && now < windowStart) return say(start, 'gate.opensAt', 'gate.opensOn');
  if (end !== null && windowEnd !== null && now > windowEnd) return say(end, 'gate.closedAt', 'gate.closedOn');
  return t('refusal.checkin-list-closed');
}

function siteDay(now: number, timezone: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  } catch {
    return '';
  }
}

/** A site-local day (`YYYY-MM-DD`) as door staff read it: "18 Dec", "18. dets". */
function dayText(lang: Lang, day: string): string {
  const ms = Date.parse(`${day}T12:00:00Z`);
  if (!Number.isFinite(ms)) return day;
  return new Date(ms).toLocaleDateString(lang === 'et' ? 'et-EE' : 'en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** The preflight line of a kiosk on a check-in list: the list's name, and its window in the site's time. */
export function gatePreflightItem(gate: GateState, t: Translate): PreflightItem {
  const { name, window_start: start, window_end: end } = gate.list;
  const value =
    start === null && end === null
      ? name
      : t('preflight.gateWindow', { list: name, from: start?.slice(0, 16) ?? '\u2026', to: end?.slice(0, 16) ?? '\u2026' });
  return { id: 'gate', label: t('preflight.gate'), ok: true, value };
}
