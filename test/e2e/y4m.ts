import fs from 'node:fs';
import QRCode from 'qrcode';

export const WIDTH = 640;
export const HEIGHT = 480;

/** One stretch of the fake camera's video: a QR code (or an empty scene) held for `frames` frames. */
export interface Shot {
  text: string | null;
  frames: number;
}

/** Renders a QR code, black on white with a quiet zone, centred in a WIDTH×HEIGHT luma plane. */
export function qrLuma(text: string | null): Uint8Array {
  const y = new Uint8Array(WIDTH * HEIGHT).fill(235);
  if (text === null) return y;
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const scale = Math.floor((HEIGHT - 40) / (size + 8));
  const px = size * scale;
  const x0 = Math.floor((WIDTH - px) / 2);
  const y0 = Math.floor((HEIGHT - px) / 2);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (!qr.modules.get(r, c)) continue;
      for (let dy = 0; dy < scale; dy++)
        y.fill(16, (y0 + r * scale + dy) * WIDTH + x0 + c * scale, (y0 + r * scale + dy) * WIDTH + x0 + (c + 1) * scale);
    }
  }
  return y;
}

/**
 * Writes a YUV4MPEG2 file Chromium's fake camera plays (and loops): 4:2:0, grey chroma, `fps` frames per
 * second. `noise` adds a camera sensor's grain: each pixel of each frame off by up to ±noise (deterministic).
 */
export function writeY4m(file: string, shots: readonly Shot[], fps = 10, noise = 0): void {
  let seed = 12345;
  const grain = (luma: Uint8Array): Uint8Array => {
    if (!noise) return luma;
    const out = new Uint8Array(luma.length);
    for (let i = 0; i < luma.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out[i] = Math.max(0, Math.min(255, luma[i] + ((seed >> 8) % (2 * noise + 1)) - noise));
    }
    return out;
  };
  const chroma = new Uint8Array((WIDTH / 2) * (HEIGHT / 2)).fill(128);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, `YUV4MPEG2 W${WIDTH} H${HEIGHT} F${fps}:1 Ip A1:1 C420jpeg\n`);
    for (const shot of shots) {
      const luma = qrLuma(shot.text);
      for (let i = 0; i < shot.frames; i++) {
        fs.writeSync(fd, 'FRAME\n');
        fs.writeSync(fd, grain(luma));
        fs.writeSync(fd, chroma);
        fs.writeSync(fd, chroma);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
