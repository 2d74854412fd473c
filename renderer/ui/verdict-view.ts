import type { ScanResult } from '../checkin/checkin-service.ts';
import { byId } from './dom.ts';
import type { Lang, Translate } from './i18n.ts';
import type { VerdictSound } from './sound.ts';
import { TONE_ICON, verdictHoldMs, verdictText, type VerdictTextOptions } from './verdict-text.ts';

/**
 * The full-screen verdict: colour, a symbol in a shape, headline, name, why; it goes back to scanning by
 * itself (or on tap).
 */
export class VerdictView {
  private readonly root = byId('verdict');
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly sound: VerdictSound) {
    this.root.addEventListener('click', () => this.hide());
  }

  /** Shows a verdict; `frameAt` (ms, performance clock) marks when the camera frame with the code arrived. */
  show(result: ScanResult, t: Translate, lang: Lang, opts: VerdictTextOptions & { frameAt?: number } = {}): void {
    const text = verdictText(result.verdict, t, lang, opts);
    const icon = TONE_ICON[text.tone];
    this.root.className = `verdict ${text.tone}`;
    this.root.dataset.verdict = result.verdict.kind;
    this.root.dataset.tone = text.tone;
    this.root.dataset.reason = result.verdict.kind === 'invalid' ? result.verdict.reason : '';
    this.root.dataset.mode = result.mode;
    const iconEl = byId('verdict-icon');
    iconEl.textContent = icon.glyph;
    iconEl.className = `verdict-icon shape-${icon.shape}`;
    byId('verdict-headline').textContent = text.headline;
    byId('verdict-name').textContent = text.name;
    byId('verdict-detail').textContent = text.detail;
    // "Decided offline" matters where the server might disagree: an admission or an "already".
    const offlineMatters = result.mode === 'offline' && (result.verdict.kind === 'admitted' || result.verdict.kind === 'already');
    byId('verdict-mode').textContent = offlineMatters ? t('verdict.offline') : '';
    this.root.hidden = false;
    if (opts.frameAt !== undefined) {
      // Scan-to-verdict, read by the benchmark: from the frame with the code to the verdict on screen.
      performance.measure('scan-to-verdict', { start: opts.frameAt, end: performance.now() });
    }
    this.sound.play(text.tone);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.hide(), verdictHoldMs(text.tone));
  }

  hide(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.root.hidden = true;
  }
}
