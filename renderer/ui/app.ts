import { readPairing, type PairingPayload } from '../../shared/checkin/pairing.ts';
import type { ShellPins } from '../../shared/ipc-pins.ts';
import { Camera } from '../scanner/camera.ts';
import { createDeduper } from '../scanner/dedupe.ts';
import { createWedge } from '../scanner/wedge.ts';
import { putLanguage } from '../store/meta.ts';
import { loadScanMemory } from '../store/scan-memory.ts';
import { PairingFlow, unpair, type EventView } from '../sync/pairing.ts';
import { CameraBlockedPanel, cameraBlockedBy } from './camera-blocked.ts';
import { setLanguage, type KioskContext } from './context.ts';
import { byId, el } from './dom.ts';
import { DoorView } from './door-view.ts';
import { Modal } from './modal.ts';
import { DoorNames } from './names.ts';
import { hasPin, setPin } from './pin.ts';
import { PreflightView } from './preflight-view.ts';
import type { PreflightFacts } from './preflight-text.ts';
import type { VerdictTextOptions } from './verdict-text.ts';
import type { Lang } from '../../shared/lang.ts';
import { PairConfirmView } from './pair-confirm-view.ts';
import { PairingView } from './pairing-view.ts';
import { VerdictSound } from './sound.ts';
import { StaffPanel } from './staff-panel.ts';
import { StatusBar } from './status-bar.ts';
import { VerdictView } from './verdict-view.ts';

const CAMERA_KEY = 'doorstep.camera';

/** Wires the views to the scanner inputs, the check-in service and the sync engine. */
export class KioskApp {
  private readonly sound = new VerdictSound();
  private readonly verdict = new VerdictView(this.sound);
  private readonly status: StatusBar;
  private readonly staff: StaffPanel;
  private readonly pairing: PairingView;
  private readonly confirm: PairConfirmView;
  private readonly flow: PairingFlow;
  private readonly camera: Camera;
  /** What blocks the camera (plain http on the LAN, a refused permission) and how to fix it. */
  private readonly cameraBlocked = new CameraBlockedPanel(byId('camera-view'), location.origin + location.pathname);
  private readonly accept = createDeduper();
  private readonly names: DoorNames;
  private readonly door: DoorView;
  private readonly modal: Modal;
  private readonly preflight: PreflightView;
  /** Whether a supervisor PIN is set (kept in memory: the scan path reads no storage for it). */
  private pinSet = false;
  /** Scans are decided one after another, in the order they were read. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: KioskContext,
    /** The Electron shell's certificate pins: a candidate server's is pinned while staff are asked about it. */
    private readonly pins: ShellPins | null = null,
  ) {
    this.status = new StatusBar(ctx);
    this.names = new DoorNames(ctx.db, ctx.deviceId);
    this.door = new DoorView(ctx, this.names);
    this.modal = new Modal(ctx);
    this.preflight = new PreflightView(ctx, () => this.cameraFacts());
    this.confirm = new PairConfirmView(ctx, () => this.flow.cancel());
    this.flow = new PairingFlow({
      db: ctx.db,
      checking: (server, next) => this.confirm.checking(server, next),
      ask: (plan) => this.confirm.ask(plan),
      invalid: () => this.confirm.invalid(),
      upload: () => ctx.engine.syncNow(),
      idle: () => ctx.engine.idle(),
      paired: (next, event) => this.paired(next, event),
    });
    this.pairing = new PairingView(ctx, (p) => this.pair(p));
    this.staff = new StaffPanel(
      ctx,
      {
        manual: async (id, checkIn, name) => {
          // A check-out is one tap from a check-in: ask first.
          if (
            !checkIn &&
            !(await this.modal.confirm(
              'check-out',
              ctx.t('confirm.checkOutTitle', { name }),
              ctx.t('confirm.checkOutBody'),
              ctx.t('button.confirmCheckOut'),
            ))
          )
            return;
          await this.enqueue(async () => {
            const result = await ctx.service.manual(id, checkIn);
            this.verdict.show(result, ctx.t, ctx.lang, { ...this.verdictOptions(), gate: result.gate, checkOut: !checkIn });
            this.door.refreshSoon();
          });
        },
        repair: () => this.pairing.show(true),
        unpair: () => this.unpair(),
      },
      this.names,
    );
    this.camera = new Camera(byId<HTMLVideoElement>('camera'), (text, frameAt) => this.onCode(text, frameAt, 'camera'));
    const wedge = createWedge({ onCode: (code) => this.onCode(code, undefined, 'scanner') });
    document.addEventListener('keydown', (e) => {
      const target = e.target as HTMLElement | null;
      if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
      if (wedge.key(e)) e.preventDefault();
    });
    document.addEventListener('pointerdown', () => this.sound.unlock());
    byId('staff-toggle').addEventListener('click', () => void this.toggleStaff());
    byId('preflight-toggle').addEventListener('click', () => this.preflight.toggle());
    const langSelect = byId<HTMLSelectElement>('lang');
    langSelect.value = ctx.lang;
    langSelect.addEventListener('change', () => {
      setLanguage(ctx, langSelect.value as Lang);
      void putLanguage(ctx.db, ctx.lang);
      this.status.render();
      void this.renderEvent();
      void this.door.refresh();
      if (this.preflight.open) void this.preflight.render();
    });
    byId<HTMLSelectElement>('camera-picker').addEventListener('change', (e) => {
      const id = (e.target as HTMLSelectElement).value;
      localStorage.setItem(CAMERA_KEY, id);
      void this.startCamera(id);
    });
    ctx.engine.events.on((e) => {
      if (e.type !== 'status' || e.status.running) return;
      void this.renderEvent();
      // The scan memory, when a write dropped a copy (or warm-up came before the first download): loaded again
      // between sync runs; until then scans read IndexedDB.
      void loadScanMemory(ctx.db).catch(() => undefined);
    });
  }

  /** Staff tools: closing locks them; opening asks for the supervisor PIN every time. */
  private async toggleStaff(): Promise<void> {
    if (this.staff.open) return this.staff.toggle(false);
    if (await this.modal.askPin()) this.staff.toggle(true);
  }

  private verdictOptions(): VerdictTextOptions {
    const { t, lang } = this.ctx;
    return {
      ticketTitle: (title) => this.names.ticketTitle(title, lang),
      deviceName: (id) => this.names.deviceName(id, t('device.thisKiosk')),
    };
  }

  private cameraFacts(): PreflightFacts['camera'] {
    if (this.cameraBlocked.reason !== null) return { state: 'blocked' };
    const video = byId<HTMLVideoElement>('camera');
    const track = (video.srcObject as MediaStream | null)?.getVideoTracks()[0];
    if (track?.readyState !== 'live' || video.videoWidth === 0) return { state: 'none' };
    return { state: 'ok', label: track.label || this.ctx.t('camera.label'), width: video.videoWidth, height: video.videoHeight };
  }

  async start(): Promise<void> {
    setLanguage(this.ctx, this.ctx.lang);
    this.pinSet = await hasPin(this.ctx.db);
    this.pairing.show(this.ctx.settings.current === null);
    this.status.render();
    await this.renderEvent();
    await this.names.load();
    void this.door.refresh();
    // What the first scan would otherwise pay for, done while the door is still idle: the sound's audio context,
    // and one pass of a scan decision's storage reads (the JIT and IndexedDB's first opens). A paired kiosk does it
    // now; one being paired a second after its list is complete (the engine's `ready`, also sent after a restart),
    // while staff step back from it: making the audio context takes the page's thread for 0.35-0.65 s, which at
    // pairing fell on the probe of the event, or on staff's confirming tap, ahead of the download.
    const idle = (job: () => void) => ('requestIdleCallback' in window ? requestIdleCallback(job, { timeout: 1000 }) : setTimeout(job, 200));
    const warm = () =>
      idle(() => {
        // The reads first: IndexedDB answers them while making the audio context holds the page's thread.
        void this.ctx.service.warmUp();
        this.sound.prepare();
      });
    this.ctx.engine.events.on((e) => {
      if (e.type === 'ready') setTimeout(warm, 1000);
    });
    if (this.ctx.settings.current !== null && !/[#&]pair=/.test(location.hash)) warm();
    await this.openPairingLink();
    // A pairing link opened in a tab that already shows the kiosk only changes the hash.
    window.addEventListener('hashchange', () => void this.openPairingLink());
    void this.startCamera(localStorage.getItem(CAMERA_KEY));
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(job).catch((err) => console.error('scan failed', err));
    return this.queue;
  }

  /** Every code from the camera or the wedge comes here. */
  private onCode(text: string, frameAt?: number, source: 'camera' | 'scanner' = 'scanner'): void {
    // Every sighting counts for the door, in the scanner test too: a code still in view when the panel closes is
    // not checked in then.
    const fresh = this.accept(text);
    const read = readPairing(text);
    if (this.preflight.open) {
      // The scanner test: show what was read, check nobody in. A pairing code carries a key: never shown. It goes
      // by its own window, not the door's, so a code the door read in the last 3 s is shown all the same.
      if (this.preflight.accept(text)) void this.preflight.showCode(text, source, read.kind !== 'none');
      return;
    }
    if (!fresh) return;
    const { current } = this.ctx.settings;
    if (read.kind !== 'none') {
      // A pairing code only pairs when pairing is what staff are doing (or the device has no working pairing);
      // even then it only asks. Ticket scans go on while the question is open.
      // With no supervisor PIN set yet, a pairing code is how one gets set (its holder is a supervisor).
      if (current === null || !this.pinSet || this.ctx.engine.status.unauthorized || this.pairing.visible || this.staff.open || this.confirm.open) {
        if (read.kind === 'ok') void this.pair(read.payload);
        else this.confirm.invalid();
      }
      return;
    }
    if (current === null) {
      this.pairing.showError(this.ctx.t('pair.invalid'));
      return;
    }
    void this.enqueue(async () => {
      const result = await this.ctx.service.scan(text);
      if (result.verdict.kind === 'already') this.names.learnLabel(result.verdict.deviceId, result.verdict.deviceLabel);
      this.verdict.show(result, this.ctx.t, this.ctx.lang, { ...this.verdictOptions(), gate: result.gate, frameAt });
      this.door.refreshSoon();
    });
  }

  /** Shows the target and what it replaces, and pairs only when staff confirm. */
  private async pair(payload: PairingPayload): Promise<void> {
    const pinned = await this.pins?.candidate(payload);
    try {
      await this.flow.request(payload);
    } catch (err) {
      console.error('pairing failed', err);
      this.confirm.close();
    } finally {
      if (pinned !== undefined) await this.pins?.settle(pinned);
    }
  }

  /** The new pairing is stored: start over with it. */
  private async paired(payload: PairingPayload, event: EventView): Promise<void> {
    const { engine } = this.ctx;
    // The supervisor PIN set with the confirmation; the same server and event keep the one there is.
    const pin = this.confirm.takePin();
    // Its PBKDF2 (PIN_ITERATIONS, off the page's thread with WebCrypto) runs while the first download starts instead
    // of ahead of it: derived before the sync, it held back the first request by its whole time (issue 22). A PIN
    // check made meanwhile waits for it (pin.ts), so neither the PIN it replaces nor none answers in between.
    const storing = pin === null ? Promise.resolve() : setPin(this.ctx.db, pin);
    this.ctx.settings.current = payload;
    // The event as the question read it with this key is the first run's check of the key (SyncEngine.checked).
    engine.resetAuth(event.read);
    // The first download starts at once; the screen catches up meanwhile.
    void engine.syncNow({ refreshEvent: true });
    await storing;
    this.pinSet = await hasPin(this.ctx.db);
    this.pairing.show(false);
    await engine.refreshStatus();
    await this.renderEvent();
    void this.door.refresh();
  }

  private async unpair(): Promise<void> {
    const { db, engine } = this.ctx;
    const { t } = this.ctx;
    const pending = engine.status.pending;
    const queued = pending === 1 ? t('unpair.confirmOne') : t('unpair.confirm', { n: pending });
    const body = pending > 0 ? `${t('confirm.unpairBody')} ${queued}` : t('confirm.unpairBody');
    if (!(await this.modal.confirm('unpair', t('confirm.unpairTitle'), body, t('button.confirmUnpair')))) return;
    await engine.idle();
    await unpair(db, Date.now());
    this.ctx.settings.current = null;
    this.staff.toggle(false);
    this.pairing.show(true);
    await engine.refreshStatus();
    await this.renderEvent();
    void this.door.refresh();
  }

  /**
   * `{base}/kiosk/#pair=...`: the key leaves the address bar and history at once, whatever staff answer,
   * so a reload does not ask again; then the pairing is shown and asked like any other.
   */
  private async openPairingLink(): Promise<void> {
    if (!/[#&]pair=/.test(location.hash)) return;
    const hash = location.hash;
    history.replaceState(null, '', location.pathname + location.search);
    const read = readPairing(hash);
    if (read.kind === 'ok') await this.pair(read.payload);
    else this.confirm.invalid();
  }

  private async renderEvent(): Promise<void> {
    const event = this.ctx.settings.current ? await this.ctx.db.event.toCollection().first() : undefined;
    byId('event-title').textContent = event?.title ?? this.ctx.t('app.title');
    await this.names.load();
  }

  private async startCamera(deviceId: string | null): Promise<void> {
    const status = byId('camera-status');
    const blocked = cameraBlockedBy(window);
    if (blocked) {
      status.textContent = '';
      return this.cameraBlocked.show(blocked, this.ctx.t);
    }
    if (!navigator.mediaDevices?.getUserMedia) {
      status.textContent = this.ctx.t('camera.none');
      return;
    }
    try {
      await this.camera.start(deviceId);
      status.textContent = '';
      this.cameraBlocked.hide();
    } catch (err) {
      const refused = cameraBlockedBy(window, err);
      if (refused) {
        status.textContent = '';
        return this.cameraBlocked.show(refused, this.ctx.t);
      }
      if (deviceId) return this.startCamera(null);
      status.textContent = this.ctx.t('camera.error', { message: err instanceof Error ? err.message : String(err) });
      return;
    }
    const picker = byId<HTMLSelectElement>('camera-picker');
    const cameras = await this.camera.list();
    picker.replaceChildren(
      ...cameras.map((c) => {
        const option = el('option', c.label);
        option.value = c.deviceId;
        return option;
      }),
    );
    picker.value = this.camera.activeDeviceId ?? '';
  }
}
