/**
 * A keyboard-wedge barcode scanner types the code and usually ends it with Enter or Tab. Some are set to
 * send no terminator, so a short pause also ends a code. Humans type far slower than scanners, and codes
 * shorter than `minLength` are dropped, so stray key presses do not become scans.
 */
export interface WedgeOptions {
  onCode: (code: string) => void;
  idleMs?: number;
  minLength?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export interface WedgeKey {
  key: string;
  ctrlKey?: boolean;
  altKey?: boolean;
  metaKey?: boolean;
}

export function createWedge(opts: WedgeOptions) {
  const idleMs = opts.idleMs ?? 150;
  const minLength = opts.minLength ?? 4;
  const setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  let buffer = '';
  let timer: unknown = null;

  function flush(): void {
    if (timer !== null) clearTimer(timer);
    timer = null;
    const code = buffer;
    buffer = '';
    if (code.length >= minLength) opts.onCode(code);
  }

  /** Feeds one key press; returns true when the key was taken as part of a code. */
  function key(e: WedgeKey): boolean {
    if (e.ctrlKey || e.altKey || e.metaKey) return false;
    if (e.key === 'Enter' || e.key === 'Tab') {
      const had = buffer.length > 0;
      flush();
      return had;
    }
    if (e.key.length !== 1) return false;
    buffer += e.key;
    if (timer !== null) clearTimer(timer);
    timer = setTimer(flush, idleMs);
    return true;
  }

  return { key, flush };
}
