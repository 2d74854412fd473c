import { fork } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A TCP proxy on 127.0.0.1 that holds every chunk for half a round-trip time in each direction, so a database on
 * loopback answers as one across a network would, and counts the round trips of the conversations through it.
 *
 * Hand-written on node:net rather than a library: the npm proxies forward or throttle bandwidth, none adds a
 * latency per direction with sub-millisecond precision or counts turns, and toxiproxy (which adds latency) is a
 * Go daemon to install and drive over HTTP, and still counts nothing. A turn is what a driver pays a round trip
 * for: data sent towards the server after data came back from it on the same connection (a statement sent after
 * the previous answer). Several statements sent before the answer (a pipeline) are one turn, as on a network.
 */

export type ProxyTarget = { host: string; port: number } | { path: string };

export interface DelayProxy {
  port: number;
  /** Turns so far, over every connection. */
  roundTrips(): number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();

// setTimeout fires on a millisecond clock (a 0.5 ms timer fires after 0.1 to 2 ms); Atomics.wait takes fractional
// milliseconds. So a worker sleeps until the deadline the main thread sets, then posts; `armed` is 1 while asked.
const SLEEPER = `
const { parentPort, workerData } = require('node:worker_threads');
const armed = new Int32Array(workerData, 0, 1);
const wakeAt = new Float64Array(workerData, 8, 1);
const nap = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  Atomics.wait(armed, 0, 0);
  let rest;
  while ((rest = wakeAt[0] - (performance.timeOrigin + performance.now())) > 0) Atomics.wait(nap, 0, 0, rest);
  Atomics.store(armed, 0, 0);
  parentPort.postMessage(0);
}`;

/**
 * Runs jobs in the order given, each no earlier than its deadline. Every chunk waits the same delay, so deadlines
 * come in increasing order and one queue for all connections keeps each direction's chunks in order.
 */
function deadlineQueue() {
  const shared = new SharedArrayBuffer(16);
  const armed = new Int32Array(shared, 0, 1);
  const wakeAt = new Float64Array(shared, 8, 1);
  const worker = new Worker(SLEEPER, { eval: true, workerData: shared });
  worker.unref();
  let due: number[] = [];
  let jobs: (() => void)[] = [];
  let head = 0;
  let asked = false;
  const ask = () => {
    asked = true;
    wakeAt[0] = due[head]!;
    Atomics.store(armed, 0, 1);
    Atomics.notify(armed, 0);
  };
  worker.on('message', () => {
    const t = now();
    while (head < due.length && due[head]! <= t) jobs[head++]!();
    if (head > 4096 || head === due.length) {
      due = due.slice(head);
      jobs = jobs.slice(head);
      head = 0;
    }
    asked = false;
    if (head < due.length) ask();
  });
  return {
    at(deadline: number, job: () => void) {
      due.push(deadline);
      jobs.push(job);
      if (!asked) ask();
    },
    stop: () => worker.terminate(),
  };
}

/**
 * Listens on a free port of 127.0.0.1 and forwards each connection to `target`, `rttMs` / 2 later each way.
 * `watch` sees each chunk sent towards the server as it arrives, with its connection's number and whether it began a
 * turn, and `null` when that connection closes.
 */
export function startDelayProxy(
  target: ProxyTarget,
  rttMs: number,
  o: { watch?: (connection: number, chunk: Buffer | null, turn: boolean) => void } = {},
): Promise<DelayProxy> {
  const half = rttMs / 2;
  const queue = half > 0 ? deadlineQueue() : null;
  let turns = 0;
  let accepted = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const id = ++accepted;
    const upstream = net.connect({ ...target, allowHalfOpen: true });
    let last: 'up' | 'down' | null = null;
    const relay = (from: net.Socket, to: net.Socket, way: 'up' | 'down') => {
      from.setNoDelay(true);
      open.add(from);
      from.on('close', () => open.delete(from));
      // An error or reset on either side ends both at once, as a broken network path would.
      from.on('error', () => (client.destroy(), upstream.destroy()));
      from.on('data', (chunk: Buffer) => {
        const turn = way === 'up' && last === 'down';
        if (turn) turns++;
        if (way === 'up') o.watch?.(id, chunk, turn);
        last = way;
        if (queue) queue.at(now() + half, () => void (to.destroyed || to.write(chunk)));
        else to.write(chunk);
      });
      from.on('end', () => (queue ? queue.at(now() + half, () => void (to.destroyed || to.end())) : to.end()));
    };
    if (o.watch) client.once('close', () => o.watch!(id, null, false));
    relay(client, upstream, 'up');
    relay(upstream, client, 'down');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        roundTrips: () => turns,
        connections: () => accepted,
        close: async () => {
          for (const s of open) s.destroy();
          await new Promise((done) => server.close(done));
          await queue?.stop();
        },
      }),
    );
  });
}

export interface DelayProxyProcess {
  port: number;
  pid: number;
  /** The proxy's scheduling priority (-10 when it could raise it, see delay-proxy-process.ts). */
  nice: number;
  /** The proxy's counters, asked over IPC. */
  counts(): Promise<{ roundTrips: number; connections: number }>;
  /** With a trace file: writes the statements of each turn from now on under `label`, none with `null`. */
  trace(label: string | null): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * The proxy in a process of its own (delay-proxy-process.ts): in the bench's process its timers would wait behind
 * the load generator's work, and a synchronous driver in the bench would stop the proxy it talks through.
 */
export function spawnDelayProxy(target: ProxyTarget, rttMs: number, o: { traceFile?: string } = {}): Promise<DelayProxyProcess> {
  const child = fork(path.join(import.meta.dirname, 'delay-proxy-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      DELAY_PROXY_TARGET: JSON.stringify(target),
      DELAY_PROXY_RTT_MS: String(rttMs),
      ...(o.traceFile ? { DELAY_PROXY_TRACE: o.traceFile } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: ((c: { roundTrips: number; connections: number }) => void)[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the delay proxy exited with ${code}`)));
    child.on('message', (m: { port?: number; nice?: number; roundTrips?: number; connections?: number }) => {
      if (m.port !== undefined)
        resolve({
          port: m.port,
          pid: child.pid!,
          nice: m.nice!,
          counts: () => new Promise((answer) => (waiting.push(answer), child.send('counts'))),
          trace: (label) => new Promise((answer) => (waiting.push(answer), child.send({ trace: label }))),
          stop: () => new Promise((done) => (child.once('exit', () => done()), child.kill())),
        });
      else waiting.shift()?.({ roundTrips: m.roundTrips!, connections: m.connections! });
    });
  });
}
