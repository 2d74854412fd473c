import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { call } from '../helpers/server.ts';
import { freePort } from '../helpers/net.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-main-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Starts the server from its TypeScript source (as `npm run dev` does) and waits for its banner (on stderr). */
async function start(env: Record<string, string>): Promise<{ proc: ChildProcess; out: string[] }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, EVT_LOG: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no start: ${out.join('')}`)), 30_000);
    const onData = (d: Buffer) => {
      out.push(d.toString());
      if (/serving/.test(out.join(''))) {
        clearTimeout(t);
        resolve();
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`exited ${code}: ${out.join('')}`));
    });
  });
  return { proc, out };
}

function stop(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    proc.removeAllListeners('exit');
    proc.on('exit', (code) => resolve(code));
    proc.kill('SIGTERM');
  });
}

describe('npm start', () => {
  test('migrates a new database, creates the administrator, and resets its password on the next start', async () => {
    const port = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      EVT_DB: path.join(dir, 'nested', 'evt.sqlite'),
      EVT_ADMIN_USER: 'admin',
      EVT_ADMIN_PASSWORD: 'first password 123',
    };
    const first = await start(env);
    assert.match(first.out.join(''), /Created administrator "admin"/);
    const root = `http://127.0.0.1:${port}/wp-json/`;
    const auth = (p: string) => `Basic ${Buffer.from(`admin:${p}`).toString('base64')}`;
    const created = await call(`${root}evt/events/v1/events`, {
      method: 'POST',
      auth: auth('first password 123'),
      body: { title: 'Opening', start_date: '2031-01-01 10:00', end_date: '2031-01-01 12:00' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.rest_url, `http://127.0.0.1:${port}/wp-json/evt/events/v1/events/${created.body.id}`);
    assert.equal(await stop(first.proc), 0);

    const second = await start({ ...env, EVT_ADMIN_PASSWORD: 'second password 456', EVT_PUBLIC_URL: 'https://tickets.example.org' });
    assert.match(second.out.join(''), /Updated administrator "admin"/);
    assert.equal((await call(`${root}evt/events/v1/events`, { auth: auth('first password 123') })).status, 401);
    const read = await call(`${root}evt/events/v1/events/${created.body.id}`, { auth: auth('second password 456') });
    assert.equal(read.status, 200);
    assert.equal(read.body.rest_url, `https://tickets.example.org/wp-json/evt/events/v1/events/${created.body.id}`);
    assert.equal(await stop(second.proc), 0);
  });

  test('bad configuration stops with a clear message', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => proc.on('exit', r));
    assert.equal(code, 2);
    assert.match(err, /Invalid configuration:\n\s+PORT/);
  });

  test('an administrator name without its password stops with exit 2, naming the missing variable', async () => {
    const env = { ...process.env };
    delete env.EVT_ADMIN_PASSWORD;
    const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: { ...env, EVT_ADMIN_USER: 'admin', EVT_DB: path.join(dir, 'admin-only.sqlite') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => proc.on('exit', r));
    assert.equal(code, 2);
    assert.match(err, /EVT_ADMIN_PASSWORD: must be set together with EVT_ADMIN_USER/);
  });
});
