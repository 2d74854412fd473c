import { checkinDateMs } from '../../shared/checkin/decide.ts';
import { MAX_CLOCK_SKEW_MS } from '../sync/engine.ts';
import type { DeviceProblem } from '../sync/events.ts';
import { formatAge, formatClock, formatTime, type Lang, type Translate } from './i18n.ts';

/** One line of the preflight panel: what it checks, what it found, and whether that is fine. */
export interface PreflightItem {
  id: 'connection' | 'key' | 'event' | 'gate' | 'sync' | 'cached' | 'pending' | 'skew' | 'camera';
  label: string;
  value: string;
  ok: boolean;
}

export interface PreflightFacts {
  now: number;
  lastSyncAt: number | null;
  ready: boolean;
  cached: number;
  /** The server's count of the event's attendees at the last full download, when known. */
  expected: number | null;
  pending: number;
  clockSkewMs: number | null;
  camera: { state: 'ok'; label: string; width: number; height: number } | { state: 'blocked' } | { state: 'none' };
  /** The sync engine's view of the server: online, and the device problems standing now. */
  online: boolean;
  problems: readonly DeviceProblem[];
  lastError: string | null;
  /** The event's start and end as the server sent them (site time, `Y-m-d H:i:s`), when downloaded. */
  event: { startDate: string | null; endDate: string | null } | null;
}

/** A start within this long counts as "today": the doors open before the show. */
const EVENT_SOON_MS = 24 * 3_600_000;

function connectionItem(f: PreflightFacts, t: Translate): PreflightItem {
  const has = (k: DeviceProblem['kind']) => f.problems.find((p) => p.kind === k);
  const down = has('unreachable') ?? (!f.online ? { message: f.lastError ?? '' } : undefined);
  const value = has('not_doorstep')
    ? t('preflight.connectionNotDoorstep')
    : down
      ? t('preflight.connectionDown', { message: down.message || '?' })
      : t('preflight.connectionOk');
  return { id: 'connection', label: t('preflight.connection'), ok: f.online && !down && !has('not_doorstep'), value };
}

function keyItem(f: PreflightFacts, t: Translate): PreflightItem {
  const revoked = f.problems.some((p) => p.kind === 'revoked');
  const wrong = f.problems.some((p) => p.kind === 'wrong_event');
  // Known good only once the server answered this kiosk (a sync went through).
  const known = f.lastSyncAt !== null && f.online;
  return {
    id: 'key',
    label: t('preflight.key'),
    ok: !revoked && !wrong && known,
    value: revoked ? t('preflight.keyRevoked') : wrong ? t('preflight.keyWrongEvent') : known ? t('preflight.keyOk') : t('preflight.keyUnknown'),
  };
}

/** An event's date as the door reads it: the clock time today, else the day (and the year when not this one). */
function eventDate(lang: Lang, ms: number, now: number): string {
  const d = new Date(ms);
  if (d.toDateString() === new Date(now).toDateString()) return formatTime(lang, d.toISOString(), now);
  const year = d.getFullYear() !== new Date(now).getFullYear();
  return d.toLocaleString(lang === 'et' ? 'et-EE' : 'en-GB', {
    day: 'numeric',
    month: 'short',
    ...(year ? { year: 'numeric' } : {}),
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** When the event runs, against today: a start days away while guests are scanned now is worth a look. */
function eventItem(f: PreflightFacts, t: Translate, lang: Lang): PreflightItem {
  const start = checkinDateMs(f.event?.startDate);
  const end = checkinDateMs(f.event?.endDate);
  const label = t('preflight.event');
  if (start === null) return { id: 'event', label, ok: false, value: t('preflight.eventUnknown') };
  const date = eventDate(lang, start, f.now);
  if (end !== null && f.now > end) {
    return {
      id: 'event',
      label,
      ok: false,
      value: t('preflight.eventEnded', { date: eventDate(lang, end, f.now), age: formatAge(t, f.now - end) }),
    };
  }
  if (start <= f.now) return { id: 'event', label, ok: true, value: t('preflight.eventOn', { date }) };
  const age = formatAge(t, start - f.now);
  return start - f.now > EVENT_SOON_MS
    ? { id: 'event', label, ok: false, value: t('preflight.eventFuture', { date, age }) }
    : { id: 'event', label, ok: true, value: t('preflight.eventStarts', { date, age }) };
}

/** The preflight checks as door staff read them, before the doors open. */
export function preflightItems(f: PreflightFacts, t: Translate, lang: Lang): PreflightItem[] {
  const skew = f.clockSkewMs;
  const expected = f.expected ?? (f.ready ? f.cached : null);
  return [
    connectionItem(f, t),
    keyItem(f, t),
    eventItem(f, t, lang),
    {
      id: 'sync',
      label: t('preflight.lastSync'),
      ok: f.lastSyncAt !== null,
      value:
        f.lastSyncAt === null
          ? t('preflight.never')
          : t('preflight.lastSyncAt', { time: formatClock(lang, f.lastSyncAt), age: formatAge(t, f.now - f.lastSyncAt) }),
    },
    {
      id: 'cached',
      label: t('preflight.cached'),
      ok: f.ready && (expected === null || f.cached >= expected),
      value:
        f.ready && expected !== null ? t('preflight.cachedOf', { n: f.cached, total: expected }) : t('preflight.cachedIncomplete', { n: f.cached }),
    },
    { id: 'pending', label: t('preflight.pending'), ok: true, value: String(f.pending) },
    {
      id: 'skew',
      label: t('preflight.skew'),
      ok: skew !== null && Math.abs(skew) <= MAX_CLOCK_SKEW_MS,
      value:
        skew === null
          ? t('preflight.skewUnknown')
          : Math.abs(skew) > MAX_CLOCK_SKEW_MS
            ? t('preflight.skewBad', { skew: formatAge(t, Math.abs(skew)) })
            : t('preflight.skewOk', { skew: formatAge(t, Math.abs(skew)) }),
    },
    {
      id: 'camera',
      label: t('preflight.camera'),
      ok: f.camera.state === 'ok',
      value:
        f.camera.state === 'ok'
          ? t('preflight.cameraOk', { label: f.camera.label, w: f.camera.width, h: f.camera.height })
          : f.camera.state === 'blocked'
            ? t('preflight.cameraBlocked')
            : t('preflight.cameraNone'),
    },
  ];
}
