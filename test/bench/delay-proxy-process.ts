import { startDelayProxy, type ProxyTarget } from './delay-proxy.ts';

/** The delay proxy as a child process (spawnDelayProxy): its port, then its counters on each `counts` message, over IPC. */
const proxy = await startDelayProxy(JSON.parse(process.env.DELAY_PROXY_TARGET!) as ProxyTarget, Number(process.env.DELAY_PROXY_RTT_MS));
process.send!({ port: proxy.port });
process.on('message', () => process.send!({ roundTrips: proxy.roundTrips(), connections: proxy.connections() }));
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
