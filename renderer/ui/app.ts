import { readPairing, type PairingPayload } from '../../shared/checkin/pairing.ts';
import type { ShellPins } from '../../shared/ipc-pins.ts';
import { Camera } from '../scanner/camera.ts';
import { createDeduper } from '../scanner/dedupe.ts';
import { createWedge } from '../scanner/wedge.ts';
import { putLanguage } from '../store/meta.ts';
import { PairingFlow, unpair } from '../sync/pairing.ts';
import { CameraBlockedPanel, cameraBlockedBy } from './camera-blocked.ts';
import { setLanguage, type KioskContext } from './context.ts';
import { byId, el } from './dom.ts';
import type { Lang } from './i18n.ts';
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
  /** Scans are decided one after another, in the order they were read. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: KioskContext,
    /** The Electron shell's certificate pins: a candidate server's is pinned while staff are asked about it. */
    private readonly pins: ShellPins | null = null,
  ) {
    this.status = new StatusBar(ctx);
    this.confirm = new PairConfirmView(ctx, () => this.flow.cancel());
    this.flow = new PairingFlow({
      db: ctx.db,
      checking: (server, next) => this.confirm.checking(server, next),
      ask: (plan) => this.confirm.ask(plan),
      invalid: () => this.confirm.invalid(),
      upload: () => ctx.engine.syncNow(),
      idle: () => ctx.engine.idle(),
      paired: (next) => this.paired(next),
    });
    this.pairing = new PairingView(ctx, (p) => this.pair(p));
    this.staff = new StaffPanel(ctx, {
      manual: (id, checkIn) => this.enqueue(async () => {
        const result = await ctx.service.manual(id, checkIn);
        this.verdict.show(result, ctx.t, ctx.lang, { checkOut: !checkIn });
      }),
      repair: () => this.pairing.show(true),
      unpair: () => this.unpair(),
    });
    this.camera = new Camera(byId<HTMLVideoElement>('camera'), (text, frameAt) => this.onCode(text, frameAt));
    const wedge = createWedge({ onCode: (code) => this.onCode(code) });
    document.addEventListener('keydown', (e) => {
      const target = e.target as HTMLElement | null;
      if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
      if (wedge.key(e)) e.preventDefault();
    });
    document.addEventListener('pointerdown', () => this.sound.unlock());
    byId('staff-toggle').addEventListener('click', () => this.staff.toggle());
    const langSelect = byId<HTMLSelectElement>('lang');
    langSelect.value = ctx.lang;
    langSelect.addEventListener('change', () => {
      setLanguage(ctx, langSelect.value as Lang);
      void putLanguage(ctx.db, ctx.lang);
      this.status.render();
      void this.renderEvent();
    });
    byId<HTMLSelectElement>('camera-picker').addEventListener('change', (e) => {
      const id = (e.target as HTMLSelectElement).value;
      localStorage.setItem(CAMERA_KEY, id);
      void this.startCamera(id);
    });
    ctx.engine.events.on((e) => {
      if (e.type === 'status' && !e.status.running) void this.renderEvent();
    });
  }

  async start(): Promise<void> {
    setLanguage(this.ctx, this.ctx.lang);
    this.pairing.show(this.ctx.settings.current === null);
    this.status.render();
    await this.renderEvent();
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
  private onCode(text: string, frameAt?: number): void {
    if (!this.accept(text)) return;
    const read = readPairing(text);
    const { current } = this.ctx.settings;
    if (read.kind !== 'none') {
      // A pairing code only pairs when pairing is what staff are doing (or the device has no working pairing);
      // even then it only asks. Ticket scans go on while the question is open.
      if (current === null || this.ctx.engine.status.unauthorized || this.pairing.visible || this.staff.open || this.confirm.open) {
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
      this.verdict.show(result, this.ctx.t, this.ctx.lang, { frameAt });
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
  private async paired(payload: PairingPayload): Promise<void> {
    const { engine } = this.ctx;
    this.ctx.settings.current = payload;
    engine.resetAuth();
    this.pairing.show(false);
    await engine.refreshStatus();
    await this.renderEvent();
    void engine.syncNow({ refreshEvent: true });
  }

  private async unpair(): Promise<void> {
    const { db, engine } = this.ctx;
    const pending = engine.status.pending;
    if (pending > 0 && !window.confirm(this.ctx.t('unpair.confirm', { n: pending }))) return;
    await engine.idle();
    await unpair(db, Date.now());
    this.ctx.settings.current = null;
    this.staff.toggle(false);
    this.pairing.show(true);
    await engine.refreshStatus();
    await this.renderEvent();
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
    picker.replaceChildren(...cameras.map((c) => {
      const option = el('option', c.label);
      option.value = c.deviceId;
      return option;
    }));
    picker.value = this.camera.activeDeviceId ?? '';
  }
}
