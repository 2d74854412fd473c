import { describe, expect, it } from 'vitest';
import { MAX_SKIP_MS, SceneGate, THUMB_H, THUMB_W } from '../../../renderer/scanner/scene.ts';

/** A thumbnail's RGBA pixels, grey `value` at each cell (plus `noise`: a deterministic ±noise per cell). */
function thumb(value: (i: number) => number, noise = 0, seed = 1): Uint8ClampedArray {
  const out = new Uint8ClampedArray(THUMB_W * THUMB_H * 4);
  let x = seed;
  for (let i = 0; i < THUMB_W * THUMB_H; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const v = value(i) + (noise ? (x % (2 * noise + 1)) - noise : 0);
    out[i * 4] = out[i * 4 + 1] = out[i * 4 + 2] = v;
    out[i * 4 + 3] = 255;
  }
  return out;
}

describe('SceneGate: skips frames of an unchanged scene', () => {
  it('reads the first frame, skips the same scene a moment later, and reads it again (whole) once due', () => {
    const g = new SceneGate();
    const grey = thumb(() => 200);
    expect(g.classify(grey, 0)).toBe('new');
    expect(g.classify(grey, 50)).toBe('skip');
    expect(g.classify(grey, MAX_SKIP_MS - 1)).toBe('skip');
    expect(g.classify(grey, MAX_SKIP_MS)).toBe('again');
    expect(g.classify(grey, MAX_SKIP_MS + 10)).toBe('skip');
  });

  it('sensor noise does not count as a change; a code held up does', () => {
    const g = new SceneGate();
    expect(
      g.classify(
        thumb(() => 200, 2, 1),
        0,
      ),
    ).toBe('new');
    expect(
      g.classify(
        thumb(() => 200, 2, 7),
        33,
      ),
    ).toBe('skip');
    // A ticket covering the middle third of the picture: dark and light modules average to mid grey there.
    const code = thumb((i) => {
      const x = i % THUMB_W;
      const y = Math.floor(i / THUMB_W);
      return x > THUMB_W / 3 && x < (2 * THUMB_W) / 3 && y > THUMB_H / 3 && y < (2 * THUMB_H) / 3 ? 120 : 200;
    });
    expect(g.classify(code, 66)).toBe('new');
    // A phone's screen far off: a sixteenth of the picture changes.
    const phone = thumb((i) => (i % THUMB_W < THUMB_W / 4 && Math.floor(i / THUMB_W) < THUMB_H / 4 ? 140 : 200));
    expect(g.classify(phone, 80)).toBe('new');
    // The guest takes it away: the empty counter is a new scene again, read at once.
    expect(
      g.classify(
        thumb(() => 200),
        99,
      ),
    ).toBe('new');
    expect(
      g.classify(
        thumb(() => 200, 2, 3),
        120,
      ),
    ).toBe('skip');
  });

  it('a change over the whole picture (lights, a camera switch) is read; reset forgets the scene', () => {
    const g = new SceneGate();
    g.classify(
      thumb(() => 200),
      0,
    );
    expect(
      g.classify(
        thumb(() => 190),
        10,
      ),
    ).toBe('new');
    g.reset();
    expect(
      g.classify(
        thumb(() => 190),
        20,
      ),
    ).toBe('new');
  });
});
