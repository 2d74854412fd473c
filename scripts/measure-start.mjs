#!/usr/bin/env node
// Measures `npm start` (or any command): time from spawn to the first 200 of a URL, and the resident memory
// (RSS, from /proc) of every process of it once it answers. Linux only.
// Usage: node scripts/measure-start.mjs [--url-path /health] [--runs 3] [-- command args...]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { 'url-path': { type: 'string', default: '/health' }, runs: { type: 'string', default: '3' } },
  allowPositionals: true,
});
const command = positionals.length ? positionals : ['npm', 'start'];

function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The process and all its descendants, from /proc. */
function tree(root) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {}
  }
  const out = [];
  const walk = (pid) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function once() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-measure-'));
  const port = await freePort();
  const started = performance.now();
  const proc = spawn(command[0], command.slice(1), {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', EVT_DB: path.join(dir, 'evt.sqlite'), EVT_LOG: 'off' },
    stdio: 'ignore',
  });
  let ms;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}${values['url-path']}`);
      await r.arrayBuffer();
      if (r.status === 200) {
        ms = performance.now() - started;
        break;
      }
    } catch {}
    if (performance.now() - started > 30_000) throw new Error('no answer in 30 s');
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 500));
  const pids = tree(proc.pid);
  const names = pids.map((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim();
    } catch {
      return '?';
    }
  });
  const rss = pids.reduce((s, p) => s + rssKb(p), 0);
  const exited = new Promise((r) => proc.on('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const p of pids)
      try {
        process.kill(p, 'SIGKILL');
      } catch {}
  }, 10_000);
  await exited;
  clearTimeout(timer);
  // Processes SIGTERM to the top one did not end (the old tsx chain left the server running): count, then end them.
  await new Promise((r) => setTimeout(r, 1000));
  const orphans = pids.filter((p) => {
    try {
      process.kill(p, 0);
      return true;
    } catch {
      return false;
    }
  });
  for (const p of orphans)
    try {
      process.kill(p, 'SIGKILL');
    } catch {}
  fs.rmSync(dir, { recursive: true, force: true });
  return { ms, rssMb: rss / 1024, processes: names, orphans: orphans.length };
}

const runs = Number(values.runs);
const results = [];
for (let i = 0; i < runs; i++) results.push(await once());
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
process.stdout.write(
  `${command.join(' ')}: first 200 on ${values['url-path']} after ${median(results.map((r) => r.ms)).toFixed(0)} ms (median of ${runs}), ` +
    `RSS ${median(results.map((r) => r.rssMb)).toFixed(0)} MB over ${results[0].processes.length} processes (${results[0].processes.join(', ')}), ` +
    `processes still running 1 s after SIGTERM to the first: ${results.map((r) => r.orphans).join(', ')}\n`,
);
