/**
 * Draws the kiosk's PWA icons into renderer/public/icons/ (committed; rerun after changing the design):
 * `npx tsx renderer/sw-make-icons.ts`. The same design as icon.svg: an open door, white on the kiosk's
 * dark blue, inside the maskable safe zone (the central 80%), so Android's round or squircle crops keep it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public', 'icons');
const BG = [0x12, 0x3a, 0x6b];
const FG = [0xff, 0xff, 0xff];
const ACCENT = [0x2e, 0xc4, 0x6d];

/** Colour at (x, y) in a 0..100 design space, or null for the background. */
function shade(x: number, y: number): number[] | null {
  // Door frame: the outline of a doorway.
  const inFrame = x >= 30 && x <= 70 && y >= 20 && y <= 82;
  const inOpening = x >= 35 && x <= 65 && y >= 25 && y <= 82;
  // The door leaf, swung open: a trapezoid on the left of the opening.
  const leafTop = 25 + (x - 35) * 0.18;
  const leafBottom = 82 - (x - 35) * 0.18;
  const inLeaf = x >= 35 && x <= 52 && y >= leafTop && y <= leafBottom;
  const knob = (x - 48) ** 2 + (y - 54) ** 2 <= 2.2 ** 2;
  if (knob) return BG;
  if (inLeaf) return FG;
  if (inFrame && !inOpening) return FG;
  // The threshold step, in the accent colour: the guest's way in.
  if (x >= 26 && x <= 74 && y >= 82 && y <= 86) return ACCENT;
  return null;
}

function draw(size: number, file: string): void {
  const png = new PNG({ width: size, height: size });
  const samples = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = ((px + (sx + 0.5) / samples) / size) * 100;
          const y = ((py + (sy + 0.5) / samples) / size) * 100;
          const c = shade(x, y) ?? BG;
          r += c[0];
          g += c[1];
          b += c[2];
        }
      }
      const n = samples * samples;
      const i = (py * size + px) * 4;
      png.data[i] = Math.round(r / n);
      png.data[i + 1] = Math.round(g / n);
      png.data[i + 2] = Math.round(b / n);
      png.data[i + 3] = 255;
    }
  }
  fs.writeFileSync(path.join(out, file), PNG.sync.write(png));
}

fs.mkdirSync(out, { recursive: true });
draw(192, 'icon-192.png');
draw(512, 'icon-512.png');
