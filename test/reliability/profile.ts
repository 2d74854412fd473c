import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The reliability suite's two sizes: `full` (the numbers, `npm run test:reliability`) and `short`
 * (the default, for `npm test` and CI). Only the amounts change, never what is asserted.
 */
export type ProfileName = 'full' | 'short';

export interface Profile {
  name: ProfileName;
  /** SIGKILLs of the server in the crash test. */
  kills: number;
  /** Attendees seeded for the crash test, and its simulated kiosks. */
  crashAttendees: number;
  crashKiosks: number;
  /** Browser kills during a sync in the kiosk crash test. */
  browserKills: number;
  /** Attendees in the concurrency test (10 kiosks over overlapping sets). */
  concurrencyAttendees: number;
  /** Requests the fuzzer sends. */
  fuzzRequests: number;
  /** Soak duration and connections. */
  soakSeconds: number;
  soakConnections: number;
  /** Venue hub kills in the middle of a push to the site, and site kills in the middle of the hub's batch. */
  hubKills: number;
  siteKills: number;
}

const PROFILES: Record<ProfileName, Profile> = {
  full: {
    name: 'full',
    kills: 50,
    crashAttendees: 1200,
    crashKiosks: 5,
    browserKills: 3,
    concurrencyAttendees: 400,
    fuzzRequests: 10_000,
    soakSeconds: 300,
    soakConnections: 50,
    hubKills: 10,
    siteKills: 10,
  },
  short: {
    name: 'short',
    kills: 8,
    crashAttendees: 240,
    crashKiosks: 4,
    browserKills: 2,
    concurrencyAttendees: 120,
    fuzzRequests: 1_500,
    soakSeconds: 30,
    soakConnections: 50,
    hubKills: 2,
    siteKills: 2,
  },
};

export function profile(): Profile {
  const name = process.env.RELIABILITY_PROFILE === 'full' ? 'full' : 'short';
  return PROFILES[name];
}

/**
 * Where the figures of this run go: test/run-tests.mjs sets RELIABILITY_FIGURES to a fresh file and prints
 * a summary from it at the end; a file run on its own writes beside the other temporary files.
 */
export function figuresFile(): string {
  return process.env.RELIABILITY_FIGURES ?? path.join(os.tmpdir(), `doorstep-reliability-${process.pid}.jsonl`);
}

export type Figures = Record<string, string | number | boolean>;

/** Prints a test's figures and appends them (one JSON line) for the suite's final summary. */
export function report(test: string, figures: Figures): void {
  const line = Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  process.stdout.write(`[reliability:${profile().name}] ${test}: ${line}\n`);
  fs.appendFileSync(figuresFile(), `${JSON.stringify({ test, profile: profile().name, ...figures })}\n`);
}
