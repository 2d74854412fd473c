// Kept so `node test/run-tests.mjs [file or folder ...]` still works: it runs vitest (vitest.config.ts) on them.
// `npm test` runs `vitest run` directly.
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const child = spawn(process.execPath, [`${root}node_modules/vitest/vitest.mjs`, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
