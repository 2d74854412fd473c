import { countAttendees } from '../store/attendees.ts';
import type { KioskContext } from './context.ts';
import { byId, el } from './dom.ts';
import { preflightItems, type PreflightFacts } from './preflight-text.ts';

/**
 * "Ready for doors?": the last sync and its age, attendees cached of expected, uploads waiting, the clock
 * against the server's `Date`, the camera, and a scanner test. While it is open, codes from the camera or the
 * barcode scanner are shown as read and nothing is checked in.
 */
export class PreflightView {
  private readonly root = byId('preflight');
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The server's attendee count from the last full download seen in this session. */
  private expected: number | null = null;

  constructor(
    private readonly ctx: KioskContext,
    private readonly camera: () => PreflightFacts['camera'],
  ) {
    byId('preflight-close').addEventListener('click', () => this.toggle(false));
    ctx.engine.events.on((e) => {
      if (e.type === 'progress' && e.phase === 'full') this.expected = e.total;
    });
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  toggle(show = this.root.hidden): void {
    this.root.hidden = !show;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (show) {
      byId('preflight-scan').textContent = '';
      byId('preflight-scan').hidden = true;
      void this.render();
      this.timer = setInterval(() => void this.render(), 1000);
      byId('preflight-close').focus();
    }
  }

  /** The scanner test: a code read while the panel is open. */
  showCode(text: string, source: 'camera' | 'scanner'): void {
    const { t } = this.ctx;
    const out = byId('preflight-scan');
    out.hidden = false;
    out.textContent = t('preflight.scanned', { source: t(`preflight.source.${source}`), text: text.length > 300 ? `${text.slice(0, 300)}…` : text });
    out.dataset.source = source;
  }

  async render(): Promise<void> {
    const { t, lang, engine, db, deviceId } = this.ctx;
    const s = engine.status;
    const counts = await countAttendees(db, deviceId, Date.now());
    const items = preflightItems(
      {
        now: Date.now(),
        lastSyncAt: s.lastSyncAt,
        ready: s.ready,
        cached: counts.total,
        expected: this.expected,
        pending: s.pending,
        clockSkewMs: s.clockSkewMs,
        camera: this.camera(),
      },
      t,
      lang,
    );
    byId('preflight-list').replaceChildren(
      ...items.map((item) => {
        const row = el('div', '', `pf-row ${item.ok ? 'ok' : 'warn'}`);
        row.dataset.check = item.id;
        row.dataset.ok = String(item.ok);
        row.append(
          el('span', item.ok ? '\u2713' : '!', `pf-icon shape-${item.ok ? 'circle' : 'triangle'}`),
          el('span', item.label, 'pf-label'),
          el('span', item.value, 'pf-value'),
        );
        return row;
      }),
    );
    const allOk = items.every((i) => i.ok);
    const summary = byId('preflight-summary');
    summary.textContent = allOk ? t('preflight.allGood') : t('preflight.attention');
    summary.className = `pf-summary ${allOk ? 'ok' : 'warn'}`;
    this.root.dataset.ready = String(allOk);
  }
}
