/**
 * A code is one scan while it stays in view and for this long after it was last seen: a QR held in front
 * of the camera for a minute is read once, and it reads again only once it has been away for 3 s.
 */
const SAME_CODE_WINDOW_MS = 3000;
const MAX_TRACKED = 256;

/** Returns a filter that lets a code through unless it was seen (let through or not) within the window. */
export function createDeduper(windowMs = SAME_CODE_WINDOW_MS, now: () => number = () => performance.now()) {
  const lastSeen = new Map<string, number>();
  return function accept(code: string): boolean {
    const t = now();
    const prev = lastSeen.get(code);
    // Every sighting moves the window, including the ones that are ignored.
    lastSeen.delete(code);
    lastSeen.set(code, t);
    if (lastSeen.size > MAX_TRACKED) {
      for (const [k, v] of lastSeen) if (t - v >= windowMs) lastSeen.delete(k);
      // Still too many codes in view at once: forget the longest unseen (Map keeps insertion order).
      for (const k of lastSeen.keys()) {
        if (lastSeen.size <= MAX_TRACKED) break;
        lastSeen.delete(k);
      }
    }
    return prev === undefined || t - prev >= windowMs;
  };
}
