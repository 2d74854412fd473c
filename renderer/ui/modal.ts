import type { KioskDb } from '../store/db.ts';
import type { KioskContext } from './context.ts';
import { byId } from './dom.ts';
import { formatAge } from './i18n.ts';
import { checkPin, hasPin, pinLockedUntil } from './pin.ts';

/**
 * One modal box for the door's questions: "Check out Mari Tamm?", "Unpair this kiosk?", and the supervisor
 * PIN before the staff tools. Cancel is the default (a stray Enter or a wedge scan's Enter does nothing
 * harmful); Escape cancels. Scans go on underneath: a verdict shows above it.
 */
export class Modal {
  private readonly root = byId('modal');
  private readonly ok = byId<HTMLButtonElement>('modal-ok');
  private readonly cancel = byId<HTMLButtonElement>('modal-cancel');
  private readonly pinForm = byId<HTMLFormElement>('pin-form');
  private readonly pinInput = byId<HTMLInputElement>('pin-input');
  private readonly message = byId('modal-message');
  private answer: ((ok: boolean) => void) | null = null;
  private lockTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly ctx: KioskContext) {
    this.ok.addEventListener('click', () => this.onOk?.());
    this.cancel.addEventListener('click', () => this.settle(false));
    this.pinForm.addEventListener('submit', (e) => {
      e.preventDefault();
      this.onOk?.();
    });
    this.root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.settle(false);
    });
  }

  private onOk: (() => void) | null = null;

  get open(): boolean {
    return !this.root.hidden;
  }

  /** Asks a yes/no question; `true` only when staff press the confirming button. */
  confirm(kind: string, title: string, body: string, okText: string): Promise<boolean> {
    this.begin(kind, title, body);
    this.pinForm.hidden = true;
    this.ok.hidden = false;
    this.ok.disabled = false;
    this.ok.textContent = okText;
    this.onOk = () => this.settle(true);
    return this.show(this.cancel);
  }

  /**
   * Asks for the supervisor PIN; `true` once the right one is typed. Wrong ones are counted (5 lock the pad
   * for 60 s and longer); with no PIN set, it says how to set one and offers only Close.
   */
  async askPin(): Promise<boolean> {
    const { t, db } = this.ctx;
    this.begin('pin', t('pin.title'), t('pin.prompt'));
    this.pinInput.value = '';
    this.ok.textContent = t('button.unlock');
    this.ok.disabled = false;
    if (!(await hasPin(db))) {
      byId('modal-body').textContent = t('pin.unset');
      this.pinForm.hidden = true;
      this.ok.hidden = true;
      this.cancel.textContent = t('button.close');
      this.root.dataset.state = 'unset';
      return this.show(this.cancel);
    }
    this.pinForm.hidden = false;
    this.ok.hidden = false;
    this.onOk = () => void this.submitPin(db);
    const shown = this.show(this.pinInput);
    await this.showLock(await pinLockedUntil(db));
    return shown;
  }

  private async submitPin(db: KioskDb): Promise<void> {
    const { t } = this.ctx;
    if (this.ok.disabled) return;
    this.ok.disabled = true;
    this.message.textContent = t('pin.checking');
    const result = await checkPin(db, this.pinInput.value);
    this.pinInput.value = '';
    this.ok.disabled = false;
    if (result.ok) return this.settle(true);
    this.root.dataset.state = result.reason;
    if (result.reason === 'wrong') {
      this.message.textContent = t('pin.wrong', { n: result.left });
      this.pinInput.focus();
    } else if (result.reason === 'locked') {
      await this.showLock(result.until);
    }
  }

  /** While locked: the pad is disabled and a countdown shows; it comes back by itself. */
  private async showLock(until: number | null): Promise<void> {
    if (this.lockTimer) clearInterval(this.lockTimer);
    this.lockTimer = null;
    if (until === null) {
      this.pinInput.disabled = false;
      return;
    }
    const { t } = this.ctx;
    this.root.dataset.state = 'locked';
    const tick = () => {
      const left = until - Date.now();
      if (left <= 0) {
        if (this.lockTimer) clearInterval(this.lockTimer);
        this.lockTimer = null;
        this.pinInput.disabled = this.ok.disabled = false;
        this.message.textContent = '';
        this.root.dataset.state = 'ask';
        this.pinInput.focus();
        return;
      }
      this.pinInput.disabled = this.ok.disabled = true;
      this.message.textContent = t('pin.locked', { age: formatAge(t, left + 999) });
    };
    tick();
    this.lockTimer = setInterval(tick, 1000);
  }

  close(): void {
    this.settle(false);
  }

  private begin(kind: string, title: string, body: string): void {
    this.settle(false);
    this.root.dataset.kind = kind;
    this.root.dataset.state = 'ask';
    byId('modal-title').textContent = title;
    byId('modal-body').textContent = body;
    this.message.textContent = '';
    this.cancel.textContent = this.ctx.t('button.cancel');
    this.pinInput.disabled = false;
  }

  private show(focus: HTMLElement): Promise<boolean> {
    this.root.hidden = false;
    focus.focus();
    return new Promise((resolve) => {
      this.answer = resolve;
    });
  }

  private settle(ok: boolean): void {
    if (this.lockTimer) clearInterval(this.lockTimer);
    this.lockTimer = null;
    const resolve = this.answer;
    this.answer = null;
    this.onOk = null;
    this.root.hidden = true;
    this.pinInput.value = '';
    resolve?.(ok);
  }
}
