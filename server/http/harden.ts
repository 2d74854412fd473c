import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';
import { clientKey } from '../security/window-limiter.ts';
import { clientAddress, compileTrust } from './client-address.ts';

/**
 * Connections one client address (IPv6 by its /64) may hold at once: a quarter of the cap, at most 64. One client
 * trickling headers or bodies (slowloris) then fills its share, never the whole cap, and other clients are still
 * served; 64 leaves room for every kiosk of a venue behind one NAT address (a kiosk keeps a handful open).
 */
export function perAddressLimit(maxConnections: number): number {
  return Math.max(1, Math.min(64, Math.floor(maxConnections / 4)));
}

/**
 * How long an idle connection stays open for the client's next request. Node's default is 5 s, and a door scans a
 * guest every few seconds to a minute: each online check-in after a pause paid for a new connection (a TCP
 * handshake, and a TLS one behind https) before its request went. 65 s outlasts the pause between guests and the
 * kiosk's 30 s sync, and is above the 60 s idle timeout of common load balancers, which must close an idle
 * connection before the server does. An idle connection still counts against `maxConnections` and its address's
 * share, so holding many costs an attacker what it did.
 */
export const KEEP_ALIVE_MS = 65_000;

/**
 * Limits of the HTTP server itself (CONTRACT section 3), applied by `npm start` (server/main.ts) and by the test
 * server alike:
 * - at most `maxConnections` open connections; Node closes further ones as soon as they are accepted;
 * - at most `perAddressLimit(maxConnections)` of them from one client address: further ones are closed at once;
 * - behind a trusted proxy (`EVT_TRUST_PROXY`) the connections come from the proxy, on behalf of every client:
 *   they are not counted as one address's; instead each client the proxy names (X-Forwarded-For, as `req.ip`)
 *   has at most the same share of requests in progress, and a request past it has its connection closed at
 *   once (the proxy answers that client 502), so one slow client cannot take the proxy's connections from the
 *   others;
 * - headers must arrive within the body timeout, and a whole request within twice it (Node answers 408 and
 *   closes). Node checks these every 30 s, so they are the backstop: the REST layer's own timer
 *   (`readBody`) answers a body that has not arrived `bodyTimeoutMs` after its headers with a 408 envelope.
 */
export function hardenServer(server: Server, config: Pick<Config, 'maxConnections' | 'bodyTimeoutMs'> & { trustProxy?: readonly string[] }): void {
  server.maxConnections = config.maxConnections;
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = config.bodyTimeoutMs;
  server.requestTimeout = 2 * config.bodyTimeoutMs;
  const share = perAddressLimit(config.maxConnections);
  const trust = compileTrust(config.trustProxy ?? []);
  const proxied = (socket: Socket) => (config.trustProxy?.length ?? 0) > 0 && trust(socket.remoteAddress ?? '', 0);
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    if (proxied(socket)) return;
    const key = clientKey(socket.remoteAddress ?? '');
    const n = open.get(key) ?? 0;
    if (n >= share) {
      socket.destroy();
      return;
    }
    open.set(key, n + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
  const busy = new Map<string, number>();
  // Registered before the app's listener: a request past its client's share never reaches it whole.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!proxied(req.socket)) return;
    const key = clientKey(clientAddress(req, trust));
    const n = busy.get(key) ?? 0;
    if (n >= share) {
      req.socket.destroy();
      return;
    }
    busy.set(key, n + 1);
    res.once('close', () => {
      const left = (busy.get(key) ?? 1) - 1;
      if (left > 0) busy.set(key, left);
      else busy.delete(key);
    });
  });
}
