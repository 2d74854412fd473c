import { PairingPayload } from '../../shared/checkin/pairing.ts';
import type { KioskContext } from './context.ts';
import { byId } from './dom.ts';

/** The manual pairing form, and the download progress bar shown after pairing. */
export class PairingView {
  private readonly root = byId('pairing-view');
  private readonly error = byId('pair-error');

  constructor(
    private readonly ctx: KioskContext,
    onPair: (payload: PairingPayload) => Promise<void>,
  ) {
    byId<HTMLFormElement>('pair-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const parsed = PairingPayload.safeParse({
        url: byId<HTMLInputElement>('pair-url').value,
        api_key: byId<HTMLInputElement>('pair-key').value,
        event_id: byId<HTMLInputElement>('pair-event').value,
      });
      if (!parsed.success) return this.showError(ctx.t('pair.invalid'));
      void onPair(parsed.data);
    });
    ctx.engine.events.on((e) => {
      if (e.type === 'progress' && e.phase === 'full') this.progress(e.loaded, e.total);
      if (e.type === 'status' && !e.status.running) byId('progress').hidden = true;
    });
  }

  get visible(): boolean {
    return !this.root.hidden;
  }

  show(visible: boolean): void {
    this.root.hidden = !visible;
    this.error.hidden = true;
    const current = this.ctx.settings.current;
    if (visible && current) {
      byId<HTMLInputElement>('pair-url').value = current.url;
      byId<HTMLInputElement>('pair-event').value = String(current.event_id);
    }
  }

  showError(message: string): void {
    this.error.textContent = message;
    this.error.hidden = false;
  }

  private progress(loaded: number, total: number): void {
    byId('progress').hidden = false;
    byId('progress-bar').style.transform = `scaleX(${total ? Math.min(1, loaded / total) : 1})`;
    byId('progress-text').textContent = this.ctx.t('pair.downloading', { loaded, total });
  }
}
