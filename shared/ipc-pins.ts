import type { PairingPayload } from './checkin/pairing.ts';
import type { DoorstepApi, ServerPin } from './ipc.ts';

/**
 * The renderer's side of certificate pinning in the Electron shell (electron/cert-pinning.ts). The shell must
 * know a door server's fingerprint before the kiosk first connects to it: the current pairing's at start-up
 * and whenever it changes, and a candidate's while staff are asked about it (the question reads the event from
 * the candidate server). A pairing without a fingerprint, or over plain http, pins nothing.
 */
export function pinsFor(payloads: ReadonlyArray<PairingPayload | null | undefined>): ServerPin[] {
  const pins: ServerPin[] = [];
  for (const payload of payloads) {
    if (!payload?.fingerprint || !/^https:\/\//i.test(payload.url)) continue;
    if (pins.some((p) => p.url === payload.url && p.fingerprint === payload.fingerprint)) continue;
    pins.push({ url: payload.url, fingerprint: payload.fingerprint });
  }
  return pins;
}

export class ShellPins {
  private question = 0;

  constructor(
    private readonly shell: Pick<DoorstepApi, 'setServerPins'> | null,
    private readonly current: () => PairingPayload | null,
  ) {}

  /** The shell pins exactly these pairings (an empty list unpins). A plain browser has no shell: nothing to do. */
  async apply(...payloads: Array<PairingPayload | null | undefined>): Promise<void> {
    if (!this.shell) return;
    try {
      await this.shell.setServerPins({ pins: pinsFor(payloads) });
    } catch (err) {
      // The kiosk keeps working; a pinned server that cannot be reached shows as a device problem.
      console.warn('the shell did not take the server pins', err);
    }
  }

  /** Before a pairing question: the current pairing and the candidate. Returns a token for {@link settle}. */
  async candidate(next: PairingPayload): Promise<number> {
    const token = ++this.question;
    await this.apply(this.current(), next);
    return token;
  }

  /** After the question, answered or not: only the (possibly new) current pairing, unless a newer question is open. */
  async settle(token: number): Promise<void> {
    if (token === this.question) await this.apply(this.current());
  }
}
