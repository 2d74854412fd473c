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
 * second.
 */
export function writeY4m(file: string, shots: readonly Shot[], fps = 10): void {
  const chroma = new Uint8Array((WIDTH / 2) * (HEIGHT / 2)).fill(128);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, `YUV4MPEG2 W${WIDTH} H${HEIGHT} F${fps}:1 Ip A1:1 C420jpeg\n`);
    for (const shot of shots) {
      const luma = qrLuma(shot.text);
      for (let i = 0; i < shot.frames; i++) {
        fs.writeSync(fd, 'FRAME\n');
        fs.writeSync(fd, luma);
        fs.writeSync(fd, chroma);
        fs.writeSync(fd, chroma);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
