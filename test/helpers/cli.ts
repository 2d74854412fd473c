import { afterAll, beforeAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../server/cli.ts';

/** A scratch folder for a test file and the environment the operator CLI runs with there. */
export interface CliSandbox {
  dir: string;
  env: Record<string, string>;
  /** Runs `doorstep <argv>` with `env`; the lines it printed. */
  run(...argv: string[]): Promise<string[]>;
}

/**
 * Registers the file's beforeAll (a fresh folder named `prefix`, `env` made from it) and afterAll (the folder
 * removed). `dir` and `env` are set once beforeAll has run; a test may replace `env`.
 */
export function cliSandbox(prefix: string, envIn: (dir: string) => Record<string, string>): CliSandbox {
  const sandbox: CliSandbox = {
    dir: '',
    env: {},
    async run(...argv) {
      const lines: string[] = [];
      await runCli(argv, sandbox.env, (l) => lines.push(l));
      return lines;
    },
  };
  beforeAll(() => {
    sandbox.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    sandbox.env = envIn(sandbox.dir);
  });
  afterAll(() => fs.rmSync(sandbox.dir, { recursive: true, force: true }));
  return sandbox;
}
