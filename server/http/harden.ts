import type { Server } from 'node:http';
import type { Config } from '../config.ts';

/**
 * Limits of the HTTP server itself (CONTRACT section 3), applied by `npm start` (server/main.ts) and by the test
 * server alike:
 * - at most `maxConnections` open connections; Node closes further ones as soon as they are accepted;
 * - headers must arrive within the body timeout, and a whole request within twice it (Node answers 408 and
 *   closes). Node checks these every 30 s, so they are the backstop: the REST layer's own timer
 *   (`readBody`) answers a body that has not arrived `bodyTimeoutMs` after its headers with a 408 envelope.
 */
export function hardenServer(server: Server, config: Pick<Config, 'maxConnections' | 'bodyTimeoutMs'>): void {
  server.maxConnections = config.maxConnections;
  server.headersTimeout = config.bodyTimeoutMs;
  server.requestTimeout = 2 * config.bodyTimeoutMs;
}
