import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { createApp } from '../../server/http/app.ts';

/** The Doorstep app on an existing database, logging off, on a free port. */
const db = openDatabase(process.env.EVT_DB!);
const config = loadConfig({ ...process.env, PORT: '0', EVT_LOG: 'off' });
const app = createApp({ config, db });
const server = app.express.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.on('SIGTERM', () => process.exit(0));
