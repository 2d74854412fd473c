import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/connection.ts';
import { describeDb } from './db/engine/types.ts';
import { acquireServerLock, LockedError, type ServerLock } from './ops/server-lock.ts';
import { ensureAdmin } from './auth/credentials.ts';
import { createApp, type App } from './app.ts';
import { hardenServer } from './http/harden.ts';
import { mailIdle } from './mail/service.ts';
import { createLogger, logFunction, withRequestLog } from './log.ts';

/**
 * `npm start` (the bundle dist/server/main.js) and `npm run dev`: check the configuration, take the database's
 * server lock, migrate, make sure the configured administrator exists, listen, and say so only once listening.
 *
 * Exit codes: 0 after a clean shutdown (SIGTERM, SIGINT), 1 when the server cannot listen or fails, 2 for an
 * invalid configuration, 3 when another server already runs on the same database.
 *
 * Refusals and errors go to stderr. The banner and other notices go to stdout, except with JSON logs
 * (EVT_LOG=json, the default), where stdout carries only JSON lines and they go to stderr.
 */
/** Everything is done within this after a signal: in-flight requests get 8 s, then mail and the checkpoint thread. */
const SHUTDOWN_GRACE_MS = 10_000;

export const EXIT = { ok: 0, failed: 1, config: 2, locked: 3 } as const;

function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A notice for whoever watches the terminal: kept out of stdout when stdout is a JSON log. */
function notice(config: Config, line: string): void {
  (config.logFormat === 'json' ? process.stderr : process.stdout).write(`${line}\n`);
}

function listenError(e: NodeJS.ErrnoException, config: Config): string {
  const where = `${config.host}:${config.port}`;
  if (e.code === 'EADDRINUSE') return `Cannot listen on ${where}: the port is already in use (another server?). Stop it, or set PORT to a free port.`;
  if (e.code === 'EACCES') return `Cannot listen on ${where}: not allowed (ports below 1024 need privileges). Set PORT to 1024 or above.`;
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
    return `Cannot listen on ${where}: HOST is not an address of this machine. Use 127.0.0.1, 0.0.0.0 (every interface) or one of its addresses.`;
  return `Cannot listen on ${where}: ${e.message}`;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    say((e as Error).message);
    process.exit(EXIT.config);
  }
  const logger: Logger = createLogger(config);
  const log = logFunction(logger);

  let lock: ServerLock | null;
  try {
    lock = acquireServerLock(config.dbFile);
  } catch (e) {
    if (!(e instanceof LockedError)) {
      say(`Cannot open the database ${describeDb(config.dbFile)}: ${(e as Error).message.trim()}`);
      process.exit(EXIT.failed);
    }
    say(`Doorstep is not starting: ${e.message}. Stop that server first (a crashed one does not hold it).`);
    process.exit(EXIT.locked);
  }

  let db: Awaited<ReturnType<typeof openDatabase>>;
  try {
    db = await openDatabase(config.dbFile, { poolSize: config.pgPool });
  } catch (e) {
    // An unreachable or refusing PostgreSQL server, a missing driver, a database in the wrong collation, a SQLite
    // file that cannot be opened: one line that names the database (never its password) and the reason.
    lock?.release();
    say(`Cannot open the database ${describeDb(config.dbFile)}: ${(e as Error).message.trim()}`);
    process.exit(EXIT.failed);
  }
  if (config.adminUser && config.adminPassword) {
    const { created } = await ensureAdmin(db, config.adminUser, config.adminPassword);
    notice(config, `${created ? 'Created' : 'Updated'} administrator "${config.adminUser}".`);
    log({ level: 'info', msg: `${created ? 'created' : 'updated'} administrator`, login: config.adminUser });
  }
  let app: App;
  try {
    app = await createApp({ config, db, log });
  } catch (e) {
    // A venue hub on a database that is not its own, and the like: one line, and the database left as it was.
    lock?.release();
    await db.close().catch(() => undefined);
    say(`Doorstep is not starting: ${(e as Error).message.trim()}`);
    process.exit(EXIT.config);
  }
  // The access log names the client as Express's req.ip does: the trust test app.ts compiled, not a second one.
  const handler = withRequestLog(app.express, logger, app.express.get('trust proxy fn'));
  const server: http.Server = config.tls
    ? (https.createServer({ cert: config.tls.cert, key: config.tls.key }, handler) as unknown as http.Server)
    : http.createServer(handler);
  hardenServer(server, config);

  let listening = false;
  let stopping = false;

  /** Closes what the app holds: buffers flushed (onClose hooks), checkpoint thread gone, WAL folded in, database closed. */
  const closeApp = async (deadline: number): Promise<void> => {
    await Promise.race([mailIdle(app.state), sleep(Math.max(0, deadline - 1000 - Date.now()))]);
    const checkpointer = app.state.services.checkpointer;
    await Promise.race([checkpointer?.stop(), sleep(Math.max(100, deadline - Date.now()))]);
    await app.close();
  };

  server.on('error', (e: NodeJS.ErrnoException) => {
    if (listening) {
      log({ level: 'error', msg: 'server error', error: String(e?.stack ?? e) });
      return;
    }
    say(listenError(e, config));
    log({ level: 'fatal', msg: 'cannot listen', code: e.code, host: config.host, port: config.port });
    process.exitCode = EXIT.failed;
    void closeApp(Date.now()).finally(() => {
      lock?.release();
      logger.flush(() => process.exit(EXIT.failed));
    });
  });

  server.listen(config.port, config.host, () => {
    listening = true;
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    notice(
      config,
      `Doorstep is serving ${config.publicUrl}/wp-json/ (database ${describeDb(config.dbFile)}); the door kiosk is at ${config.publicUrl}/kiosk/`,
    );
    if (config.tls) notice(config, `HTTPS certificate SHA-256 fingerprint: ${config.tls.fingerprint}`);
    log({ level: 'info', msg: 'listening', url: config.publicUrl, host: config.host, port, tls: !!config.tls, db: config.dbFile, pid: process.pid });
  });

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      say(`${signal} again: exiting without waiting.`);
      process.exit(EXIT.failed);
    }
    stopping = true;
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    log({ level: 'info', msg: 'shutting down', signal });
    // Health answers 503 from now on; no new connections; idle keep-alive connections close at once, busy ones
    // after their answer (Node closes a connection once its last response is written after close()).
    app.state.services.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => {
      log({ level: 'warn', msg: 'requests still running after the grace period: closing their connections' });
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS - 2000);
    force.unref();
    void (async () => {
      let code: number = EXIT.ok;
      try {
        await closed;
        clearTimeout(force);
        await closeApp(deadline);
        log({ level: 'info', msg: 'stopped' });
      } catch (e) {
        code = EXIT.failed;
        say(`Shutdown failed: ${String((e as Error)?.stack ?? e)}`);
      }
      lock?.release();
      process.exitCode = code;
      logger.flush(() => process.exit(code));
    })();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

await main();
