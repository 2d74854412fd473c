import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { kioskCrashScenario } from './kiosk-crash.ts';
import { profile, report } from './profile.ts';

/**
 * Issue 6 item 1, the kiosk's side: the real kiosk in headless Chromium (persistent profile) has its browser
 * process SIGKILLed while a sync is in flight, then relaunched; nothing it had queued is lost and no attendee
 * is admitted twice (see kiosk-crash.ts for the rounds).
 */

const P = profile();

describe('crash safety of the kiosk (SIGKILL of Chromium)', { timeout: 20 * 60_000 }, () => {
  test(`the kiosk's browser killed ${P.browserKills} times during a sync`, { timeout: 10 * 60_000 }, async () => {
    const r = await kioskCrashScenario(P.browserKills);
    report('crash-kiosk', r.figures);
    assert.deepEqual(r.lost, [], 'queued scans lost');
    assert.deepEqual(r.duplicates, [], 'attendees with more than one accepted check-in');
    assert.equal(r.figures.kills_during_sync, P.browserKills);
  });
});
