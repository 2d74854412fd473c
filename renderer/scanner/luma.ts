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

/**
 * The plane scaled to `width`×`height` (nearest pixel: a QR module's edges stay sharp) as the RGBA jsQR reads,
 * grey (R = G = B = Y). `out` is reused when it has the right size.
 */
export function lumaToRgba(l: Luma, width: number, height: number, out?: Uint8ClampedArray): Uint8ClampedArray {
  const rgba = out && out.length === width * height * 4 ? out : new Uint8ClampedArray(width * height * 4);
  const xs = new Int32Array(width);
  for (let x = 0; x < width; x++) xs[x] = Math.min(l.width - 1, Math.floor(((x + 0.5) * l.width) / width));
  let o = 0;
  for (let y = 0; y < height; y++) {
    const row = l.offset + Math.min(l.height - 1, Math.floor(((y + 0.5) * l.height) / height)) * l.stride;
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
