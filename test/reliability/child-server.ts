import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export { freePort } from '../helpers/net.ts';

export interface ChildServer {
  port: number;
  base: string;
  /** `http://127.0.0.1:PORT/wp-json/` */
  root: string;
  pid(): number | null;
  /** Starts the server and resolves once it listens. */
  start(): Promise<void>;
  /** SIGKILL, then waits for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), then waits. */
  stop(): Promise<void>;
  /** Resident set size in KiB from /proc/<pid>/status, or null when not running. */
  rssKiB(): number | null;
  /**
   * The RSS split as /proc/<pid>/status gives it (KiB): `anon` (heap, SQLite page cache), `file` (mapped
   * files: code, and the database read through mmap), `shmem` (the WAL index).
   */
  memKiB(): { rss: number; anon: number; file: number; shmem: number } | null;
  /** The last lines the server wrote to stderr (for failure messages). */
  stderr(): string;
}

/**
 * The real server as `npm start` runs it (`node --import tsx server/main.ts`), on 127.0.0.1 with its own
 * SQLite file: the only way to test what a SIGKILL does to it.
 */
export function childServer(o: { dbFile: string; port: number; env?: Record<string, string>; nodeArgs?: string[] }): ChildServer {
  let proc: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let errTail = '';
  const base = `http://127.0.0.1:${o.port}`;
  const env = {
    ...process.env,
    PORT: String(o.port),
    HOST: '127.0.0.1',
    EVT_DB: o.dbFile,
    EVT_DATA_DIR: path.dirname(o.dbFile),
    EVT_LOG: 'off',
    ...(o.env ?? {}),
  };
  const waitExit = async () => {
    await exited;
    proc = null;
  };
  return {
    port: o.port,
    base,
    root: `${base}/wp-json/`,
    pid: () => proc?.pid ?? null,
    stderr: () => errTail,
    start() {
      if (proc) throw new Error('server already running');
      const child = spawn(process.execPath, [...(o.nodeArgs ?? []), '--import', 'tsx', 'server/main.ts'], {
        cwd: REPO,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      proc = child;
      exited = new Promise((resolve) => child.once('exit', () => resolve()));
      child.stderr!.on('data', (c: Buffer) => {
        errTail = (errTail + c.toString()).slice(-4000);
      });
      return new Promise<void>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`server did not start within 120 s: ${errTail}`)), 120_000);
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('Doorstep is serving')) {
            clearTimeout(timer);
            out = '';
            resolve();
          }
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`server exited during start-up (${code ?? signal}): ${errTail}`));
        });
      });
    },
    async kill() {
      if (!proc) return;
      proc.kill('SIGKILL');
      await waitExit();
    },
    async stop() {
      if (!proc) return;
      proc.kill('SIGTERM');
      await waitExit();
    },
    rssKiB() {
      return this.memKiB()?.rss ?? null;
    },
    memKiB() {
      const pid = proc?.pid;
      if (!pid) return null;
      let status: string;
      try {
        status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      } catch {
        return null;
      }
      const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? NaN);
      const rss = field('VmRSS');
      return Number.isNaN(rss) ? null : { rss, anon: field('RssAnon'), file: field('RssFile'), shmem: field('RssShmem') };
    },
  };
}
