import os from 'node:os';
import { startDelayProxy, type ProxyTarget } from './delay-proxy.ts';

/**
 * The delay proxy as a child process (spawnDelayProxy): its port, then its counters on each `counts` message, over
 * IPC. It stands for a network, which takes no CPU from the machine: so it asks for nice -10 (DELAY_PROXY_NICE),
 * before its timer thread starts so that the thread inherits it (where allowed: root, or CAP_SYS_NICE), and on a
 * loaded machine its chunks wait less behind other work to be released (a 1 ms ping-pong at load 18: p90 3 ms
 * instead of 7). It uses little CPU (0.1-0.2 CPU s/s under bench:scale).
 */
const nice = Number(process.env.DELAY_PROXY_NICE ?? -10);
let niced = true;
try {
  os.setPriority(nice);
} catch {
  niced = false;
}
const proxy = await startDelayProxy(JSON.parse(process.env.DELAY_PROXY_TARGET!) as ProxyTarget, Number(process.env.DELAY_PROXY_RTT_MS));
process.send!({ port: proxy.port, nice: niced ? nice : os.getPriority() });
process.on('message', () => process.send!({ roundTrips: proxy.roundTrips(), connections: proxy.connections() }));
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
