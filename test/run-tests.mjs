// Runs the test suite with node's test runner (Node 20 has no glob in --test): every test/**/*.test.ts
// except benchmarks, or only those under the folders given as arguments.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['test'];

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'bench' && name !== 'node_modules' && name !== 'fixtures') collect(p, out);
    } else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

const files = roots.flatMap((r) => (statSync(join(root, r)).isDirectory() ? collect(join(root, r), []) : [r])).sort();
if (!files.length) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// A test that hangs fails after 5 minutes instead of stalling the run (25 for the full reliability profile,
// whose crash test alone restarts the server 50 times).
const timeout = process.env.TEST_TIMEOUT_MS ?? (process.env.RELIABILITY_PROFILE === 'full' ? '1500000' : '300000');
// The reliability tests append their figures here; the summary is printed once every file has run.
const figuresDir = mkdtempSync(join(tmpdir(), 'doorstep-figures-'));
const figures = join(figuresDir, 'figures.jsonl');
const env = { ...process.env, RELIABILITY_FIGURES: figures };
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeout}`, ...files], { cwd: root, stdio: 'inherit', env });
child.on('exit', async (code, signal) => {
  if (existsSync(figures)) {
    const { summary } = await import('./reliability/summary.mjs');
    process.stdout.write(`\n${summary(readFileSync(figures, 'utf8'))}`);
  }
  rmSync(figuresDir, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
