/**
 * Whether the camera's scene changed since the last frame the decoder read: a door camera between guests
 * looks at the same counter for minutes, and reading every one of those frames with jsQR keeps a core busy
 * for nothing (on a two-core door PC, the core the page, IndexedDB and the uploads need). A frame is boiled
 * down to a THUMB_W×THUMB_H grey thumbnail (each cell the mean of hundreds of pixels, so sensor noise mostly
 * cancels out); it counts as unchanged when its cells differ from the last read frame's by less than
 * `MEAN_DIFF` on average. An unchanged frame is still read at least every `MAX_SKIP_MS` ('again'), so a code
 * held perfectly still that one read missed (too small for the quick read, glare) is tried again within a moment.
 */
export const THUMB_W = 32;
export const THUMB_H = 24;
/** Mean absolute difference per cell (0-255) under which a scene counts as unchanged. */
export const MEAN_DIFF = 2.5;
export const MAX_SKIP_MS = 400;

export class SceneGate {
  private last: Uint8Array | null = null;
  private lastReadAt = -Infinity;

  /**
   * `rgba` is the thumbnail's pixels (THUMB_W×THUMB_H, RGBA). 'new': a scene not read yet; 'again': the scene
   * last read, due to be read once more; 'skip': the scene last read, read a moment ago. Either read is
   * remembered as the last.
   */
  classify(rgba: Uint8ClampedArray, now: number): 'new' | 'again' | 'skip' {
    const grey = new Uint8Array(THUMB_W * THUMB_H);
    for (let i = 0, p = 0; i < grey.length; i++, p += 4) grey[i] = (rgba[p] * 77 + rgba[p + 1] * 150 + rgba[p + 2] * 29) >> 8;
    const prev = this.last;
    let same = false;
    if (prev) {
      let sum = 0;
      for (let i = 0; i < grey.length; i++) sum += Math.abs(grey[i] - prev[i]);
      same = sum / grey.length < MEAN_DIFF;
    }
    if (same && now - this.lastReadAt < MAX_SKIP_MS) return 'skip';
    this.last = grey;
    this.lastReadAt = now;
    return same ? 'again' : 'new';
  }

  /** Forget the last scene (a new camera, or the worker restarted). */
  reset(): void {
    this.last = null;
    this.lastReadAt = -Infinity;
  }
}
