// Printed after vitest's own summary (vitest.config.ts lists this reporter after 'default'):
// - the reliability figures summary, from the file the reliability tests append to (RELIABILITY_FIGURES,
//   test/reliability/profile.ts `report`), as test/run-tests.mjs printed it under node:test;
// - one plain closing line, `N passed, N failed, N skipped`, that a CI log reader understands whatever the runner.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';
// @ts-expect-error plain JS module without declarations (the summary is shared with no other runner)
import { summary } from './reliability/summary.mjs';

export class ClosingReporter implements Reporter {
  constructor(private readonly figures: string) {}

  onTestRunStart(): void {
    // Figures of this run only (watch mode reruns).
    rmSync(this.figures, { force: true });
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let failedHere = 0;
      for (const t of mod.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed to load and a failing beforeAll/afterAll fail a file or a suite, not a test: count each.
      failedHere += mod.errors().length;
      for (const suite of mod.children.allSuites()) failedHere += suite.errors().length;
      if (!failedHere && mod.state() === 'failed') failedHere = 1;
      failed += failedHere;
    }
    failed += unhandledErrors.length;
    if (existsSync(this.figures)) {
      const text = summary(readFileSync(this.figures, 'utf8')) as string;
      if (text) process.stdout.write(`\n${text}`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
