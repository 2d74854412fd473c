import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { ClosingReporter } from './test/vitest-reporter.ts';

// A test that hangs fails after 5 minutes instead of stalling the run (25 for the full reliability profile,
// whose crash test alone restarts the server 50 times). Hooks get the same: a before() that starts a server
// and seeds it must not trip vitest's 10 s hook default on a loaded machine.
const timeout = Number(process.env.TEST_TIMEOUT_MS ?? (process.env.RELIABILITY_PROFILE === 'full' ? 1_500_000 : 300_000));
// The reliability tests append their figures to this file; the reporter prints the summary at the end.
const figuresDir = process.env.RELIABILITY_FIGURES ? undefined : mkdtempSync(join(tmpdir(), 'doorstep-figures-'));
const figures = process.env.RELIABILITY_FIGURES ?? join(figuresDir as string, 'figures.jsonl');
if (figuresDir) process.once('exit', () => rmSync(figuresDir, { recursive: true, force: true }));

// The PostgreSQL pass (`npm run test:postgres`, EVT_TEST_DB=postgres) leaves out what runs the same on either engine,
// so CI stays under its 30 minutes: the kiosk in headless Chromium (test/e2e: the kiosk's side is the browser's,
// and the server answers it reads are the HTTP the PostgreSQL pass tests directly), the kiosk's and the Electron
// shell's tests and security review, and the venue hub's kill profile (its site and hub are SQLite files whatever
// the pass).
// EVT_TEST_PG_ALL=1 runs them on PostgreSQL too.
const sameOnEitherEngine =
  process.env.EVT_TEST_DB === 'postgres' && process.env.EVT_TEST_PG_ALL !== '1'
    ? ['test/e2e/**', 'test/renderer/**', 'test/electron/**', 'test/reliability/hub-kills.test.ts', 'test/reliability/electron.test.ts']
    : [];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', '**/fixtures/**', '**/node_modules/**', ...sameOnEitherEngine],
    // Child processes, not worker threads: the crash and reliability tests spawn and SIGKILL servers and
    // browsers, and better-sqlite3 is a native addon.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: Number(process.env.TEST_CONCURRENCY ?? 2),
    testTimeout: timeout,
    hookTimeout: timeout,
    teardownTimeout: 60_000,
    env: { RELIABILITY_FIGURES: figures },
    // EVT_TEST_DB=postgres: one private PostgreSQL cluster for the run unless EVT_TEST_PG_URL names one.
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    reporters: ['default', new ClosingReporter(figures)],
  },
});
