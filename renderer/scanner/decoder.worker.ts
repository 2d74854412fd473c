/// <reference lib="webworker" />
import jsQR from 'jsqr';
import type { DecodeReply, DecodeRequest } from './decoder-protocol.ts';
import { LUMA_FORMATS, lumaFocus, lumaThumbnail, lumaToRgba, type Luma, type Rect } from './luma.ts';
import { SceneGate, THUMB_H, THUMB_W } from './scene.ts';
import { denseWarmUpPlane, warmUpImage } from './warm-up.ts';

/**
 * Decodes QR codes off the main thread: the page hands over each frame as an ImageBitmap (a transfer, no
 * copy) and gets the text back, so the UI never waits on jsQR.
 *
 * jsQR's time grows with the pixels it reads, and a ticket held up to a door camera is large in the picture. So
 * each frame is read at two thirds of its size first (under half the pixels; half size is too coarse for a
 * signed ticket's denser code filling the picture: its modules fall under 4 pixels); only when that finds
 * nothing is it read at full size, on every other frame, which still finds a small or distant code within a
 * frame or two while an empty scene costs less than one full read per frame. The quick read takes only the part of
 * the picture busy with sharp edges (luma.ts lumaFocus: where a code can be; the whole picture when nothing or most of
 * it is): jsQR's locator walks every row it is given, and the rows and columns beside a code cost it time for nothing. A frame whose scene has not
 * changed since the last read is not read at all (scene.ts), and when that scene is read again it is read whole.
 * A camera frame in a YUV format is read from its brightness plane (luma.ts), never drawn on a canvas.
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

/** A frame as the decoder reads it: its size, the scene gate's thumbnail, and RGBA at a size for jsQR. */
interface Picture {
  width: number;
  height: number;
  thumbnail(): Uint8ClampedArray | null;
  /** The part of the picture a code can be in (luma.ts lumaFocus); `null`: the whole of it. */
  focus(): Rect | null;
  /** The picture (or its part `from`) at `width`×`height`, as RGBA. */
  rgba(width: number, height: number, from?: Rect): Uint8ClampedArray | null;
}

/** Buffers kept between frames (a frame's copy, and the RGBA of each read size): no garbage per frame. */
let planeBuffer = new Uint8Array(0);
const rgbaBuffers = new Map<string, Uint8ClampedArray>();

/** A brightness plane as the decoder reads it. */
function lumaPicture(l: Luma): Picture {
  return {
    width: l.width,
    height: l.height,
    thumbnail: () => lumaThumbnail(l),
    focus: () => lumaFocus(l),
    rgba: (width, height, from) => {
      const key = `${width}x${height}`;
      const out = lumaToRgba(l, width, height, rgbaBuffers.get(key), from);
      if (rgbaBuffers.size >= 4 && !rgbaBuffers.has(key)) rgbaBuffers.clear();
      rgbaBuffers.set(key, out);
      return out;
    },
  };
}

/**
 * A camera's VideoFrame in a YUV format is read from its brightness plane (luma.ts: a copy, no colour
 * conversion); anything else (an ImageBitmap, an RGB frame) is drawn on a canvas and read back.
 */
async function pictureOf(frame: VideoFrame | ImageBitmap): Promise<Picture> {
  if ('format' in frame && frame.format && LUMA_FORMATS.has(frame.format)) {
    const rect = frame.visibleRect ?? { x: 0, y: 0, width: frame.codedWidth, height: frame.codedHeight };
    const region = { rect: { x: rect.x, y: rect.y, width: rect.width, height: rect.height } };
    const size = frame.allocationSize(region);
    if (planeBuffer.length < size) planeBuffer = new Uint8Array(size);
    const layout = await frame.copyTo(planeBuffer, region);
    return lumaPicture({ data: planeBuffer, offset: layout[0].offset, stride: layout[0].stride, width: rect.width, height: rect.height });
  }
  const draw = (width: number, height: number, smooth: ImageSmoothingQuality) => {
    const s = surface(width, height);
    if (!s) return null;
    s.ctx.imageSmoothingQuality = smooth;
    s.ctx.drawImage(frame, 0, 0, width, height);
    return s.ctx.getImageData(0, 0, width, height).data;
  };
  return {
    width: 'displayWidth' in frame ? frame.displayWidth : frame.width,
    height: 'displayHeight' in frame ? frame.displayHeight : frame.height,
    // Each thumbnail cell the mean of its pixels (mipmapped scaling), so a camera's grain averages out.
    thumbnail: () => draw(THUMB_W, THUMB_H, 'medium'),
    // A drawn picture is not looked over for where a code is: it is read whole.
    focus: () => null,
    rgba: (width, height) => draw(width, height, 'low'),
  };
}

/** The picture (or its part `from`) at `width`×`height`, read by jsQR. */
function read(p: Picture, width: number, height: number, from?: Rect): string | null {
  const data = p.rgba(width, height, from);
  if (!data) return null;
  // Printed and on-screen tickets are dark on light; skipping the inverted pass halves the work.
  return jsQR(data, width, height, { inversionAttempts: 'dontInvert' })?.data ?? null;
}

/** The frame's size as read (at most MAX_READ_WIDTH wide), and its scale. */
function readSize(p: Picture): { width: number; height: number; scale: number } {
  const scale = Math.min(1, MAX_READ_WIDTH / p.width);
  return { width: Math.round(p.width * scale), height: Math.round(p.height * scale), scale };
}

/**
 * The quick read: only the part of the picture busy with edges (luma.ts lumaFocus), at SMALL of the read size. A code
 * held up at a door fills a part of the picture, and jsQR's locator walks every row and column it is given.
 */
function quickRead(p: Picture): string | null {
  const { scale } = readSize(p);
  const part = p.focus() ?? { x: 0, y: 0, width: p.width, height: p.height };
  const k = scale * SMALL;
  return read(p, Math.max(1, Math.round(part.width * k)), Math.max(1, Math.round(part.height * k)), part);
}

{
  const warm = warmUpImage();
  jsQR(warm.data, warm.width, warm.height, { inversionAttempts: 'dontInvert' });
  // A code as dense as a signed ticket's, through the same steps a camera frame takes (thumbnail, the part read, the
  // quick read and the whole one), a few times over: the first tickets of the day otherwise pay for compiling them.
  const width = 640;
  const height = 480;
  const dense = lumaPicture({ data: denseWarmUpPlane(width, height), offset: 0, stride: width, width, height });
  for (let i = 0; i < 3; i++) {
    dense.thumbnail();
    quickRead(dense);
    read(dense, width, height);
  }
  rgbaBuffers.clear();
}

scope.onmessage = async (event: MessageEvent<DecodeRequest>) => {
  const { id, frame, frameAt } = event.data;
  let text: string | null = null;
  let skipped = false;
  try {
    const p = await pictureOf(frame);
    const { width, height } = readSize(p);
    const thumb = p.thumbnail();
    // Whether the frame shows a scene other than the last one read (scene.ts).
    const seen = thumb ? scene.classify(thumb, performance.now()) : 'new';
    skipped = seen === 'skip';
    if (seen === 'again') {
      // The quick read of this very scene found nothing a moment ago: this time the whole picture.
      text = read(p, width, height);
    } else if (seen === 'new') {
      const shrink = width >= SMALL_MIN_WIDTH;
      if (shrink) text = quickRead(p);
      if (text === null && shrink) fullTurn = !fullTurn;
      if (text === null && (!shrink || fullTurn)) text = read(p, width, height);
    }
  } catch {
    // A frame that cannot be read (closed under us, a format the copy refuses) is answered as empty.
  } finally {
    frame.close();
  }
  const reply: DecodeReply = { id, text, frameAt, skipped };
  scope.postMessage(reply);
};
