import type { DecodeReply, DecodeRequest } from './decoder-protocol.ts';

/**
 * At most ~20 reads a second while the scene moves: a 30 fps camera must not starve the page (and IndexedDB) of
 * CPU. A frame the worker skipped (an unchanged scene, scene.ts) cost next to nothing, so the next one may go at once.
 */
const MIN_DECODE_INTERVAL_MS = 50;

export interface CameraChoice {
  deviceId: string;
  label: string;
}

/**
 * The camera: getUserMedia into a <video>, one frame at a time to the decoding worker. While the worker
 * is busy, arriving frames are only noted; when it is free, the current picture is grabbed and decoded,
 * timed from the first frame it had not seen yet. So a slow decode never builds a backlog, the main thread
 * copies one picture per decode rather than one per frame, and scan-to-verdict is measured honestly.
 */
export class Camera {
  private stream: MediaStream | null = null;
  private worker: Worker | null = null;
  private busy = false;
  /** Arrival time of the oldest frame not yet decoded, or null when the worker has seen the newest. */
  private pendingSince: number | null = null;
  private lastGrab = 0;
  private grabTimer: ReturnType<typeof setTimeout> | null = null;
  private nextId = 1;
  private running = false;

  constructor(
    private readonly video: HTMLVideoElement,
    private readonly onCode: (text: string, frameAt: number) => void,
  ) {}

  /** Cameras the page may use; labels appear once permission was granted. */
  async list(): Promise<CameraChoice[]> {
    const devices = await navigator.mediaDevices.enumerateDevices();
    return devices.filter((d) => d.kind === 'videoinput').map((d, i) => ({ deviceId: d.deviceId, label: d.label || `Camera ${i + 1}` }));
  }

  get activeDeviceId(): string | null {
    return this.stream?.getVideoTracks()[0]?.getSettings().deviceId ?? null;
  }

  async start(deviceId?: string | null): Promise<void> {
    this.stop();
    this.stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: deviceId
        ? { deviceId: { exact: deviceId }, width: { ideal: 1280 }, height: { ideal: 720 } }
        : { facingMode: 'environment', width: { ideal: 1280 }, height: { ideal: 720 } },
    });
    this.video.srcObject = this.stream;
    this.video.muted = true;
    this.video.playsInline = true;
    await this.video.play();
    this.worker = new Worker(new URL('./decoder.worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e: MessageEvent<DecodeReply>) => {
      this.busy = false;
      if (e.data.skipped) this.lastGrab = -Infinity;
      if (e.data.text) this.onCode(e.data.text, e.data.frameAt);
      this.grabSoon();
    };
    this.worker.onerror = () => {
      this.busy = false;
      this.grabSoon();
    };
    this.running = true;
    this.scheduleFrame();
  }

  stop(): void {
    this.running = false;
    this.worker?.terminate();
    this.worker = null;
    this.busy = false;
    this.pendingSince = null;
    if (this.grabTimer) clearTimeout(this.grabTimer);
    this.grabTimer = null;
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
    this.video.srcObject = null;
  }

  private scheduleFrame(): void {
    if (!this.running) return;
    if ('requestVideoFrameCallback' in this.video) this.video.requestVideoFrameCallback(() => this.onFrame());
    else requestAnimationFrame(() => this.onFrame());
  }

  private onFrame(): void {
    this.pendingSince ??= performance.now();
    this.grabSoon();
    this.scheduleFrame();
  }

  private grabSoon(): void {
    if (this.busy || this.grabTimer || this.pendingSince === null || !this.worker) return;
    const wait = this.lastGrab + MIN_DECODE_INTERVAL_MS - performance.now();
    if (wait > 0) {
      this.grabTimer = setTimeout(() => {
        this.grabTimer = null;
        this.grabSoon();
      }, wait);
      return;
    }
    void this.grab();
  }

  private async grab(): Promise<void> {
    const frameAt = this.pendingSince;
    const { videoWidth: w, videoHeight: h } = this.video;
    if (frameAt === null || !this.worker || w === 0 || h === 0) return;
    this.busy = true;
    this.pendingSince = null;
    this.lastGrab = performance.now();
    try {
      // A VideoFrame is a handle on the picture the camera delivered: taking one costs the page next to nothing,
      // and the worker scales it as it draws it. Where there are none, a bitmap copy (scaled by the worker too).
      const frame = typeof VideoFrame === 'function' ? new VideoFrame(this.video) : await createImageBitmap(this.video);
      if (!this.worker) {
        frame.close();
        return;
      }
      const request: DecodeRequest = { id: this.nextId++, frame, frameAt };
      this.worker.postMessage(request, [frame]);
    } catch {
      // A picture that cannot be grabbed (video not ready, camera switched) is skipped.
      this.busy = false;
    }
  }
}
