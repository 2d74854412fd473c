import { test } from 'vitest';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { applyAttendees, applySnapshotPage, countAttendees, getAttendee, searchAttendees } from '../../../renderer/store/attendees.ts';
import { recordLocalScan } from '../../../renderer/store/outbox.ts';
import { doorAttendee } from '../door-attendee-fixture.ts';

const a = doorAttendee;

test('the first download lives in chunks; later rows take precedence in lookups, search and counts', async () => {
  const db = openKioskDb('snapshot-test');
  // Two pages, the second given out of order, with a gap in the IDs.
  await applySnapshotPage(db, [a(1), a(2), a(5)]);
  await applySnapshotPage(db, [a(9), a(7, { checked_in: true, checkin_details: { date: '2026-11-22T16:00:00Z', device_id: 'door-b' } })]);
  assert.equal((await getAttendee(db, 5))?.name, 'Guest 5');
  assert.equal((await getAttendee(db, 7))?.checkinDevice, 'door-b');
  for (const missing of [0, 3, 6, 8, 10]) assert.equal(await getAttendee(db, missing), undefined, `id ${missing}`);

  // A delta renames 2 and trashes 9; a local scan admits 5.
  await applyAttendees(db, [a(2, { title: 'Renamed Person' }), a(9, { status: 'trash' })]);
  await recordLocalScan(
    db,
    {
      nonce: 'x'.repeat(20),
      attendeeId: 5,
      checkIn: true,
      scanAt: Date.parse('2026-11-22T17:30:00Z'),
      scanIso: '2026-11-22T19:30:00.000+02:00',
      deviceId: 'door-a',
    },
    'admitted',
  );
  assert.equal((await getAttendee(db, 2))?.name, 'Renamed Person');
  assert.equal((await getAttendee(db, 5))?.checkedIn, 1);
  assert.deepEqual(
    (await searchAttendees(db, 'guest')).map((r) => r.id),
    [1, 5, 7, 9],
  );
  assert.deepEqual(
    (await searchAttendees(db, 'renamed')).map((r) => r.id),
    [2],
  );
  assert.deepEqual(await searchAttendees(db, 'guest 2'), [], 'the old name no longer matches');
  assert.deepEqual(await countAttendees(db, 'door-a', Date.parse('2026-11-22T17:45:00Z')), { checkedIn: 2, total: 4, thisDevice: 1, lastHour: 1 });
  db.close();
});

test('large pages are split into several chunks and bulk lookups find every row', async () => {
  const { snapshotBulkGet } = await import('../../../renderer/store/snapshot.ts');
  const db = openKioskDb('snapshot-chunks-test');
  const ids = Array.from({ length: 450 }, (_, i) => 1000 + i * 3);
  await applySnapshotPage(db, ids.map((id) => a(id)).reverse());
  assert.ok((await db.snapshot.count()) >= 3);
  const wanted = [1000, 1003, 1600, 2347, 1001, 5000];
  const found = await snapshotBulkGet(db, wanted);
  assert.deepEqual(
    [...found.keys()].sort((x, y) => x - y),
    [1000, 1003, 1600, 2347],
  );
  assert.equal((await getAttendee(db, 2347))?.name, 'Guest 2347');
  db.close();
});
