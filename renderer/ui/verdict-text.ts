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
      return {
        tone: 'warn', name: v.name, headline: t('verdict.already'),
        detail: v.deviceId ? t('verdict.alreadyAt', { time, device: v.deviceId }) : t('verdict.alreadyAtUnknown', { time }),
      };
    }
    case 'stale':
      return {
        tone: 'stale', name: '', headline: t('verdict.stale'),
        detail: v.cacheAgeMs === null ? t('verdict.staleNever') : t('verdict.staleAge', { age: formatAge(t, v.cacheAgeMs) }),
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
