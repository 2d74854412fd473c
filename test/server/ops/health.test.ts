import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createApp } from '../../../server/app.ts';
import { loadConfig } from '../../../server/config.ts';
import { openDatabase } from '../../../server/db/connection.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('GET /health (CONTRACT section 2)', () => {
  test('200 {"status":"ok"} while the database answers, never cached, outside every namespace', async () => {
    for (const p of ['/health', '/health/', '/HEALTH']) {
      const r = await fetch(`${s.base}${p}`);
      assert.equal(r.status, 200, p);
      assert.deepEqual(await r.json(), { status: 'ok' });
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.match(r.headers.get('content-type')!, /^application\/json/);
    }
    const head = await fetch(`${s.base}/health`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    // Not a REST route: the namespaces do not answer it.
    assert.equal((await fetch(`${s.base}/wp-json/health`)).status, 404);
  });

  test('503 while shutting down, and when the database does not answer', async () => {
    s.app.state.services.draining = true;
    const draining = await fetch(`${s.base}/health`);
    assert.equal(draining.status, 503);
    assert.deepEqual(await draining.json(), { status: 'unavailable' });
    s.app.state.services.draining = false;
    assert.equal((await fetch(`${s.base}/health`)).status, 200);

    // A server whose database connection is gone (closed under it, as after a fatal error).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-health-'));
    const db = await openDatabase(path.join(dir, 'evt.sqlite'));
    const app = await createApp({ config: loadConfig({ EVT_DB: path.join(dir, 'evt.sqlite'), EVT_LOG: 'off' }), db });
    const srv = app.express.listen(0, '127.0.0.1');
    await new Promise((r) => srv.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/health`;
      assert.equal((await fetch(url)).status, 200);
      await db.close();
      const r = await fetch(url);
      assert.equal(r.status, 503);
      assert.deepEqual(await r.json(), { status: 'unavailable' });
      assert.equal(r.headers.get('cache-control'), 'no-store');
    } finally {
      await new Promise((r) => srv.close(r));
      await app.state.services.checkpointer?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
