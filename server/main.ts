import http from 'node:http';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/connection.ts';
import { ensureAdmin } from './auth/credentials.ts';
import { createApp } from './http/app.ts';
import { hardenServer } from './http/harden.ts';

/** `npm start`: migrate the database, make sure the configured administrator exists, serve. */
function main(): void {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
  const db = openDatabase(config.dbFile);
  if (config.adminUser && config.adminPassword) {
    const { created } = ensureAdmin(db, config.adminUser, config.adminPassword);
    process.stdout.write(`${created ? 'Created' : 'Updated'} administrator "${config.adminUser}".\n`);
  }
  const app = createApp({ config, db });
  const server = http.createServer(app.express);
  hardenServer(server, config);
  server.listen(config.port, config.host, () => {
    process.stdout.write(`Doorstep is serving ${config.publicUrl}/wp-json/ (database ${config.dbFile}); the door kiosk is at ${config.publicUrl}/kiosk/\n`);
  });
  server.on('error', (e) => {
    process.stderr.write(`Cannot listen on ${config.host}:${config.port}: ${(e as Error).message}\n`);
    process.exit(1);
  });
  const stop = () => {
    server.close(() => {
      app.close();
      process.exit(0);
    });
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
