import type { SqliteDb } from '../../server/db/engine/sqlite.ts';
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { childServer, freePort } from './child-server.ts';
import { fetchCheckins, SimKiosk, shuffle, sumStats } from './kiosk-sim.ts';
import { profile, report } from './profile.ts';
import { integrityCheck, openForCheck, removeSite, seedSite } from './seed.ts';
import { acceptedPerAttendee, auditCheckins } from './verify-checkins.ts';

/**
 * Issue 6 item 1: the server is SIGKILLed at random moments while simulated kiosks upload check-ins in
 * batches; nothing acknowledged is lost, nothing is half-applied, and the retried outboxes converge. The
 * kiosk's own crash (its browser SIGKILLed mid-sync) is crash-kiosk.test.ts, so the two run side by side.
 */

const P = profile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('crash safety (SIGKILL)', { timeout: 30 * 60_000 }, () => {
  test(`the server killed ${P.kills} times during batch uploads`, { timeout: 20 * 60_000 }, async () => {
    const site = await seedSite(P.crashAttendees);
    const server = childServer({ dbFile: site.dbFile, port: await freePort() });
    const kiosks = Array.from({ length: P.crashKiosks }, (_, i) => new SimKiosk(`crash-kiosk-${i + 1}`, server.root, site.auth.doorKey));
    // Overlapping sets: every attendee is scanned by one to three kiosks, so conflicts cross the kills too.
    const lists: number[][] = kiosks.map(() => []);
    for (const id of site.attendeeIds) {
      const n = 1 + Math.floor(Math.random() * 3);
      for (const k of shuffle(kiosks.map((_, i) => i)).slice(0, n)) lists[k]!.push(id);
    }
    lists.forEach(shuffle);
    const portion = (k: number, cycles: number) => Math.ceil(lists[k]!.length / cycles);
    const queueSome = (count: (k: number) => number) => kiosks.forEach((kiosk, k) => lists[k]!.splice(0, count(k)).forEach((id) => kiosk.scan(id)));
    const cycles = P.kills + 1;
    let killsMidBatch = 0;
    try {
      await server.start();
      kiosks.forEach((k) => k.start());
      for (let kill = 0; kill < P.kills; kill++) {
        // Scans arrive while the server is up, in bursts; it dies at a random moment in between.
        const upMs = 50 + Math.random() * 1200;
        const bursts = 1 + Math.floor(Math.random() * 4);
        for (let b = 0; b < bursts; b++) {
          queueSome((k) => Math.ceil(portion(k, cycles) / (2 * bursts)));
          await sleep(upMs / bursts);
        }
        // Three kills in four wait (briefly) for an upload in flight, so most land inside a batch: before the
        // server reads it, during its transactions, or after the commit with the answer still on the wire.
        if (kill % 4 !== 3) {
          // A scan at each door now starts an upload if none is running.
          queueSome(() => 1);
          const until = Date.now() + 1000;
          while (!kiosks.some((k) => k.inFlight > 0) && Date.now() < until) await sleep(2);
          await sleep(Math.random() * 15);
        }
        if (kiosks.some((k) => k.inFlight > 0)) killsMidBatch++;
        await server.kill();
        // Scans made while it is down pile up in the outboxes.
        queueSome((k) => Math.ceil(portion(k, cycles) / 2));
        await server.start();
      }
      queueSome((k) => lists[k]!.length);
      await Promise.all(kiosks.map((k) => k.stop()));
      await Promise.all(kiosks.map((k) => k.drain()));

      const apiLog = await fetchCheckins(server.root, site.auth.admin, `post_id=${site.eventId}`);
      await server.stop();
      const db = await openForCheck(site.dbFile);
      let audit;
      let integrity;
      try {
        audit = await auditCheckins(db, kiosks, new Set(site.attendeeIds));
        integrity = await integrityCheck(db);
        assert.deepEqual((db as SqliteDb).raw.pragma('foreign_key_check'), []);
      } finally {
        await db.close();
      }
      const stats = sumStats(kiosks);
      report('crash-server', {
        kills: P.kills,
        kills_mid_batch: killsMidBatch,
        kiosks: kiosks.length,
        attendees: site.attendeeIds.length,
        scans: audit.scans,
        accepted: audit.accepted,
        conflicts: audit.conflicts,
        batches: stats.batches,
        network_errors: stats.neterr,
        bad_batches: stats.bad,
        item_5xx: stats.i5,
        lost_checkins: audit.lost.length + audit.unlogged.length,
        half_applied: audit.inconsistent.length,
        integrity,
      });
      assert.deepEqual(audit.lost, [], 'acknowledged scans missing from the database');
      assert.deepEqual(audit.unlogged, [], 'queued scans never logged');
      assert.deepEqual(audit.inconsistent, [], 'attendee state disagrees with the log');
      assert.deepEqual(audit.unexpected, []);
      assert.equal(integrity, 'ok');
      assert.equal(stats.bad + stats.i5, 0, 'no 5xx and no batch refused');
      assert.equal(audit.logged, audit.scans, 'each scan logged exactly once');
      assert.equal(audit.accepted, site.attendeeIds.length);
      // The API's log says the same: exactly one accepted check-in per attendee.
      assert.equal(apiLog.length, audit.scans);
      const perAttendee = acceptedPerAttendee(apiLog);
      assert.deepEqual(
        [...perAttendee.keys()].sort((a, b) => a - b),
        [...site.attendeeIds].sort((a, b) => a - b),
      );
      assert.ok([...perAttendee.values()].every((n) => n === 1));
      assert.ok(killsMidBatch > 0, 'at least one kill landed during an upload');
    } finally {
      await Promise.all(kiosks.map((k) => k.stop()));
      await server.kill();
      removeSite(site);
    }
  });
});
