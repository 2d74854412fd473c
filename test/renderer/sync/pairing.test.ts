import { test } from 'node:test';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { getSettings } from '../../../renderer/store/meta.ts';
import { recordLocalScan } from '../../../renderer/store/outbox.ts';
import { applyAttendees } from '../../../renderer/store/attendees.ts';
import { applyPairing, scansAtRisk, unpair } from '../../../renderer/sync/pairing.ts';

const here = { url: 'http://127.0.0.1:8080/en/wp-json/', api_key: 'old', event_id: 10 };

test('a new key for the same server and event keeps the cache and the queue; another event sets the queue aside', async () => {
  const db = openKioskDb('pairing-test');
  await applyPairing(db, here, 1);
  await applyAttendees(db, [{ id: 5, post_id: 10, ticket_id: 1, status: 'publish', checked_in: false }]);
  await recordLocalScan(db, { nonce: 'n'.repeat(20), attendeeId: 5, checkIn: true, scanAt: 1, scanIso: '2026-11-22T20:00:00.000+02:00', deviceId: 'd' }, 'admitted');

  const rekeyed = { ...here, api_key: 'new' };
  assert.equal(await scansAtRisk(db, rekeyed), 0);
  await applyPairing(db, rekeyed, 2);
  assert.equal((await getSettings(db))?.api_key, 'new');
  assert.equal(await db.outbox.count(), 1);
  assert.equal(await db.attendees.count(), 1);

  const elsewhere = { ...here, event_id: 11 };
  assert.equal(await scansAtRisk(db, elsewhere), 1);
  await applyPairing(db, elsewhere, 3);
  assert.equal(await db.outbox.count(), 0);
  assert.equal(await db.attendees.count(), 0);
  assert.deepEqual((await db.rejected.toArray()).map((r) => [r.attendeeId, r.code]), [[5, 'unpaired']]);

  await unpair(db, 4);
  assert.equal(await getSettings(db), null);
  db.close();
});
