import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { shellSources } from '../electron/audit.ts';
import type { Finding } from '../electron/findings.ts';
import { reviewRuntime, startRealShell } from '../electron/runtime-review.ts';
import { reviewSources } from '../electron/static-review.ts';
import { REPO } from './child-server.ts';
import { report } from './profile.ts';

/**
 * Issue 6 item 5, in the reliability suite: the Electron shell's security review (the same checks as
 * `npm run audit:electron`, test/electron/) has no HIGH finding, in its sources nor in the running shell.
 */

const count = (f: Finding[], s: Finding['severity']) => f.filter((x) => x.severity === s).length;

describe('Electron shell security review', () => {
  test('no HIGH finding in the sources or the running shell, and npm run audit:electron passes', async () => {
    const sources = reviewSources(shellSources());
    const runtime = await reviewRuntime(startRealShell);
    const all = [...sources, ...runtime];
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/electron/audit.ts'], { cwd: REPO, encoding: 'utf8' });
    report('electron', {
      high: count(all, 'HIGH'),
      medium: count(all, 'MEDIUM'),
      low: count(all, 'LOW'),
      info: count(all, 'INFO'),
      audit_exit: run.status ?? -1,
    });
    assert.deepEqual(
      all.filter((f) => f.severity === 'HIGH'),
      [],
    );
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /PASS: no HIGH findings/);
  });
});
