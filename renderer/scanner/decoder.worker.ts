/// <reference lib="webworker" />
import jsQR from 'jsqr';
import type { DecodeReply, DecodeRequest } from './decoder-protocol.ts';
import { SceneGate, THUMB_H, THUMB_W } from './scene.ts';
import { warmUpImage } from './warm-up.ts';

/**
 * Decodes QR codes off the main thread: the page hands over each frame as an ImageBitmap (a transfer, no
 * copy) and gets the text back, so the UI never waits on jsQR.
 *
 * jsQR's time grows with the pixels it reads, and a ticket held up to a door camera is large in the picture. So
 * each frame is read at two thirds of its size first (under half the pixels; half size is too coarse for a
 * signed ticket's denser code filling the picture: its modules fall under 4 pixels); only when that finds
 * nothing is it read at full size, on every other frame, which still finds a small or distant code within a
 * frame or two while an empty scene costs less than one full read per frame. A frame whose scene has not
 * changed since the last read is not read at all (scene.ts), and when that scene is read again it is read whole.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;
/** The first read's scale. */
const SMALL = 2 / 3;
/** Frames narrower than this are read at full size only: shrinking them would leave too few pixels per module. */
const SMALL_MIN_WIDTH = 480;
/** Frames wider than this are scaled down first: a QR at the door is large, jsQR's time is not. */
const MAX_READ_WIDTH = 640;

interface Surface {
  canvas: OffscreenCanvas;
  ctx: OffscreenCanvasRenderingContext2D;
}
const surfaces = new Map<string, Surface>();
let fullTurn = false;

function surface(width: number, height: number): Surface | null {
  const key = `${width}x${height}`;
  let s = surfaces.get(key);
  if (!s) {
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) return null;
    // At most three sizes are in use (thumbnail, small and full); a camera switch may bring new ones.
    if (surfaces.size >= 6) surfaces.clear();
    surfaces.set(key, (s = { canvas, ctx }));
  }
  return s;
}

const scene = new SceneGate();

/** The frame drawn at `width`×`height` and read by jsQR. */
function read(frame: VideoFrame | ImageBitmap, width: number, height: number): string | null {
  const s = surface(width, height);
  if (!s) return null;
  s.ctx.drawImage(frame, 0, 0, width, height);
  const image = s.ctx.getImageData(0, 0, width, height);
  // Printed and on-screen tickets are dark on light; skipping the inverted pass halves the work.
  return jsQR(image.data, width, height, { inversionAttempts: 'dontInvert' })?.data ?? null;
}

{
  const warm = warmUpImage();
  jsQR(warm.data, warm.width, warm.height, { inversionAttempts: 'dontInvert' });
}

/** Whether the frame shows a scene other than the last one read (scene.ts). */
function sceneOf(frame: VideoFrame | ImageBitmap): 'new' | 'again' | 'skip' {
  const s = surface(THUMB_W, THUMB_H);
  if (!s) return 'new';
  // A thumbnail cell must be the mean of its pixels, so a camera's noise averages out: the default ('low') scaling
  // samples a few pixels per cell, and noise alone would make every frame look new.
  s.ctx.imageSmoothingQuality = 'medium';
  s.ctx.drawImage(frame, 0, 0, THUMB_W, THUMB_H);
  return scene.classify(s.ctx.getImageData(0, 0, THUMB_W, THUMB_H).data, performance.now());
}

scope.onmessage = (event: MessageEvent<DecodeRequest>) => {
  const { id, frame, frameAt } = event.data;
  let text: string | null = null;
  let skipped = false;
  try {
    const w = 'displayWidth' in frame ? frame.displayWidth : frame.width;
    const h = 'displayHeight' in frame ? frame.displayHeight : frame.height;
    const scale = Math.min(1, MAX_READ_WIDTH / w);
    const width = Math.round(w * scale);
    const height = Math.round(h * scale);
    const seen = sceneOf(frame);
    skipped = seen === 'skip';
    if (seen === 'again') {
      // The quick read of this very scene found nothing a moment ago: this time the whole picture.
      text = read(frame, width, height);
    } else if (seen === 'new') {
      const shrink = width >= SMALL_MIN_WIDTH;
      if (shrink) text = read(frame, Math.round(width * SMALL), Math.round(height * SMALL));
      if (text === null && shrink) fullTurn = !fullTurn;
      if (text === null && (!shrink || fullTurn)) text = read(frame, width, height);
    }
  } finally {
    frame.close();
  }
  const reply: DecodeReply = { id, text, frameAt, skipped };
  scope.postMessage(reply);
};
