import assert from 'node:assert/strict';
import http from 'node:http';
import { afterAll, beforeAll, test } from 'vitest';
import { KEEP_ALIVE_MS } from '../../../server/http/harden.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/*
 * A door scans a guest every few seconds to a minute. With Node's default keep-alive (5 s) the server closed the
 * kiosk's connection in every pause, and the next check-in paid for a new one (a TCP handshake, a TLS one behind
 * https) before its request went. The server keeps an idle connection KEEP_ALIVE_MS (server/http/harden.ts): a
 * request 6 s after the last goes on the same connection. Seen failing with the default put back.
 */

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

function get(agent: http.Agent, url: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

test('an idle connection is kept past a door pause: a request 6 s after the last reuses it', async () => {
  assert.ok(KEEP_ALIVE_MS >= 60_000);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const url = `${s.root}evt/events/v1/events`;
    assert.deepEqual(await get(agent, url), { status: 200, reused: false });
    await new Promise((r) => setTimeout(r, 6_000));
    assert.deepEqual(await get(agent, url), { status: 200, reused: true });
  } finally {
    agent.destroy();
  }
}, 30_000);
