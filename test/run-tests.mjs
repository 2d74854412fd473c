// Runs the test suite with node's test runner (Node 20 has no glob in --test): every test/**/*.test.ts
// except benchmarks, or only those under the folders given as arguments.
import { readdirSync, statSync } from 'node:fs';
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
// A test that hangs fails after 5 minutes instead of stalling the run.
const timeout = process.env.TEST_TIMEOUT_MS ?? '300000';
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeout}`, ...files], { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
