import { describe, expect, it } from 'vitest';
import jsQR from 'jsqr';
import { lumaFocus, lumaThumbnail, lumaToRgba, type Luma } from '../../../renderer/scanner/luma.ts';
import { SceneGate } from '../../../renderer/scanner/scene.ts';
import { HEIGHT, qrLuma, WIDTH } from '../../e2e/y4m.ts';

/** A signed ticket code as the server draws it (CONTRACT section 8): the densest code a door reads. */
const SIGNED =
  'http://door.example/?event_qr_code=1&ticket_id=100003&event_id=1&security_code=3695375e4323f627&path=%2Fevt%2Ftickets%2Fv1%2Fqr&sig=aUboTc1xOt6BY76MKcAQaV_OV_MhYEMjgs4W6qY1NTXFibTSNuQE8QoMADiSoVxLgynsqwk6IhGGkGAjyOqrCg&kid=F-ovqftS0Lzd';

/** The fake camera's brightness plane, padded to a wider stride and offset as a VideoFrame's copy may be. */
function plane(text: string | null, grain = 0, seed = 1): Luma {
  const y = qrLuma(text);
  const stride = WIDTH + 64;
  const offset = 32;
  const data = new Uint8Array(offset + stride * HEIGHT);
  let x = seed;
  for (let r = 0; r < HEIGHT; r++)
    for (let c = 0; c < WIDTH; c++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      data[offset + r * stride + c] = Math.max(0, Math.min(255, y[r * WIDTH + c] + (grain ? ((x >> 8) % (2 * grain + 1)) - grain : 0)));
    }
  return { data, offset, stride, width: WIDTH, height: HEIGHT };
}

describe('reading a camera frame from its brightness plane', () => {
  it('jsQR reads a signed ticket from the plane at full size and at the quick read’s two thirds', () => {
    const l = plane(SIGNED, 6);
    for (const [w, h] of [
      [WIDTH, HEIGHT],
      [Math.round((WIDTH * 2) / 3), Math.round((HEIGHT * 2) / 3)],
    ]) {
      const rgba = lumaToRgba(l, w, h);
      expect(rgba.length).toBe(w * h * 4);
      expect(jsQR(rgba, w, h, { inversionAttempts: 'dontInvert' })?.data).toBe(SIGNED);
    }
    expect(jsQR(lumaToRgba(plane(null, 6), WIDTH, HEIGHT), WIDTH, HEIGHT, { inversionAttempts: 'dontInvert' })).toBeNull();
  });

  it('the thumbnail averages a sensor’s grain away: the same empty counter is skipped, a ticket held up is new', () => {
    const gate = new SceneGate();
    expect(gate.classify(lumaThumbnail(plane(null, 8, 1)), 0)).toBe('new');
    expect(gate.classify(lumaThumbnail(plane(null, 8, 2)), 33)).toBe('skip');
    expect(gate.classify(lumaThumbnail(plane(null, 8, 3)), 66)).toBe('skip');
    expect(gate.classify(lumaThumbnail(plane(SIGNED, 8, 4)), 99)).toBe('new');
  });

  it('the quick read narrows to the part busy with edges: a ticket held up is read from it, an empty scene has none', () => {
    const l = plane(SIGNED, 6);
    const part = lumaFocus(l);
    expect(part).not.toBeNull();
    const { x, width, height } = part!;
    // The code (centred, about 440 pixels square with its quiet zone) is inside, and the part is well under the picture.
    expect(x).toBeGreaterThan(0);
    expect(x + width).toBeLessThan(WIDTH);
    expect(width * height).toBeLessThan(0.7 * WIDTH * HEIGHT);
    expect(x).toBeLessThanOrEqual((WIDTH - 400) / 2);
    expect(x + width).toBeGreaterThanOrEqual((WIDTH + 400) / 2);
    const w = Math.round((width * 2) / 3);
    const h = Math.round((height * 2) / 3);
    expect(jsQR(lumaToRgba(l, w, h, undefined, part!), w, h, { inversionAttempts: 'dontInvert' })?.data).toBe(SIGNED);
    // A sensor's grain on an empty counter is no edge.
    expect(lumaFocus(plane(null, 8))).toBeNull();
  });

  it('a picture busy all over is read whole', () => {
    const l = plane(null);
    for (let r = 0; r < HEIGHT; r++) for (let c = 0; c < WIDTH; c++) l.data[l.offset + r * l.stride + c] = (r >> 2) % 2 === (c >> 2) % 2 ? 20 : 230;
    expect(lumaFocus(l)).toBeNull();
  });
});
