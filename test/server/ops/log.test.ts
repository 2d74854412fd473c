import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../server/config.ts';
import { createApp, type App } from '../../../server/app.ts';
import { createLogger, logFunction, withRequestLog } from '../../../server/log.ts';
import { createAppPassword } from '../../../server/auth/credentials.ts';
import { insertUser } from '../../../server/db/repos/users.ts';

/** The server as server/main.ts wires it (pino logger, state.log on it, request IDs), logging into `lines`. */
let dir: string;
let app: App;
let server: http.Server;
let base: string;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-log-'));
  const config = loadConfig({ EVT_DB: path.join(dir, 'evt.sqlite'), EVT_LOG: 'json', EVT_LOG_LEVEL: 'info' });
  const logger = createLogger(config, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  app = await createApp({ config, log: logFunction(logger) });
  server = http.createServer(withRequestLog(app.express, logger));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('structured logs (pino)', () => {
  test('a sane X-Request-Id is kept and echoed; any other is replaced by a new ID; every line of the request carries it', async () => {
    const r = await fetch(`${base}/wp-json/evt/events/v1/events`, { headers: { 'X-Request-Id': 'lb-7f3a.42' } });
    assert.equal(r.headers.get('x-request-id'), 'lb-7f3a.42');
    await settle();
    const rest = lines.find((l) => l.route === '/evt/events/v1/events');
    assert.ok(rest, JSON.stringify(lines));
    assert.equal(rest.req_id, 'lb-7f3a.42');
    assert.equal(rest.level, 'info');
    assert.match(String(rest.time), /^\d{4}-\d\d-\d\dT/);

    for (const bad of ['two words', 'x'.repeat(129), '<script>', 'a;b', '"quoted"']) {
      const b = await fetch(`${base}/health`, { headers: { 'X-Request-Id': bad } });
      assert.match(b.headers.get('x-request-id')!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, bad);
    }
    const fresh = await fetch(`${base}/health`);
    assert.match(fresh.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
  });

  test('no secret reaches the log: Authorization, api_key and password parameters, cookies', async () => {
    const u = await insertUser(app.state.db, { login: 'logger', email: 'l@example.test', role: 'administrator' });
    const { password } = await createAppPassword(app.state.db, u.id, 'test');
    const auth = `Basic ${Buffer.from(`logger:${password}`).toString('base64')}`;
    lines.length = 0;
    await fetch(`${base}/wp-json/evt/events/v1/events?api_key=dsk_1_SECRETKEYSECRETKEYSECRETKEY12&status=draft`, {
      headers: { Authorization: auth, Cookie: 'session=SECRETCOOKIE' },
    });
    await fetch(`${base}/kiosk/?api_key=dsk_1_SECRETKEYSECRETKEYSECRETKEY12&post_password=hunter2`, {
      headers: { Authorization: auth, Cookie: 'session=SECRETCOOKIE' },
    });
    app.state.log({ level: 'warn', msg: 'a module logging too much', headers: { authorization: auth }, password: 'hunter2', api_key: 'dsk_x' });
    await settle();
    const text = JSON.stringify(lines);
    assert.ok(lines.length >= 3, text);
    for (const secret of [password, Buffer.from(`logger:${password}`).toString('base64'), 'SECRETKEY', 'SECRETCOOKIE', 'hunter2', 'dsk_x'])
      assert.ok(!text.includes(secret), `${secret} in ${text}`);
    const access = lines.find((l) => String(l.msg).startsWith('GET /kiosk/'))!;
    assert.match(String(access.msg), /api_key=\[Redacted\]&post_password=\[Redacted\]/);
    assert.equal(lines.find((l) => l.msg === 'a module logging too much')!.level, 'warn');
  });

  test('EVT_LOG_LEVEL drops lines below it; EVT_LOG=off writes none', () => {
    const got: string[] = [];
    const warnOnly = logFunction(createLogger(loadConfig({ EVT_LOG_LEVEL: 'warn' }), { write: (l: string) => void got.push(l) }));
    warnOnly({ level: 'info', msg: 'routine' });
    warnOnly({ level: 'error', msg: 'broken' });
    warnOnly({ msg: 'no level means info' });
    assert.deepEqual(
      got.map((l) => JSON.parse(l).msg),
      ['broken'],
    );
    const off = logFunction(createLogger(loadConfig({ EVT_LOG: 'off' }), { write: (l: string) => void got.push(l) }));
    off({ level: 'fatal', msg: 'silent' });
    assert.equal(got.length, 1);
  });
});
