import { loadGate } from '../checkin/gate.ts';
import { gatePreflightItem } from './gate-text.ts';
import { decideScan } from '../../shared/checkin/decide.ts';
import { parseTicketCode } from '../../shared/checkin/ticket-code.ts';
import { createDeduper } from '../scanner/dedupe.ts';
import { countAttendees, getAttendee, toSubject } from '../store/attendees.ts';
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
  /**
   * The scanner test's own "one code is one scan" window, begun anew each time the panel opens: the door's
   * window would hide a code read at the door in the last 3 s (the ticket just scanned, or one still held in
   * front of the camera, whose every sighting moves that window), and the test would seem to read nothing.
   */
  private seen = createDeduper();

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
      this.seen = createDeduper();
      byId('preflight-scan').textContent = '';
      byId('preflight-scan').hidden = true;
      void this.render();
      this.timer = setInterval(() => void this.render(), 1000);
      byId('preflight-close').focus();
    }
  }

  /** Whether a code read while the panel is open is a new read for the scanner test (not one held in view). */
  accept(text: string): boolean {
    return this.seen(text);
  }

  /**
   * The scanner test: a code read while the panel is open, and what it is for this event (decided from the
   * list as a scan would be, recording nothing). A pairing code carries a key: its text is never shown.
   */
  async showCode(text: string, source: 'camera' | 'scanner', pairing: boolean): Promise<void> {
    const { t } = this.ctx;
    const what = pairing ? t('preflight.isPairing') : await this.describe(text);
    const out = byId('preflight-scan');
    out.hidden = false;
    out.replaceChildren(
      el('span', t('preflight.scanned', { source: t(`preflight.source.${source}`), text: what }), 'pf-scan-verdict'),
      ...(pairing ? [] : [el('small', text.length > 300 ? `${text.slice(0, 300)}…` : text, 'pf-scan-raw')]),
    );
    out.dataset.source = source;
  }

  private async describe(text: string): Promise<string> {
    const { t, db, engine, deviceId, settings } = this.ctx;
    const code = parseTicketCode(text);
    const local = code && settings.current ? await getAttendee(db, code.attendeeId) : undefined;
    const verdict = decideScan(code, local ? toSubject(local) : undefined, {
      eventId: settings.current?.event_id ?? -1,
      now: Date.now(),
      lastSyncAt: engine.status.lastSyncAt,
      deviceId,
    });
    switch (verdict.kind) {
      case 'admitted':
        return t('preflight.isValid', { name: verdict.name });
      case 'already':
      case 'already_here':
        return t('preflight.isAlready', { name: verdict.name });
      case 'not_in_list':
        return t('preflight.isNotInList');
      case 'invalid':
        return t('preflight.isInvalid', {
          reason: verdict.reason === 'order_not_complete' ? t('reason.order_not_complete_short') : t(`reason.${verdict.reason}`),
        });
    }
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
        online: s.online,
        problems: s.problems,
        lastError: s.lastError,
        event: (await db.event.toCollection().first()) ?? null,
      },
      t,
      lang,
    );
    const gate = this.ctx.settings.current ? await loadGate(db) : null;
    if (gate) items.splice(items.findIndex((i) => i.id === 'event') + 1, 0, gatePreflightItem(gate, t));
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
