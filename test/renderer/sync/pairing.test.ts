import { test } from 'vitest';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { getSettings } from '../../../renderer/store/meta.ts';
import { recordLocalScan } from '../../../renderer/store/outbox.ts';
import { applyAttendees } from '../../../renderer/store/attendees.ts';
import { applyPairing, PairingBlocked, unpair } from '../../../renderer/sync/pairing.ts';

const here = { url: 'http://127.0.0.1:8080/en/wp-json/', api_key: 'old', event_id: 10 };
const scan = { nonce: 'n'.repeat(20), attendeeId: 5, checkIn: true, scanAt: 1, scanIso: '2026-11-22T20:00:00.000+02:00', deviceId: 'd' };

test('a new key for the same server and event keeps the cache and the queue; another event is refused while scans are queued', async () => {
  const db = openKioskDb('pairing-test');
  await applyPairing(db, here, 1);
  await applyAttendees(db, [{ id: 5, post_id: 10, ticket_id: 1, status: 'publish', checked_in: false }]);
  await recordLocalScan(db, scan, 'admitted');

  const rekeyed = { ...here, api_key: 'new' };
  await applyPairing(db, rekeyed, 2);
  assert.equal((await getSettings(db))?.api_key, 'new');
  assert.equal(await db.outbox.count(), 1);
  assert.equal(await db.attendees.count(), 1);

  // The queued scan belongs to event 10 on this server: pairing elsewhere neither moves nor strands it.
  for (const elsewhere of [
    { ...here, event_id: 11 },
    { ...rekeyed, url: 'https://other.example/en/wp-json/' },
  ]) {
    await assert.rejects(applyPairing(db, elsewhere, 3), (err) => err instanceof PairingBlocked && err.pending === 1);
    assert.deepEqual(await getSettings(db), rekeyed);
    assert.equal(await db.outbox.count(), 1);
    assert.equal(await db.attendees.count(), 1);
    assert.equal(await db.rejected.count(), 0);
  }

  // Once uploaded, pairing elsewhere starts a fresh cache.
  await db.outbox.clear();
  await applyPairing(db, { ...here, event_id: 11 }, 4);
  assert.equal((await getSettings(db))?.event_id, 11);
  assert.equal(await db.attendees.count(), 0);

  await unpair(db, 5);
  assert.equal(await getSettings(db), null);
  db.close();
  await db.delete();
});
