import type { ScanVerdict } from '../../shared/checkin/decide.ts';
import { formatAge, formatTime, type Lang, type Translate } from './i18n.ts';

export type VerdictTone = 'ok' | 'warn' | 'bad' | 'stale';

export interface VerdictText {
  tone: VerdictTone;
  headline: string;
  detail: string;
  name: string;
}

/** What the door shows for a verdict: colour, a big headline, and one line saying why or who. */
export function verdictText(v: ScanVerdict, t: Translate, lang: Lang, opts: { checkOut?: boolean; now?: number } = {}): VerdictText {
  switch (v.kind) {
    case 'admitted':
      return {
        tone: 'ok', name: v.name, detail: v.ticketTitle ?? '',
        headline: opts.checkOut ? t('verdict.checkedOut') : t('verdict.admitted'),
      };
    case 'already': {
      const time = formatTime(lang, v.checkedInAt, opts.now);
      const device = v.deviceLabel || v.deviceId;
      return {
        tone: 'warn', name: v.name, headline: t('verdict.already'),
        detail: device ? t('verdict.alreadyAt', { time, device }) : t('verdict.alreadyAtUnknown', { time }),
      };
    }
    case 'already_here':
      // Amber, not red: the same guest shown again, not a second entry.
      return { tone: 'warn', name: v.name, headline: t('verdict.alreadyHere'), detail: t('verdict.alreadyHereAgo', { ago: formatAge(t, v.agoMs) }) };
    case 'not_in_list':
      return {
        tone: 'stale', name: '', headline: t('verdict.notInList'),
        detail: v.syncedAgoMs === null ? t('verdict.notInListNever') : t('verdict.notInListAge', { age: formatAge(t, v.syncedAgoMs) }),
      };
    case 'invalid': {
      const detail =
        v.reason === 'order_not_complete' ? t('reason.order_not_complete', { status: v.orderStatus ?? '?' })
        : v.reason === 'refused' ? t('reason.refused', { message: v.message ?? '' })
        : t(`reason.${v.reason}`);
      return { tone: 'bad', name: v.name ?? '', headline: t('verdict.invalid'), detail };
    }
  }
}

/** How long a verdict stays up before the kiosk returns to scanning. */
export function verdictHoldMs(tone: VerdictTone): number {
  return tone === 'ok' ? 1500 : 3500;
}
