import pg from 'pg';
import { PsqlAdmin } from '../helpers/psql.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { spawnDelayProxy, type DelayProxyProcess, type ProxyTarget } from './delay-proxy.ts';

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The serving process's CPU time (user + system) per answered request, in microseconds (`loadOn`). */
  cpuUs?: number;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * `load` against the target process `pid`, with its CPU time per answered request: on a shared machine a rate
 * moves with the others' load, the server's own CPU time per request much less.
 */
export async function loadOn(pid: number, name: string, opts: Parameters<typeof load>[1]): Promise<Figures> {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const f = await load(name, opts);
  const seconds = (performance.now() - t0) / 1000;
  return { ...f, cpuUs: ((cpuSeconds(pid) - cpu0) * 1e6) / (f.rps * seconds) };
}

/**
 * Starts a target script with tsx and resolves once it prints `LISTENING <port>`. With BENCH_CPU_PROF=<dir> the
 * target writes a V8 CPU profile there when the bench stops it (open it in Chrome DevTools).
 */
export function startTarget(script: string, env: Record<string, string>): Promise<{ proc: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), '--import', 'tsx', script],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 60 s`)), 60_000);
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /LISTENING (\d+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]) });
      }
    });
    proc.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export async function load(
  name: string,
  opts: { url: string; paths?: string[]; connections?: number; duration?: number; headers?: Record<string, string> },
): Promise<Figures> {
  let i = 0;
  const paths = opts.paths;
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections ?? 20,
    duration: opts.duration ?? 8,
    headers: opts.headers,
    requests: paths ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: paths[i++ % paths.length] }) }] : undefined,
  });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Rows with their ratio to `baseline`, and to `second` too when given (a column beside, named by `secondName`). */
export function table(rows: Figures[], baseline: Figures, second?: Figures, secondName = 'vs (d)'): string {
  const cpu = rows.some((r) => r.cpuUs !== undefined);
  const lines = [
    `${'measure'.padEnd(46)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'ratio'.padStart(6)}${second ? ` ${secondName.padStart(7)}` : ''} ${'errors'.padStart(6)}${cpu ? ' server CPU us/req' : ''}`,
  ];
  for (const r of rows) {
    lines.push(
      `${r.name.padEnd(46)} ${r.rps.toFixed(0).padStart(9)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${(r.rps / baseline.rps).toFixed(2).padStart(6)}${second ? ` ${(r.rps / second.rps).toFixed(2).padStart(7)}` : ''} ${String(r.errors + r.non2xx).padStart(6)}${cpu ? ` ${(r.cpuUs ?? Number.NaN).toFixed(0).padStart(17)}` : ''}`,
    );
  }
  return lines.join('\n');
}

/** Stops the targets and removes the bench's scratch folder. */
export function stopTargets(dir: string, ...targets: { proc: ChildProcess }[]): void {
  for (const t of targets) t.proc.kill();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Runs a bench's `main`; a failure prints its stack and exits with 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}

/** The PostgreSQL side of a bench: a database holding a copy of the bench's SQLite site. */
export interface PgSide {
  url: string;
  /** Where the cluster came from: EVT_DB, EVT_TEST_PG_URL or a private cluster. */
  origin: string;
  /** PostgreSQL backends serving the database (their CPU is the database's share of the work). */
  backends: () => number[];
  close: () => void;
}

/**
 * The PostgreSQL side beside SQLite: a fresh database on the cluster `EVT_DB=postgres://…` names (else
 * EVT_TEST_PG_URL, else a private cluster, initdb'd for this run and removed after), filled by the same copy
 * `cli migrate-to-postgres` makes of the SQLite file just seeded, so both engines serve the same rows.
 * BENCH_ENGINES=sqlite skips it; null too (with the reason printed) when PostgreSQL is not installed.
 */
export async function pgSide(sqliteFile: string, prefix: string, say: (line: string) => void): Promise<PgSide | null> {
  if (process.env.BENCH_ENGINES === 'sqlite') return null;
  const { createDatabase, pgCluster, pgUnavailable } = await import('../reliability/pg-site.ts');
  const { migrateToPostgres } = await import('../../server/ops/copy-to-postgres.ts');
  const given = /^postgres(?:ql)?:\/\//.test(process.env.EVT_DB ?? '') ? (process.env.EVT_DB as string) : null;
  if (!given) {
    const missing = pgUnavailable();
    if (missing) {
      say(`PostgreSQL side skipped: ${missing}`);
      return null;
    }
  }
  const cluster = given ? { url: given, origin: 'EVT_DB', stop: () => {} } : await pgCluster();
  const db = createDatabase(cluster.url, prefix);
  try {
    const t0 = performance.now();
    const report = await migrateToPostgres(sqliteFile, db.url, () => {});
    if (!report.committed) throw new Error('the copy to PostgreSQL did not verify');
    analyzePg(db.url);
    say(`copied the site to PostgreSQL (${cluster.origin}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (e) {
    db.drop();
    cluster.stop();
    throw e;
  }
  return {
    url: db.url,
    origin: cluster.origin,
    backends: db.backends,
    close: () => {
      db.drop();
      cluster.stop();
    },
  };
}

/** CPU seconds the processes `pids` have used so far (0 for one that is gone). */
export function cpuOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (Number.isNaN(cpuSeconds(pid)) ? 0 : cpuSeconds(pid)), 0);
}

/**
 * ANALYZE on the PostgreSQL database `url`: the statistics autovacuum gathers within a minute or so of a copy or of
 * a table's growth. Until then the plans a server prepared for a near-empty table (the check-in log at doors
 * opening) stay sequential scans; the benches measure the steady state.
 */
export function analyzePg(url: string): void {
  new PsqlAdmin(url).querySync('ANALYZE');
}

/** BENCH_PG_RTT_MS: the round-trip time the delay proxy adds between the servers and PostgreSQL (default 1 ms). */
export function pgRttMs(): number {
  const ms = Number(process.env.BENCH_PG_RTT_MS ?? 1);
  if (!(ms >= 0)) throw new Error(`BENCH_PG_RTT_MS must be a number of milliseconds >= 0, not ${process.env.BENCH_PG_RTT_MS}`);
  return ms;
}

/** The PostgreSQL server a postgres:// URL names, as the proxy reaches it: its unix socket when the host is a folder. */
export function pgProxyTarget(url: string): ProxyTarget {
  const u = new URL(url);
  const host = decodeURIComponent(u.hostname) || '127.0.0.1';
  const port = Number(u.port || 5432);
  return host.startsWith('/') ? { path: path.join(host, `.s.PGSQL.${port}`) } : { host, port };
}

/** A PostgreSQL delay proxy in its own process, and the URL of any database of its cluster through it. */
export interface PgProxy extends DelayProxyProcess {
  rttMs: number;
  through: (url: string) => string;
}

/** Starts the delay proxy in front of the cluster `url` names, adding `rttMs` to each round trip. */
export async function startPgProxy(url: string, rttMs: number): Promise<PgProxy> {
  const p = await spawnDelayProxy(pgProxyTarget(url), rttMs, { traceFile: process.env.BENCH_PG_TRACE });
  return {
    ...p,
    rttMs,
    through: (dbUrl) => {
      const u = new URL(dbUrl);
      u.hostname = '127.0.0.1';
      u.port = String(p.port);
      return u.toString();
    },
  };
}

/**
 * The median of `n` `SELECT 1` round trips on one connection to `url`, in ms: through the proxy, the round-trip
 * time the servers see, through node-postgres as the server talks.
 */
export async function selectOneMs(url: string, n = 50): Promise<number> {
  const times: number[] = [];
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SELECT 1');
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await c.query('SELECT 1');
      times.push(performance.now() - t0);
    }
  } finally {
    await c.end();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * Round trips a request of one kind makes, from the proxy's counter: `n` requests one after another (`one(2)` to
 * `one(n + 1)`, after `one(0)` and `one(1)`, not counted, which warm caches and open connections), and `settleMs`
 * after them for the work a request leaves for later (its mail; the analytics views a read records, written a second
 * later). The servers' timers (the hold sweep, once a minute) would count too: turns seen in a quiet half
 * second before are printed as a warning, not subtracted. With BENCH_PG_TRACE=<file> the statements of each
 * counted round trip go there, one line each, under `label`.
 */
export async function roundTripsPer(
  proxy: PgProxy,
  label: string,
  n: number,
  one: (i: number) => Promise<unknown>,
  settleMs = 1500,
): Promise<number> {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await one(0);
  await one(1);
  await sleep(settleMs);
  const quiet = (await proxy.counts()).roundTrips;
  await sleep(500);
  const before = (await proxy.counts()).roundTrips;
  if (before > quiet)
    process.stdout.write(`(round trips: ${before - quiet} in a quiet half second before counting; a server timer may add to the next figure)\n`);
  await proxy.trace(label);
  for (let i = 2; i < n + 2; i++) await one(i);
  await sleep(settleMs);
  const after = (await proxy.trace(null)) as { roundTrips: number };
  return (after.roundTrips - before) / n;
}

/** `met` or `missed` with the figure and its target, one line. */
export function targetLine(name: string, figure: string, met: boolean): string {
  return `target ${name.padEnd(58)} ${figure.padStart(14)}  ${met ? 'MET' : 'MISSED'}`;
}

/**
 * The machine's load beside the targets: past one runnable task a core (5-minute load average), other work holds
 * the cores, the RTT-0 figure is bound by it too, and a ratio RTT/RTT0 near 1 may say only that.
 */
export function loadNote(): string {
  const [one, five] = os.loadavg();
  const cores = os.cpus().length;
  return `load average ${one!.toFixed(1)} (5 min: ${five!.toFixed(1)}) on ${cores} cores${five! > cores ? ': other work holds the cores, so RTT 0 is slowed by it too and the ratios RTT/RTT0 overstate what is kept; compare on a quieter machine' : ''}`;
}
