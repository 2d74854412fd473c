import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase, type Db } from '../../../server/db/connection.ts';
import type { SharedState } from '../../../server/db/change-feed.ts';
import { createApp, type App } from '../../../server/app.ts';
import { createAppPassword } from '../../../server/auth/credentials.ts';
import { insertUser } from '../../../server/db/repos/users.ts';
import { freshTestDatabase, testDbWanted } from '../../helpers/pg-cluster.ts';

export interface Side {
  root: string;
  db: Db;
  app: App;
}

export interface TwoApps {
  a: Side;
  b: Side;
  /** `Authorization` for a new user of the role (written through A's connection). */
  userAuth: (role: 'administrator' | 'organizer', login: string) => Promise<{ auth: string; password: string }>;
  close: () => Promise<void>;
}

/**
 * Two apps on ONE SQLite file, each on its own connection and port: two server processes on one database as
 * far as the database can tell (no server lock: `createApp` directly). `mode` is both apps' shared state.
 * With `EVT_TEST_DB=postgres`, on one fresh PostgreSQL database instead.
 */
export async function startTwoApps(mode: SharedState): Promise<TwoApps> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-shared-'));
  const pg = testDbWanted() ? await freshTestDatabase() : null;
  const dbFile = pg ? pg.url : path.join(dir, 'evt.sqlite');
  const servers: http.Server[] = [];
  const apps: App[] = [];
  const side = async (): Promise<Side> => {
    const db = await openDatabase(dbFile);
    const server = await new Promise<http.Server>((resolve) => {
      const s = http.createServer();
      s.listen(0, '127.0.0.1', () => resolve(s));
    });
    const port = (server.address() as AddressInfo).port;
    const config = loadConfig({ EVT_DB: dbFile, PORT: String(port), HOST: '127.0.0.1', EVT_LOG: 'off', EVT_DATA_DIR: dir });
    const app = await createApp({ config, db, sharedState: mode });
    server.on('request', app.express);
    servers.push(server);
    apps.push(app);
    return { root: `http://127.0.0.1:${port}/wp-json/`, db, app };
  };
  const a = await side();
  const b = await side();
  return {
    a,
    b,
    userAuth: async (role, login) => {
      const u = await insertUser(a.db, { login, email: `${login}@example.test`, role });
      const { password } = await createAppPassword(a.db, u.id, 'test');
      return { auth: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`, password };
    },
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
      for (const app of apps) await app.close();
      pg?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
