import fs from 'node:fs';
import os from 'node:os';
import { startDelayProxy, type ProxyTarget } from './delay-proxy.ts';
import { pgTurns } from './pg-turns.ts';

/**
 * The delay proxy as a child process (spawnDelayProxy): its port, then over IPC its counters in answer to each
 * message (`counts`, or `{ trace: label | null }`, which also starts or stops the trace). It stands for a network,
 * which takes no CPU from the machine: so it asks for nice -10 (DELAY_PROXY_NICE), before its timer thread starts
 * so that the thread inherits it (where allowed: root, or CAP_SYS_NICE), and on a loaded machine its chunks wait
 * less behind other work to be released (a 1 ms ping-pong at load 18: p90 3 ms instead of 7). It uses little CPU
 * (0.1-0.2 CPU s/s under bench:scale). With DELAY_PROXY_TRACE=<file> it appends there, while a label is set, one
 * line per round trip: the label, the connection and the statements the turn sent (pg-turns.ts).
 */
const nice = Number(process.env.DELAY_PROXY_NICE ?? -10);
let niced = true;
try {
  os.setPriority(nice);
} catch {
  niced = false;
}
const traceFile = process.env.DELAY_PROXY_TRACE;
let label: string | null = null;
const connections = new Map<number, { turns: ReturnType<typeof pgTurns>; label: string | null }>();
const watch = (id: number, chunk: Buffer | null, turn: boolean) => {
  let c = connections.get(id);
  if (!c) connections.set(id, (c = { turns: pgTurns(), label }));
  // A turn's line is complete when the next one begins (or the connection closes): it goes under the label that
  // was set when it began.
  const line = chunk ? c.turns.feed(chunk, turn) : c.turns.end();
  if (line && c.label) fs.appendFileSync(traceFile!, `${c.label}\tc${id}\t${line}\n`);
  if (turn) c.label = label;
  if (!chunk) connections.delete(id);
};
const proxy = await startDelayProxy(JSON.parse(process.env.DELAY_PROXY_TARGET!) as ProxyTarget, Number(process.env.DELAY_PROXY_RTT_MS), {
  watch: traceFile ? watch : undefined,
});
process.send!({ port: proxy.port, nice: niced ? nice : os.getPriority() });
process.on('message', (m: unknown) => {
  if (typeof m === 'object' && m && 'trace' in m) {
    // The turns so far end under their label (the requests traced are answered by now), the next ones under the new.
    for (const [id, c] of connections) {
      const line = c.turns.end();
      if (line && c.label) fs.appendFileSync(traceFile!, `${c.label}\tc${id}\t${line}\n`);
      c.label = (m as { trace: string | null }).trace;
    }
    label = (m as { trace: string | null }).trace;
  }
  process.send!({ roundTrips: proxy.roundTrips(), connections: proxy.connections() });
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
