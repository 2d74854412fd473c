import { test } from 'vitest';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { Dexie } from 'dexie';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { countAttendees } from '../../../renderer/store/attendees.ts';

test('a version 1 cache is upgraded in place to the sparse indexes, and counts stay right', async () => {
  const name = 'db-upgrade-test';
  const old = new Dexie(name);
  old.version(1).stores({ attendees: 'id, status, checkedIn, checkinAt, checkinDevice, *words', meta: 'key' });
  const base = {
    eventId: 1,
    ticketId: 2,
    orderStatus: 'completed',
    codeHash: null,
    checkinDate: null,
    checkinDevice: null,
    name: 'A',
    email: '',
    ticketTitle: null,
    words: ['a'],
  };
  await old.table('attendees').bulkPut([
    { ...base, id: 1, status: 'publish', checkedIn: 0, checkinAt: null },
    { ...base, id: 2, status: 'trash', checkedIn: 0, checkinAt: null },
    { ...base, id: 3, status: 'publish', checkedIn: 1, checkinAt: null, checkinDate: 'not a date', checkinDevice: 'door-a' },
  ]);
  old.close();
  const db = openKioskDb(name);
  assert.deepEqual(await countAttendees(db, 'door-a', Date.now()), { checkedIn: 1, total: 2, thisDevice: 1, lastHour: 0 });
  assert.equal((await db.attendees.get(2))?.trashed, 1);
  db.close();
  await Dexie.delete(name);
});
