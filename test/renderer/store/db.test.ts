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

test('a version 5 cache keeps its first download: snapshot chunks of row objects are packed in place', async () => {
  const name = 'db-upgrade-snapshot-test';
  const old = new Dexie(name);
  old.version(5).stores({ attendees: 'id, checkinAt, checkinDevice, trashed, *words', snapshot: 'first', meta: 'key' });
  const row = (id: number, over: Record<string, unknown> = {}) => ({
    id,
    eventId: 1,
    ticketId: 2,
    status: 'publish',
    orderStatus: 'completed',
    codeHash: `h${id}`,
    checkedIn: 0,
    checkinDate: null,
    checkinAt: null,
    checkinDevice: null,
    name: `Guest Number${id}`,
    email: `g${id}@x.ee`,
    ticketTitle: 'General',
    words: ['guest', `number${id}`, `g${id}@x.ee`],
    ...over,
  });
  await old.table('snapshot').bulkPut([
    { first: 1, last: 3, rows: [row(1), row(3, { checkedIn: 1, checkinAt: 5, checkinDate: 'd', checkinDevice: 'door-a' })] },
    { first: 7, last: 7, rows: [row(7, { status: 'trash', trashed: 1 })] },
  ]);
  old.close();
  const db = openKioskDb(name);
  const { getAttendee, searchAttendees } = await import('../../../renderer/store/attendees.ts');
  assert.deepEqual(await getAttendee(db, 3), row(3, { checkedIn: 1, checkinAt: 5, checkinDate: 'd', checkinDevice: 'door-a' }));
  assert.deepEqual(await getAttendee(db, 7), row(7, { status: 'trash', trashed: 1 }));
  assert.equal(await getAttendee(db, 2), undefined);
  assert.deepEqual(
    (await searchAttendees(db, 'number1')).map((r) => r.id),
    [1],
  );
  assert.deepEqual(await countAttendees(db, 'door-a', 10), { checkedIn: 1, total: 2, thisDevice: 1, lastHour: 1 });
  assert.equal('rows' in (await db.snapshot.get(1))!, false);
  db.close();
  await Dexie.delete(name);
});
