import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../helpers/net.ts';

/**
 * `npm start` as an operator runs it: the built server (dist/server/main.js; the CI builds before `npm test`,
 * and this file builds the server bundle if it is missing), through npm, signalled as a service manager or a
 * terminal would.
 */
const root = path.resolve(import.meta.dirname, '../../..');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-start-'));
  if (!fs.existsSync(path.join(root, 'dist/server/main.js')) || !fs.existsSync(path.join(root, 'dist/server/cli.js'))) {
    execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: root, stdio: 'inherit' });
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The process and all its descendants (Linux /proc). */
function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(rootPid);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie (exited, not yet reaped) counts as ended.
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

interface Running {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function spawnNpm(args: string[], env: Record<string, string>): Running {
  const proc = spawn('npm', args, { cwd: root, env: { ...process.env, EVT_LOG: 'json', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  proc.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, out: () => text, exited };
}

async function waitHealthy(port: number, running: Running): Promise<void> {
  let done = false;
  void running.exited.then(() => (done = true));
  for (let i = 0; i < 600; i++) {
    if (done) throw new Error(`exited before serving: ${running.out()}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no /health 200 in 30 s: ${running.out()}`);
}

function cli(env: Record<string, string>, ...args: string[]): string {
  return execFileSync(process.execPath, ['dist/server/cli.js', ...args], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
}

describe('npm start (the build, plain node)', () => {
  test('SIGTERM to the npm process ends every process of it within 10 s, exit code 0, the database closed with its data', async () => {
    const port = await freePort();
    const db = path.join(dir, 'term', 'evt.sqlite');
    const env = { PORT: String(port), HOST: '127.0.0.1', EVT_DB: db };
    const running = spawnNpm(['start'], env);
    await waitHealthy(port, running);
    // A write while it runs (the CLI, beside the server), and one through the server.
    cli(env, 'user', 'add', 'keeper', '--role', 'organizer');
    const password = cli(env, 'app-password', 'create', 'keeper').trim().split('\n').pop()!;
    const created = await fetch(`http://127.0.0.1:${port}/wp-json/evt/events/v1/venues`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`keeper:${password}`).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ venue: 'Kept Hall' }),
    });
    assert.equal(created.status, 201, await created.text());
    const pids = processTree(running.proc.pid!);
    assert.ok(pids.length >= 2, `npm and the server: ${pids.join(', ')}`);
    assert.ok(!/tsx/.test(pids.map((p) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8')).join(' ')), 'no TypeScript loader in production');

    const sent = Date.now();
    running.proc.kill('SIGTERM');
    const code = await Promise.race([running.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
    assert.equal(code, 0, `npm start's exit code after SIGTERM: ${running.out()}`);
    while (pids.some(alive) && Date.now() - sent < 10_000) await new Promise((r) => setTimeout(r, 50));
    const left = pids.filter(alive);
    for (const p of left) process.kill(p, 'SIGKILL');
    assert.deepEqual(left, [], 'every process of npm start ended within 10 s');
    assert.match(running.out(), /"msg":"stopped"/);

    assert.ok(!fs.existsSync(`${db}-wal`), 'the WAL was checkpointed and removed: the database was closed');
    const check = new Database(db, { readonly: true });
    try {
      assert.equal((check.prepare("SELECT COUNT(*) AS n FROM posts WHERE type = 'venue' AND title = 'Kept Hall'").get() as { n: number }).n, 1);
      assert.equal((check.prepare("SELECT COUNT(*) AS n FROM users WHERE login = 'keeper'").get() as { n: number }).n, 1);
    } finally {
      check.close();
    }
  });

  test('SIGINT (Ctrl-C) stops it the same way', async () => {
    const port = await freePort();
    const running = spawnNpm(['start'], { PORT: String(port), HOST: '127.0.0.1', EVT_DB: path.join(dir, 'int', 'evt.sqlite') });
    await waitHealthy(port, running);
    const pids = processTree(running.proc.pid!);
    running.proc.kill('SIGINT');
    assert.equal(await running.exited, 0, running.out());
    const sent = Date.now();
    while (pids.some(alive) && Date.now() - sent < 10_000) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(pids.filter(alive), []);
  });

  test('a second server on the same database refuses to start (exit 3) and names the holder; the first keeps serving', async () => {
    const port = await freePort();
    const db = path.join(dir, 'lock', 'evt.sqlite');
    const first = spawnNpm(['start'], { PORT: String(port), HOST: '127.0.0.1', EVT_DB: db });
    await waitHealthy(port, first);
    const serverPid = processTree(first.proc.pid!).find((p) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('dist/server/main.js'))!;
    const second = spawnNpm(['start'], { PORT: String(await freePort()), HOST: '127.0.0.1', EVT_DB: db });
    const code = await second.exited;
    assert.ok(code !== 0, 'npm reports the failure');
    assert.match(second.out(), new RegExp(`another Doorstep server \\(process ${serverPid}\\) is already running on this database`));
    assert.doesNotMatch(second.out(), /Doorstep is serving/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
    // The exit code itself, without npm in between.
    const direct = spawn(process.execPath, ['dist/server/main.js'], { cwd: root, env: { ...process.env, PORT: '0', EVT_DB: db }, stdio: 'ignore' });
    assert.equal(await new Promise((r) => direct.on('exit', r)), 3);

    // A server killed outright leaves no lock behind: the kernel drops it with the process.
    process.kill(serverPid, 'SIGKILL');
    await first.exited;
    const port2 = await freePort();
    const third = spawnNpm(['start'], { PORT: String(port2), HOST: '127.0.0.1', EVT_DB: db });
    await waitHealthy(port2, third);
    third.proc.kill('SIGTERM');
    assert.equal(await third.exited, 0);
  });

  test('a port in use: a clear message, exit 1, and no start banner', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const proc = spawn(process.execPath, ['dist/server/main.js'], {
        cwd: root,
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', EVT_DB: path.join(dir, 'inuse', 'evt.sqlite') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      assert.equal(await new Promise((r) => proc.on('exit', r)), 1);
      assert.match(out, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`));
      assert.doesNotMatch(out, /Doorstep is serving/);
    } finally {
      blocker.close();
    }
  });

  test('a database it cannot open: one line naming it (never its password) and why, exit 1, no stack trace', async () => {
    const cases = [
      // Nothing listens on port 1: PostgreSQL refuses the connection.
      {
        db: 'postgresql://doorstep:s3cret-pw@127.0.0.1:1/doorstep',
        says: /Cannot open the database postgresql:\/\/doorstep:\*\*\*@127\.0\.0\.1:1\/doorstep: .*(?:Connection refused|ECONNREFUSED)/,
      },
      // A SQLite file whose folder cannot be made (a file stands where the folder would be).
      { db: path.join(dir, 'not-a-folder', 'sub', 'evt.sqlite'), says: /Cannot open the database \S+not-a-folder\/sub\/evt\.sqlite: ENOTDIR/ },
    ];
    fs.writeFileSync(path.join(dir, 'not-a-folder'), 'a file');
    for (const c of cases) {
      const proc = spawn(process.execPath, ['dist/server/main.js'], {
        cwd: root,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', EVT_DB: c.db },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      assert.equal(await new Promise((r) => proc.on('exit', r)), 1, out);
      assert.match(out, c.says);
      assert.doesNotMatch(out, /s3cret-pw|\n\s+at |Doorstep is serving/);
    }
  });

  test('an invalid time zone stops it at start-up with exit code 2 and says which variable', async () => {
    const proc = spawn(process.execPath, ['dist/server/main.js'], {
      cwd: root,
      env: { ...process.env, EVT_TIMEZONE: 'Mars/Olympus_Mons', EVT_DB: path.join(dir, 'tz', 'evt.sqlite') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    assert.equal(await new Promise((r) => proc.on('exit', r)), 2);
    assert.match(err, /Invalid configuration:\n\s+EVT_TIMEZONE: must be an IANA time zone name/);
    assert.ok(!fs.existsSync(path.join(dir, 'tz', 'evt.sqlite')), 'nothing was created');
  });
});
