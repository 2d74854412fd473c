import { MAX_CLOCK_SKEW_MS } from '../sync/engine.ts';
import { formatAge, formatClock, type Lang, type Translate } from './i18n.ts';

/** One line of the preflight panel: what it checks, what it found, and whether that is fine. */
export interface PreflightItem {
  id: 'sync' | 'cached' | 'pending' | 'skew' | 'camera';
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
}

/** The preflight checks as door staff read them, before the doors open. */
export function preflightItems(f: PreflightFacts, t: Translate, lang: Lang): PreflightItem[] {
  const skew = f.clockSkewMs;
  const expected = f.expected ?? (f.ready ? f.cached : null);
  return [
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
