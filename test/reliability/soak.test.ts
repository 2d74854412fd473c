import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { childServer, freePort } from './child-server.ts';
import { profile, report } from './profile.ts';
import { integrityCheck, openForCheck, removeSite, seedSite } from './seed.ts';
import { slope, soak } from './soak-load.ts';

/**
 * Issue 6 item 6: 50 connections of mixed reads and check-ins (autocannon, 127.0.0.1) against the server in
 * its own process, for 5 minutes in the full profile: no errors, no 5xx, every check-in answered 201, and
 * memory flat (the server's RSS from /proc, sampled every few seconds: start, peak, end, last-half slope).
 */

const P = profile();

describe('soak', { timeout: 20 * 60_000 }, () => {
  test(`${P.soakConnections} connections for ${P.soakSeconds} s`, { timeout: (P.soakSeconds + 240) * 1000 }, async () => {
    const site = seedSite(5000);
    const server = childServer({ dbFile: site.dbFile, port: await freePort() });
    const samples: { t: number; v: number }[] = [];
    let timer: NodeJS.Timeout | undefined;
    try {
      await server.start();
      const t0 = Date.now();
      const sample = () => {
        const kib = server.rssKiB();
        if (kib !== null) samples.push({ t: (Date.now() - t0) / 1000, v: kib / 1024 });
      };
      sample();
      timer = setInterval(sample, P.soakSeconds > 60 ? 3000 : 1000);
      const { result, counts } = await soak({
        base: server.base, eventId: site.eventId, attendeeIds: site.attendeeIds, doorKey: site.auth.doorKey.replace(/^Bearer /, ''),
        connections: P.soakConnections, seconds: P.soakSeconds,
      });
      clearInterval(timer);
      sample();
      await server.stop();
      const db = openForCheck(site.dbFile);
      let integrity;
      try {
        integrity = integrityCheck(db);
      } finally {
        db.close();
      }
      const mem = samples.map((s) => s.v);
      const lastHalf = samples.filter((s) => s.t >= samples.at(-1)!.t / 2);
      const slopePerMin = slope(lastHalf) * 60;
      const fivexx = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => Number(code) >= 500).reduce((s, [, v]) => s + v.count, 0);
      report('soak', {
        connections: P.soakConnections, seconds: P.soakSeconds, requests: result.requests.total, rps: Math.round(result.requests.average),
        p50_ms: result.latency.p50, p99_ms: result.latency.p99, max_ms: result.latency.max, errors: result.errors, timeouts: result.timeouts,
        non2xx: result.non2xx, '5xx': fivexx, checkins: counts.checkinsSent, checkin_failures: counts.checkinFailures,
        rss_start_mib: mem[0]!.toFixed(1), rss_peak_mib: Math.max(...mem).toFixed(1), rss_end_mib: mem.at(-1)!.toFixed(1),
        rss_last_half_slope_mib_per_min: slopePerMin.toFixed(2), samples: samples.length, integrity,
      });
      for (const s of counts.failureSamples) process.stdout.write(`  ${s}\n`);
      assert.equal(result.errors + result.timeouts, 0, 'connection errors or timeouts');
      assert.equal(result.non2xx, 0, 'non-2xx answers');
      assert.equal(counts.checkinFailures, 0, 'check-ins not answered 201');
      assert.ok(result.requests.total > 0);
      assert.equal(integrity, 'ok');
      // Flat: the RSS settles within the first half minute (V8 heap and SQLite cache warm-up), then saws up
      // and down by some 30-60 MiB as V8 resizes its heap (the live heap after a forced GC stays at ~24 MiB
      // over minutes of this load). A leak shows as a trend over the full profile's last 150 s: 20 MiB/min
      // is twice the largest slope seen from the sawtooth alone, and what a leak of ~1 KiB per request at
      // ~350 requests/s would give. The short profile is too short for a trend, so it only bounds the peak.
      if (P.soakSeconds >= 120) assert.ok(slopePerMin < 20, `RSS grows ${slopePerMin.toFixed(2)} MiB/min over the last half`);
      assert.ok(Math.max(...mem) < 1024, `RSS peaked at ${Math.max(...mem).toFixed(1)} MiB`);
    } finally {
      clearInterval(timer);
      await server.kill();
      removeSite(site);
    }
  });
});
