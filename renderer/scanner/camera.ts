import type { DecodeReply, DecodeRequest } from './decoder-protocol.ts';

/** Frames wider than this are scaled down before decoding: a QR at the door is large, jsQR time is not. */
const MAX_DECODE_WIDTH = 800;

export interface CameraChoice {
  deviceId: string;
  label: string;
}

/**
 * The camera: getUserMedia into a <video>, one frame at a time to the decoding worker. While the worker
 * is busy, frames are skipped rather than queued, so a slow decode never builds a backlog.
 */
export class Camera {
  private stream: MediaStream | null = null;
  private worker: Worker | null = null;
  private busy = false;
  private nextId = 1;
  private running = false;

  constructor(
    private readonly video: HTMLVideoElement,
    private readonly onCode: (text: string, frameAt: number) => void,
  ) {}

  /** Cameras the page may use; labels appear once permission was granted. */
  async list(): Promise<CameraChoice[]> {
    const devices = await navigator.mediaDevices.enumerateDevices();
    return devices
      .filter((d) => d.kind === 'videoinput')
      .map((d, i) => ({ deviceId: d.deviceId, label: d.label || `Camera ${i + 1}` }));
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
      if (e.data.text) this.onCode(e.data.text, e.data.frameAt);
    };
    this.worker.onerror = () => {
      this.busy = false;
    };
    this.running = true;
    this.scheduleFrame();
  }

  stop(): void {
    this.running = false;
    this.worker?.terminate();
    this.worker = null;
    this.busy = false;
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
    this.video.srcObject = null;
  }

  private scheduleFrame(): void {
    if (!this.running) return;
    if ('requestVideoFrameCallback' in this.video) this.video.requestVideoFrameCallback(() => void this.onFrame());
    else requestAnimationFrame(() => void this.onFrame());
  }

  private async onFrame(): Promise<void> {
    const frameAt = performance.now();
    try {
      const { videoWidth: w, videoHeight: h } = this.video;
      if (!this.busy && this.worker && w > 0 && h > 0) {
        const scale = Math.min(1, MAX_DECODE_WIDTH / w);
        this.busy = true;
        const frame = await createImageBitmap(this.video, {
          resizeWidth: Math.round(w * scale), resizeHeight: Math.round(h * scale), resizeQuality: 'low',
        });
        const request: DecodeRequest = { id: this.nextId++, frame, frameAt };
        if (this.worker) this.worker.postMessage(request, [frame]);
        else frame.close();
      }
    } catch {
      this.busy = false;
    } finally {
      this.scheduleFrame();
    }
  }
}
