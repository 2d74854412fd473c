// `npm run audit:electron`: the shell's security review (issue 6, item 5). Exit 1 on any HIGH finding.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatFindings, hasHigh } from './findings.ts';
import { reviewRuntime, RUNTIME_CHECKS } from './runtime-review.ts';
import { reviewSources, STATIC_CHECKS } from './static-review.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The shell's sources: electron/*.ts except the build tooling, which never runs inside Electron. */
export function shellSources(): { path: string; text: string }[] {
  const tooling = new Set(['build.ts', 'launch.ts']);
  return readdirSync(path.join(root, 'electron'))
    .filter((name) => name.endsWith('.ts') && !tooling.has(name))
    .sort()
    .map((name) => ({ path: `electron/${name}`, text: readFileSync(path.join(root, 'electron', name), 'utf8') }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sources = shellSources();
  const staticFindings = reviewSources(sources);
  const runtimeFindings = await reviewRuntime();
  process.stdout.write('Electron shell security review\n');
  process.stdout.write(`  source: ${STATIC_CHECKS.length} checks over ${sources.length} files (${sources.map((file) => file.path).join(', ')})\n`);
  process.stdout.write(`  runtime: the shell started against the fake electron, ${RUNTIME_CHECKS.length} probes (${RUNTIME_CHECKS.join('; ')})\n\n`);
  process.stdout.write(`Source review\n${formatFindings(staticFindings)}\n\nRuntime review\n${formatFindings(runtimeFindings)}\n`);
  const failed = hasHigh([...staticFindings, ...runtimeFindings]);
  process.stdout.write(`\n${failed ? 'FAIL: HIGH findings above' : 'PASS: no HIGH findings'}\n`);
  process.exitCode = failed ? 1 : 0;
}
