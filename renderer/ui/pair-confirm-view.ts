import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import type { EventView, PairingAnswer, PairingPlan, ServerView } from '../sync/pairing.ts';
import type { KioskContext } from './context.ts';
import { byId, el } from './dom.ts';
import { hasPin, validPin } from './pin.ts';

/**
 * The question before any pairing: which server (large, with http flagged), which event (as that server
 * names it, or only its ID), what it replaces, and what happens to queued check-ins. Cancel is the default
 * button; the key itself is never shown.
 */
export class PairConfirmView {
  private readonly root = byId('pair-confirm');
  private readonly ok = byId<HTMLButtonElement>('pc-ok');
  private readonly cancel = byId<HTMLButtonElement>('pc-cancel');
  private readonly upload = byId<HTMLButtonElement>('pc-upload');
  private readonly pin1 = byId<HTMLInputElement>('pc-pin-1');
  private readonly pin2 = byId<HTMLInputElement>('pc-pin-2');
  private answer: ((a: PairingAnswer) => void) | null = null;
  /** The question asks for a supervisor PIN (a first pairing, another server or event, or none set yet). */
  private needPin = false;
  /** The PIN staff set with the confirmation, handed over once the pairing is stored. */
  private chosenPin: string | null = null;
  /** The server could not be reached: the main button asks it again instead of pairing. */
  private retrying = false;

  constructor(
    private readonly ctx: KioskContext,
    private readonly onDismiss: () => void,
  ) {
    this.ok.addEventListener('click', () => {
      if (this.retrying) this.settle('retry');
      else if (this.pinReady()) this.settle('confirm');
    });
    for (const input of [this.pin1, this.pin2]) {
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          if (input === this.pin1) this.pin2.focus();
          else if (!this.ok.disabled && this.pinReady()) this.settle('confirm');
        }
      });
    }
    this.cancel.addEventListener('click', () => this.settle('cancel'));
    this.upload.addEventListener('click', () => this.settle('upload'));
    this.root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.settle('cancel');
    });
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  /** The target is known and its event is being read: show the server at once, nothing to confirm yet. */
  checking(server: ServerView, next: PairingPayload): void {
    this.drop();
    const { t } = this.ctx;
    this.retrying = false;
    this.root.dataset.state = 'checking';
    byId('pc-title').textContent = t('confirm.titleChecking');
    this.renderServer(server);
    this.renderEvent({ id: next.event_id, title: null, startDate: null, problem: null }, true);
    for (const id of ['pc-replaces', 'pc-queue', 'pc-advice']) byId(id).hidden = true;
    this.renderPin('none');
    this.upload.hidden = true;
    this.ok.disabled = true;
    this.ok.textContent = t('button.confirmPair', { host: server.host });
    this.show();
  }

  async ask(plan: PairingPlan): Promise<PairingAnswer> {
    this.drop();
    const { t } = this.ctx;
    // The PIN cannot be skipped: a new pairing sets it; the same server and event keeps the one there is.
    const pinSet = await hasPin(this.ctx.db);
    // A server that could not be asked is not offered for pairing: staff check the address and try again.
    const unreachable = !plan.refused && plan.event.problem?.kind === 'network';
    this.needPin = !plan.refused && !plan.blocked && !unreachable && (plan.kind !== 'same' || !pinSet);
    this.chosenPin = null;
    this.renderPin(plan.refused || plan.blocked || unreachable ? 'none' : this.needPin ? 'set' : 'kept');
    this.root.dataset.state = plan.refused ? 'refused' : plan.blocked ? 'blocked' : unreachable ? 'unreachable' : 'ask';
    this.retrying = unreachable;
    this.root.dataset.kind = plan.kind;
    byId('pc-title').textContent = t(
      plan.kind === 'first' ? 'confirm.titleFirst' : plan.kind === 'same' ? 'confirm.titleSame' : 'confirm.titleReplace',
    );
    this.renderServer(plan.server);
    this.renderEvent(plan.event, false);

    const replaces = byId('pc-replaces');
    replaces.replaceChildren();
    replaces.hidden = plan.current === null;
    if (plan.current) {
      const current = `${plan.current.server.host} / ${this.eventName(plan.current.event)}`;
      replaces.append(line(t(plan.kind === 'same' ? 'confirm.keeps' : 'confirm.replaces', { current }), plan.kind === 'replace'));
      if (plan.kind === 'replace' && plan.current.server.origin !== plan.server.origin) {
        replaces.append(line(t('confirm.otherServer', { next: plan.server.host, current: plan.current.server.host }), true));
      }
    }

    const queue = byId('pc-queue');
    queue.replaceChildren();
    queue.className = `pc-queue ${plan.blocked ? 'blocked' : ''}`;
    queue.hidden = plan.current === null;
    queue.dataset.pending = String(plan.pending);
    if (plan.current) {
      const server = plan.current.server.host;
      if (plan.blocked) {
        queue.append(line(t('confirm.blocked', { n: plan.pending, server }), true));
        const error = this.ctx.engine.status.lastError;
        if (error) queue.append(line(t('confirm.lastError', { message: error })));
      } else if (plan.kind === 'same') {
        queue.append(line(t('confirm.sameKeeps', { n: plan.pending, server })));
      } else {
        queue.append(line(t('confirm.allUploaded', { server })));
      }
    }

    byId('pc-advice').hidden = false;
    byId('pc-advice').textContent = t('confirm.advice');
    this.upload.hidden = !plan.blocked;
    this.upload.disabled = false;
    this.upload.textContent = t('button.upload');
    this.ok.disabled = plan.blocked || plan.refused;
    this.ok.textContent = unreachable ? t('button.retry') : t('button.confirmPair', { host: plan.server.host });
    if (unreachable) byId('pc-advice').hidden = true;
    if (plan.refused) {
      // Refused with the reason (the event note says which); only Close is offered.
      this.upload.hidden = true;
      byId('pc-advice').textContent = t('confirm.refusedAdvice');
    }
    this.show();
    // Refused: only Close is offered (show() brings the confirm button back for ordinary questions).
    this.ok.hidden = plan.refused;
    if (plan.refused) this.cancel.textContent = t('button.close');
    return new Promise((resolve) => {
      this.answer = resolve;
    });
  }

  /** A pairing code that failed validation: say so, show nothing of it, change nothing. */
  invalid(): void {
    this.drop();
    const { t } = this.ctx;
    this.root.dataset.state = 'invalid';
    byId('pc-title').textContent = t('pair.invalid');
    for (const id of ['pc-server-row', 'pc-event-row', 'pc-replaces', 'pc-queue']) byId(id).hidden = true;
    this.renderPin('none');
    byId('pc-advice').hidden = false;
    byId('pc-advice').textContent = t('confirm.invalidKept');
    this.upload.hidden = true;
    this.ok.hidden = true;
    this.root.hidden = false;
    this.cancel.textContent = t('button.close');
    this.cancel.focus();
  }

  close(): void {
    this.drop();
    this.root.hidden = true;
  }

  /** The supervisor PIN chosen with the last confirmed pairing (once), or `null` when it keeps the old one. */
  takePin(): string | null {
    const pin = this.chosenPin;
    this.chosenPin = null;
    return pin;
  }

  private renderPin(mode: 'set' | 'kept' | 'none'): void {
    byId('pc-pin').hidden = mode !== 'set';
    byId('pc-pin-kept').hidden = mode !== 'kept';
    byId('pc-pin-error').hidden = true;
    this.pin1.value = this.pin2.value = '';
    this.root.dataset.pin = mode;
  }

  /** With a PIN to set: both fields valid and equal (else the reason is shown and nothing is confirmed). */
  private pinReady(): boolean {
    if (!this.needPin) return true;
    const { t } = this.ctx;
    const error = byId('pc-pin-error');
    const pin = this.pin1.value.trim();
    const problem = !validPin(pin) ? t('pin.invalid') : pin !== this.pin2.value.trim() ? t('pin.mismatch') : null;
    error.hidden = problem === null;
    error.textContent = problem ?? '';
    if (problem) {
      (validPin(pin) ? this.pin2 : this.pin1).focus();
      return false;
    }
    this.chosenPin = pin;
    return true;
  }

  /** An unanswered question that a newer one replaces is answered Cancel. */
  private drop(): void {
    const resolve = this.answer;
    this.answer = null;
    resolve?.('cancel');
  }

  private show(): void {
    byId('pc-server-row').hidden = false;
    byId('pc-event-row').hidden = false;
    this.ok.hidden = false;
    this.cancel.textContent = this.ctx.t('button.cancel');
    this.root.hidden = false;
    // Cancel is the default: a stray Enter must not pair.
    this.cancel.focus();
  }

  /** Resolves the open question; Cancel with no question open (still checking) drops the request. */
  private settle(answer: PairingAnswer): void {
    const resolve = this.answer;
    this.answer = null;
    if (answer === 'upload') {
      this.ok.disabled = this.upload.disabled = true;
      this.upload.textContent = this.ctx.t('confirm.uploading');
    } else {
      this.root.hidden = true;
    }
    if (resolve) resolve(answer);
    else if (answer === 'cancel') this.onDismiss();
  }

  private renderServer(server: ServerView): void {
    const { t } = this.ctx;
    byId('pc-server').textContent = server.host;
    byId('pc-server-url').textContent = server.url;
    const scheme = byId('pc-scheme');
    scheme.textContent = server.secure ? t('confirm.https') : t('confirm.http');
    scheme.className = `pc-scheme ${server.secure ? 'secure' : 'plain'}`;
    const flag = byId('pc-server-flag');
    flag.hidden = !server.insecureRemote;
    flag.textContent = server.insecureRemote ? t('confirm.insecureRemote') : '';
    this.root.dataset.insecure = String(server.insecureRemote);
  }

  private renderEvent(event: EventView, checking: boolean): void {
    const { t } = this.ctx;
    byId('pc-event').textContent = this.eventName(event);
    const note = byId('pc-event-note');
    const parts: string[] = [];
    if (event.title && event.startDate) parts.push(t('confirm.starts', { date: event.startDate.slice(0, 16) }));
    if (event.title) parts.push(t('confirm.eventId', { id: event.id }));
    if (checking) parts.push(t('confirm.checking'));
    else if (event.problem) {
      const p = event.problem;
      parts.push(
        p.kind === 'refused'
          ? t('confirm.eventRefused', { message: p.message })
          : p.kind === 'not-found'
            ? t('confirm.eventNotFound', { id: event.id })
            : p.kind === 'bad-answer'
              ? t('confirm.eventBadAnswer', { message: p.message })
              : p.kind === 'wrong-event'
                ? t('confirm.eventWrongEvent', { id: event.id })
                : p.kind === 'not-doorstep'
                  ? t('confirm.notDoorstep')
                  : t('confirm.eventUnreachableNoPair', { message: p.message }),
      );
    }
    note.textContent = parts.join(' · ');
    note.className = `pc-note ${event.problem && !checking ? 'problem' : ''}`;
  }

  private eventName(event: EventView): string {
    return event.title ?? this.ctx.t('confirm.eventId', { id: event.id });
  }
}

function line(text: string, strong = false): HTMLParagraphElement {
  return el('p', text, strong ? 'strong' : '');
}
