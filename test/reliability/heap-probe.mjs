// Test-only preload for the soak's server process (`node --expose-gc --import <this> --import tsx ...`):
// every HEAP_PROBE_MS it runs a full GC and appends the live JS heap to HEAP_PROBE_FILE, so a leak can be
// told from V8's heap headroom and SQLite's page cache, which both make the RSS climb before it levels.
import fs from 'node:fs';

const file = process.env.HEAP_PROBE_FILE;
if (file) {
  const t0 = Date.now();
  setInterval(
    () => {
      globalThis.gc?.();
      const m = process.memoryUsage();
      fs.appendFileSync(file, `${JSON.stringify({ t: (Date.now() - t0) / 1000, heapUsed: m.heapUsed, external: m.external })}\n`);
    },
    Number(process.env.HEAP_PROBE_MS ?? 5000),
  ).unref();
}
