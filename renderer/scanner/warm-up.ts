/**
 * A tiny QR code ("warm-up", version 1, 21×21 modules; each row is a base-36 bit mask) that the decoding
 * worker reads once at start, so the JIT has compiled jsQR's paths before the first real ticket: that first
 * scan is otherwise the slowest of the day.
 */
const ROWS = [
  '18q67',
  'muyp',
  'wswt',
  'wspp',
  'wrbx',
  'mwqp',
  '18prz',
  'lc',
  '16nx9',
  'robp',
  'fu2r',
  '102mx',
  'kwfe',
  '60q',
  '18m5w',
  'mw3z',
  'wpnz',
  'wrce',
  'wsp8',
  'mxt5',
  '18r6s',
];
const SIZE = 21;
export const WARM_UP_TEXT = 'warm-up';

/** The warm-up code as an RGBA image: `scale` pixels per module and a 4-module quiet zone. */
export function warmUpImage(scale = 6): { data: Uint8ClampedArray; width: number; height: number } {
  const side = (SIZE + 8) * scale;
  const data = new Uint8ClampedArray(side * side * 4).fill(255);
  ROWS.forEach((row, r) => {
    const bits = parseInt(row, 36);
    for (let c = 0; c < SIZE; c++) {
      if (((bits >> (SIZE - 1 - c)) & 1) === 0) continue;
      for (let y = 0; y < scale; y++) {
        for (let x = 0; x < scale; x++) {
          const i = (((r + 4) * scale + y) * side + (c + 4) * scale + x) * 4;
          data[i] = data[i + 1] = data[i + 2] = 0;
        }
      }
    }
  });
  return { data, width: side, height: side };
}
