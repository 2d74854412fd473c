/** The same code seen again within this window is the same scan (a QR stays in view for many frames). */
const SAME_CODE_WINDOW_MS = 3000;

/** Returns a filter that lets a code through unless the same code passed within the window. */
export function createDeduper(windowMs = SAME_CODE_WINDOW_MS, now: () => number = () => performance.now()) {
  const lastSeen = new Map<string, number>();
  return function accept(code: string): boolean {
    const t = now();
    const prev = lastSeen.get(code);
    if (prev !== undefined && t - prev < windowMs) return false;
    lastSeen.set(code, t);
    // Keep the map small on a long shift.
    if (lastSeen.size > 256) for (const [k, v] of lastSeen) if (t - v >= windowMs) lastSeen.delete(k);
    return true;
  };
}
