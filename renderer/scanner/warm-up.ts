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

/**
 * A code as dense as a signed ticket's (version 11, 61×61 modules; each row is a hex bit mask, its highest bit the row's
 * first module): the tiny code above leaves the paths a real ticket takes
 * (alignment patterns, many error-correction blocks, a wide picture) uncompiled, so the first ticket of the day
 * paid for compiling them.
 */
const DENSE_ROWS = [
  '1fc84d4a43be0b7f',
  '10456c24f34ccb41',
  '1754308e5690875d',
  '1753f8cb394e3d5d',
  '17505675f2bd265d',
  '10529f8317c05441',
  '1fd555555555557f',
  '00191b7d1affe300',
  '17c66359f546167c',
  '02af4846c297184e',
  '13778129edd0f587',
  '1f3272e0f03d4953',
  '1de415613fce3b0d',
  '12beaffdea8e8ada',
  '146b38ad66496655',
  '013aa49ef51de8c3',
  '00fd02db33827b26',
  '1a80738ab19f20dc',
  '1142d9cfcdd9efeb',
  '023464d4fa630c20',
  '1f7bdddd638e79e6',
  '0e07ebc270a538ea',
  '1f57d35aca7a6403',
  '1c1ec9796c2f8ab8',
  '0b4e9f5bff84ff86',
  '111a472de3b63861',
  '17ef44880c6a812b',
  '07255464e6894c73',
  '09ff4461f50af9fe',
  '1b1ede7f13863318',
  '1154afab5eba4557',
  '0d1da2f51ff58f11',
  '1ffd1febf3c217f9',
  '1d1b151388bc998a',
  '01467caad543df41',
  '031a1636ea3d1101',
  '0e635209614236f7',
  '192b751c82053900',
  '0bfa67e3515a43ca',
  '0e893238a1079501',
  '0b776af2534c73b5',
  '05950fd98aafbb88',
  '1656aebb75867afb',
  '0990dc92c099815b',
  '0be1bd89fb6c7b14',
  '1e970e3a4a8f196d',
  '07f8e25bb9c4f6eb',
  '183e2da602d90f48',
  '1ffd2fe2a9cafb97',
  '13b4c05d63af298a',
  '07f66272cfc0efe3',
  '1d135b0772912bb0',
  '1e5cb92bf30ef3f3',
  '00137ad91b8e3910',
  '1fc37f0555487957',
  '10511ed113b52913',
  '1750e08bf36cb5fc',
  '175fc2b0d1b709f1',
  '1751beee3fc24c09',
  '10427465ef8a14c1',
  '1fdf029e6b02b807',
];
const DENSE_SIZE = 61;
export const DENSE_WARM_UP_TEXT =
  'http://warm-up.invalid/?event_qr_code=1&ticket_id=100003&event_id=1&security_code=3695375e4323f627&path=%2Fevt%2Ftickets%2Fv1%2Fqr&sig=aUboTc1xOt6BY76MKcAQaV_OV_MhYEMjgs4W6qY1NTXFibTSNuQE8QoMADiSoVxLgynsqwk6IhGGkGAjyOqrCg&kid=F-ovqftS0Lzd';

/**
 * The dense warm-up code as a camera's brightness plane would show it: `scale` pixels per module (less when the
 * picture is too small for it), a quiet zone, dark 16 on light 235, centred in a `width`×`height` picture (one byte
 * a pixel).
 */
export function denseWarmUpPlane(width = 640, height = 480, scale = 6): Uint8Array {
  const y = new Uint8Array(width * height).fill(235);
  const k = Math.max(1, Math.min(scale, Math.floor(Math.min(width, height) / (DENSE_SIZE + 8))));
  const x0 = Math.floor((width - DENSE_SIZE * k) / 2);
  const y0 = Math.floor((height - DENSE_SIZE * k) / 2);
  DENSE_ROWS.forEach((row, r) => {
    for (let c = 0; c < DENSE_SIZE; c++) {
      // Module c of the row is bit (DENSE_SIZE - 1 - c) of the mask, four bits a hex digit from the right.
      const bit = DENSE_SIZE - 1 - c;
      if (((parseInt(row[row.length - 1 - (bit >> 2)], 16) >> (bit & 3)) & 1) === 0) continue;
      for (let dy = 0; dy < k; dy++) {
        const at = (y0 + r * k + dy) * width + x0 + c * k;
        y.fill(16, at, at + k);
      }
    }
  });
  return y;
}
