import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { childServer, freePort } from './child-server.ts';
import { fetchCheckins, SimKiosk } from './kiosk-sim.ts';
import { profile, report } from './profile.ts';
import { integrityCheck, openForCheck, removeSite, seedSite } from './seed.ts';
import { acceptedPerAttendee, auditCheckins } from './verify-checkins.ts';

/**
 * Issue 6 item 2: 10 kiosks scan overlapping attendee sets at once against one server (batches of varied
 * size, two kiosks with single PATCHes). Every scan is logged, each attendee has exactly one accepted
 * check-in, and every conflict is visible both in the server's log and on the kiosk that lost it.
 */

const P = profile();
const KIOSKS = 10;

describe('concurrency', { timeout: 15 * 60_000 }, () => {
  test(`${KIOSKS} kiosks over overlapping sets of ${P.concurrencyAttendees} attendees`, { timeout: 10 * 60_000 }, async () => {
    const site = await seedSite(P.concurrencyAttendees);
    const server = childServer({ dbFile: site.dbFile, port: await freePort() });
    const kiosks = Array.from(
      { length: KIOSKS },
      (_, i) =>
        new SimKiosk(`door-${i + 1}`, server.root, i % 3 === 0 ? site.auth.doorKey : site.auth.doorUser, {
          batchSize: 1 + ((i * 7) % 25),
          single: i >= KIOSKS - 2,
        }),
    );
    // Kiosk i covers a window of 40% of the attendees starting at i * 10%: every attendee is on four kiosks.
    const ids = site.attendeeIds;
    const width = Math.ceil(ids.length * 0.4);
    kiosks.forEach((k, i) => {
      const start = Math.floor((i * ids.length) / KIOSKS);
      const mine = Array.from({ length: width }, (_, j) => ids[(start + j) % ids.length]!);
      // Different orders on each kiosk, so they meet in the middle of each other's uploads.
      (i % 2 ? mine.reverse() : mine).forEach((id) => k.scan(id));
    });
    try {
      await server.start();
      const started = Date.now();
      await Promise.all(kiosks.map((k) => k.drain()));
      const seconds = (Date.now() - started) / 1000;
      const apiLog = await fetchCheckins(server.root, site.auth.admin, `post_id=${site.eventId}`);
      const apiConflicts = await fetchCheckins(server.root, site.auth.admin, `post_id=${site.eventId}&result=conflict`);
      await server.stop();

      const db = await openForCheck(site.dbFile);
      let audit;
      let integrity;
      let winner: Map<number, string>;
      try {
        audit = await auditCheckins(db, kiosks, new Set(ids));
        integrity = await integrityCheck(db);
        winner = new Map(
          (
            (await db.prepare("SELECT attendee_id, device_id FROM checkins WHERE result = 'accepted'").all()) as {
              attendee_id: number;
              device_id: string;
            }[]
          ).map((r) => [r.attendee_id, r.device_id]),
        );
      } finally {
        await db.close();
      }
      const kioskConflicts = kiosks.flatMap((k) => k.conflicts().map((c) => ({ ...c, device: k.deviceId })));
      report('concurrency', {
        kiosks: KIOSKS,
        attendees: ids.length,
        scans: audit.scans,
        accepted: audit.accepted,
        conflicts_server: apiConflicts.length,
        conflicts_kiosks: kioskConflicts.length,
        lost_checkins: audit.lost.length + audit.unlogged.length,
        seconds: seconds.toFixed(1),
        integrity,
      });

      assert.deepEqual(audit.unexpected, [], 'every answer is 201 or 400 already-checked-in');
      assert.deepEqual(audit.lost, []);
      assert.deepEqual(audit.unlogged, [], 'every scan is in the check-in log');
      assert.deepEqual(audit.inconsistent, [], 'exactly one accepted check-in per attendee, and it is the standing one');
      assert.equal(integrity, 'ok');
      assert.equal(audit.scans, KIOSKS * width);
      assert.equal(apiLog.length, audit.scans);
      const perAttendee = acceptedPerAttendee(apiLog);
      assert.equal(perAttendee.size, ids.length);
      assert.ok([...perAttendee.values()].every((n) => n === 1));
      // Every scan but the accepted one lost: each loser knows, and the server lists it as a conflict.
      assert.equal(kioskConflicts.length, audit.scans - ids.length);
      assert.deepEqual(apiConflicts.map((c) => c.nonce).sort(), kioskConflicts.map((c) => c.nonce).sort());
      for (const c of kioskConflicts) {
        const standing = c.standing as { device_id?: string; date?: string } | null;
        assert.ok(standing && typeof standing.date === 'string', `${c.device}: the conflict carries the standing check-in`);
        assert.equal(standing.device_id, winner.get(c.attendeeId), `${c.device}: the standing check-in names the winning device`);
        assert.notEqual(standing.device_id, c.device);
      }
      for (const c of apiConflicts) assert.equal(c.result, 'conflict');
    } finally {
      await server.kill();
      removeSite(site);
    }
  });
});
