import type { ScanVerdict } from '../../shared/checkin/decide.ts';
import { orderAllowsCheckin } from '../../shared/checkin/order-status.ts';
import { CHECKIN_ERRORS } from '../../shared/checkin/wire.ts';
import type { GateState } from '../checkin/gate.ts';
import { gateVerdictText } from './gate-text.ts';
import { formatAge, formatTime, orderStatusText, refusalText, type Lang, type Translate } from './i18n.ts';

/** `out`: a check-out, in its own colour (never WELCOME green). */
export type VerdictTone = 'ok' | 'warn' | 'bad' | 'stale' | 'out';

/**
 * A symbol in a shape beside every colour, so no verdict depends on colour alone (red-green colour blindness):
 * a check in a circle (welcome), a cross in an octagon (not valid), an exclamation in a triangle (look again),
 * a question mark in a diamond (not in the list), an arrow out of a square (checked out).
 */
export const TONE_ICON: Record<VerdictTone, { glyph: string; shape: 'circle' | 'octagon' | 'triangle' | 'diamond' | 'square' }> = {
  ok: { glyph: '\u2713', shape: 'circle' },
  bad: { glyph: '\u2715', shape: 'octagon' },
  warn: { glyph: '!', shape: 'triangle' },
  stale: { glyph: '?', shape: 'diamond' },
  out: { glyph: '\u2192', shape: 'square' },
};

export interface VerdictText {
  tone: VerdictTone;
  headline: string;
  detail: string;
  name: string;
}

export interface VerdictTextOptions {
  checkOut?: boolean;
  now?: number;
  /** The ticket's title in the kiosk's language (the cache holds it in the pairing URL's language). */
  ticketTitle?: (title: string) => string;
  /** A device's name (its door key's label) instead of its ID; `null` when unknown. */
  deviceName?: (deviceId: string) => string | null;
  /** The kiosk's check-in list, when its key is bound to one: its refusals are worded with its name and window. */
  gate?: GateState | null;
}

/** Another door's name as the door reads it: its key's label, else "another door", never a hex ID. */
export function doorName(
  t: Translate,
  label: string | null | undefined,
  deviceId: string | null | undefined,
  opts: VerdictTextOptions = {},
): string | null {
  if (label) return label;
  if (!deviceId) return null;
  return opts.deviceName?.(deviceId) ?? t('device.otherDoor');
}

/** What the door shows for a verdict: colour and shape, a big headline, and one line saying why or who. */
export function verdictText(v: ScanVerdict, t: Translate, lang: Lang, opts: VerdictTextOptions = {}): VerdictText {
  const title = (s: string | null) => (s ? (opts.ticketTitle?.(s) ?? s) : '');
  const gated = opts.gate ? gateVerdictText(v, t, lang, opts.gate, opts.now) : null;
  if (gated) return gated;
  switch (v.kind) {
    case 'admitted':
      return opts.checkOut
        ? { tone: 'out', name: v.name, detail: title(v.ticketTitle), headline: t('verdict.checkedOut') }
        : { tone: 'ok', name: v.name, detail: title(v.ticketTitle), headline: t('verdict.admitted') };
    case 'already': {
      const time = formatTime(lang, v.checkedInAt, opts.now);
      const device = doorName(t, v.deviceLabel, v.deviceId, opts);
      return {
        tone: 'warn',
        name: v.name,
        headline: t('verdict.already'),
        detail: device ? t('verdict.alreadyAt', { time, device }) : t('verdict.alreadyAtUnknown', { time }),
      };
    }
    case 'already_here':
      // Amber, not red: the same guest shown again, not a second entry.
      return { tone: 'warn', name: v.name, headline: t('verdict.alreadyHere'), detail: t('verdict.alreadyHereAgo', { ago: formatAge(t, v.agoMs) }) };
    case 'not_in_list':
      return {
        tone: 'stale',
        name: '',
        headline: t('verdict.notInList'),
        detail: v.syncedAgoMs === null ? t('verdict.notInListNever') : t('verdict.notInListAge', { age: formatAge(t, v.syncedAgoMs) }),
      };
    case 'invalid': {
      const detail =
        // The server refused an order the cache still had as paid: its status here is stale, so none is shown.
        v.reason === 'order_not_complete' && orderAllowsCheckin(v.orderStatus)
          ? refusalText(t, CHECKIN_ERRORS.orderNotComplete)
          : v.reason === 'order_not_complete'
            ? t('reason.order_not_complete', { status: orderStatusText(t, v.orderStatus) })
            : v.reason === 'refused'
              ? refusalText(t, v.code)
              : t(`reason.${v.reason}`);
      return { tone: 'bad', name: v.name ?? '', headline: t('verdict.invalid'), detail };
    }
  }
}

/** How long a verdict stays up before the kiosk returns to scanning. */
export function verdictHoldMs(tone: VerdictTone): number {
  return tone === 'ok' || tone === 'out' ? 1500 : 3500;
}
