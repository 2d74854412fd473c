import { THUMB_H, THUMB_W } from './scene.ts';

/**
 * A camera frame's brightness plane (Y of YUV), as a VideoFrame in a planar or semi-planar format hands it over:
 * full resolution, one byte a pixel, rows `stride` bytes apart. QR reading needs nothing else, and reading it
 * is a copy, where drawing the frame on a canvas converts every pixel to RGB first (on a two-core door PC with no
 * GPU, about 20 ms a frame: more than jsQR's own read of it).
 */
export interface Luma {
  data: Uint8Array;
  offset: number;
  stride: number;
  width: number;
  height: number;
}

/** VideoFrame formats whose first plane is the full-resolution Y plane. */
export const LUMA_FORMATS: ReadonlySet<string> = new Set(['I420', 'I420A', 'I422', 'I422A', 'I444', 'I444A', 'NV12']);

/** A part of a picture, in its pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The plane (or its part `from`) scaled to `width`×`height` (nearest pixel: a QR module's edges stay sharp) as the
 * RGBA jsQR reads, grey (R = G = B = Y). `out` is reused when it has the right size.
 */
export function lumaToRgba(l: Luma, width: number, height: number, out?: Uint8ClampedArray, from?: Rect): Uint8ClampedArray {
  const rgba = out && out.length === width * height * 4 ? out : new Uint8ClampedArray(width * height * 4);
  const r = from ?? { x: 0, y: 0, width: l.width, height: l.height };
  const xs = new Int32Array(width);
  for (let x = 0; x < width; x++) xs[x] = r.x + Math.min(r.width - 1, Math.floor(((x + 0.5) * r.width) / width));
  let o = 0;
  for (let y = 0; y < height; y++) {
    const row = l.offset + (r.y + Math.min(r.height - 1, Math.floor(((y + 0.5) * r.height) / height))) * l.stride;
    for (let x = 0; x < width; x++) {
      const v = l.data[row + xs[x]];
      rgba[o] = v;
      rgba[o + 1] = v;
      rgba[o + 2] = v;
      rgba[o + 3] = 255;
      o += 4;
    }
  }
  return rgba;
}

/**
 * The scene gate's thumbnail (scene.ts): THUMB_W×THUMB_H cells, each the mean of every other pixel of every other
 * row of its part of the picture (a quarter of the pixels: plenty to average a camera's grain away), as RGBA.
 */
export function lumaThumbnail(l: Luma): Uint8ClampedArray {
  const sums = new Uint32Array(THUMB_W * THUMB_H);
  const counts = new Uint32Array(THUMB_W * THUMB_H);
  const cellOfX = new Int32Array(l.width);
  for (let x = 0; x < l.width; x++) cellOfX[x] = Math.min(THUMB_W - 1, Math.floor((x * THUMB_W) / l.width));
  for (let y = 0; y < l.height; y += 2) {
    const cellRow = Math.min(THUMB_H - 1, Math.floor((y * THUMB_H) / l.height)) * THUMB_W;
    const row = l.offset + y * l.stride;
    for (let x = 0; x < l.width; x += 2) {
      const c = cellRow + cellOfX[x];
      sums[c] += l.data[row + x];
      counts[c]++;
    }
  }
  const rgba = new Uint8ClampedArray(THUMB_W * THUMB_H * 4);
  for (let i = 0; i < sums.length; i++) {
    const v = counts[i] ? Math.round(sums[i] / counts[i]) : 0;
    rgba[i * 4] = v;
    rgba[i * 4 + 1] = v;
    rgba[i * 4 + 2] = v;
    rgba[i * 4 + 3] = 255;
  }
  return rgba;
}

/** Side of the square cells {@link lumaFocus} counts edges in, in pixels. */
export const FOCUS_CELL = 16;
/** A brightness step (0-255) across two pixels that counts as an edge: well above a camera's grain. */
const FOCUS_EDGE = 32;
/** Edges (of the 64 a cell's four sampled rows can show) that make a cell busy: a QR code's modules make dozens. */
const FOCUS_BUSY = 6;
/** A part larger than this share of the picture is no saving: the whole picture is read. */
const FOCUS_MAX_SHARE = 0.7;

/**
 * Where in the picture a code can be: the bounding box of the cells busy with sharp edges (a QR code is dense with
 * them; a counter, a wall or a sleeve mostly is not), grown by a cell on every side for the code's quiet zone and
 * its finder patterns' outer edges. `null` when nothing is busy (no code to find: nothing to narrow the read to) or
 * when the box is most of the picture anyway. Four rows of each 16-pixel band are sampled: about 1/4 of the pixels.
 */
export function lumaFocus(l: Luma): Rect | null {
  const cols = Math.ceil(l.width / FOCUS_CELL);
  const rows = Math.ceil(l.height / FOCUS_CELL);
  let x0 = cols;
  let y0 = rows;
  let x1 = -1;
  let y1 = -1;
  const counts = new Uint16Array(cols);
  for (let cy = 0; cy < rows; cy++) {
    counts.fill(0);
    for (let dy = 2; dy < FOCUS_CELL; dy += 4) {
      const y = cy * FOCUS_CELL + dy;
      if (y >= l.height) break;
      const row = l.offset + y * l.stride;
      for (let cx = 0; cx < cols; cx++) {
        const end = row + Math.min(l.width - 2, (cx + 1) * FOCUS_CELL);
        let edges = 0;
        for (let i = row + cx * FOCUS_CELL; i < end; i++) {
          const d = l.data[i + 2] - l.data[i];
          if (d > FOCUS_EDGE || d < -FOCUS_EDGE) edges++;
        }
        counts[cx] += edges;
      }
    }
    for (let cx = 0; cx < cols; cx++) {
      if (counts[cx] < FOCUS_BUSY) continue;
      if (cx < x0) x0 = cx;
      if (cx > x1) x1 = cx;
      if (cy < y0) y0 = cy;
      y1 = cy;
    }
  }
  if (x1 < 0) return null;
  const x = Math.max(0, (x0 - 1) * FOCUS_CELL);
  const y = Math.max(0, (y0 - 1) * FOCUS_CELL);
  const width = Math.min(l.width, (x1 + 2) * FOCUS_CELL) - x;
  const height = Math.min(l.height, (y1 + 2) * FOCUS_CELL) - y;
  if (width * height > FOCUS_MAX_SHARE * l.width * l.height) return null;
  return { x, y, width, height };
}
