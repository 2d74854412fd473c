/**
 * The kiosks of bench:doors, in a process of their own as real door devices are (started by doors-bench.ts with
 * fork): on a `start` message each of `kiosks` kiosks sends a batch of `batch` check-ins (POST /batch/v1 of
 * PATCH /attendees/{id}) every second, spread over the second, until a `stop` message; then it answers with the
 * latency of every batch, and how many failed or were accepted.
 */
interface Start {
  type: 'start';
  url: string;
  key: string;
  ids: number[];
  /** Where in `ids` to start, so no attendee is checked in twice across phases. */
  offset: number;
  kiosks: number;
  batch: number;
}

export interface KioskResult {
  latencies: number[];
  failed: number;
  accepted: number;
  next: number;
}

let stopped = false;
let run: Promise<KioskResult> | null = null;

async function kiosks(s: Start): Promise<KioskResult> {
  let next = s.offset;
  const latencies: number[] = [];
  let failed = 0;
  let accepted = 0;
  const kiosk = async (k: number) => {
    await new Promise((r) => setTimeout(r, (1000 / s.kiosks) * k));
    let tick = performance.now();
    while (!stopped) {
      const requests = Array.from({ length: s.batch }, (_, i) => {
        const id = s.ids[next++ % s.ids.length];
        return {
          method: 'PATCH',
          path: `/evt/tickets/v1/attendees/${id}`,
          body: { check_in: true, device_id: `kiosk-${k}`, nonce: `doors-${k}-${next}-${i}-nonce` },
        };
      });
      const t0 = performance.now();
      try {
        const r = await fetch(`${s.url}/wp-json/batch/v1`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ requests }),
        });
        const body = (await r.json()) as { responses?: { status: number }[] };
        latencies.push(performance.now() - t0);
        if (r.status !== 207) failed++;
        accepted += body.responses?.filter((x) => x.status === 201).length ?? 0;
      } catch {
        failed++;
      }
      tick += 1000;
      const wait = tick - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else tick = performance.now();
    }
  };
  await Promise.all(Array.from({ length: s.kiosks }, (_, k) => kiosk(k)));
  return { latencies, failed, accepted, next };
}

process.on('message', (m: Start | { type: 'stop' }) => {
  if (m.type === 'start') {
    stopped = false;
    run = kiosks(m);
  } else if (m.type === 'stop') {
    stopped = true;
    void run?.then((r) => process.send!(r));
  }
});
process.send!({ type: 'ready' });
