import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { applyAttendees, countAttendees, searchAttendees, getAttendee } from '../../../renderer/store/attendees.ts';
import { recordLocalScan, nextOutboxBatch, clearEventData } from '../../../renderer/store/outbox.ts';
import { settleBatch } from '../../../renderer/store/settle.ts';
import { getDeviceId } from '../../../renderer/store/meta.ts';
import { hashSecurityCode } from '../../../shared/checkin/security-code.ts';
import type { DoorAttendee } from '../../../shared/checkin/wire.ts';

const attendee = (id: number, over: Partial<DoorAttendee> = {}): DoorAttendee => ({
  id,
  post_id: 10,
  ticket_id: 11,
  status: 'publish',
  title: `Mari Tamm ${id}`,
  email: `mari${id}@kool.ee`,
  ticket: { id: 11, title: 'VIP' },
  checked_in: false,
  checkin_details: false,
  security_code: `code${id}xxxxxx`,
  order_status: 'completed',
  ...over,
});
let n = 0;
const freshDb = () => openKioskDb(`store-test-${++n}`);
const scan = (nonce: string, attendeeId: number, checkIn = true) => ({
  nonce: nonce.padEnd(16, '0'),
  attendeeId,
  checkIn,
  scanAt: Date.parse('2026-11-22T18:00:00Z'),
  scanIso: '2026-11-22T20:00:00.000+02:00',
  deviceId: 'door-a',
});

describe('attendee cache', () => {
  test('keeps only a hash of the security code', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1)]);
    const row = await getAttendee(db, 1);
    assert.equal(row?.codeHash, hashSecurityCode(1, 'code1xxxxxx'));
    assert.doesNotMatch(JSON.stringify(row), /code1xxxxxx/);
  });
  test('searches by a word of the name, the email, or the ticket number', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1), attendee(2, { title: 'Jaan Kask', email: 'jaan@firma.ee' })]);
    assert.deepEqual(
      (await searchAttendees(db, 'kask')).map((r) => r.id),
      [2],
    );
    assert.deepEqual(
      (await searchAttendees(db, 'JAAN')).map((r) => r.id),
      [2],
    );
    assert.deepEqual(
      (await searchAttendees(db, 'mari1@kool')).map((r) => r.id),
      [1],
    );
    assert.deepEqual(
      (await searchAttendees(db, 'mari tamm')).map((r) => r.id),
      [1],
    );
    assert.deepEqual(
      (await searchAttendees(db, '#2')).map((r) => r.id),
      [2],
    );
    assert.deepEqual(await searchAttendees(db, 'nobody'), []);
  });
  test('a delta from the server does not undo a scan still in the outbox', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1)]);
    await recordLocalScan(db, scan('n1', 1), 'admitted');
    await applyAttendees(db, [attendee(1, { title: 'Renamed' })]);
    const row = await getAttendee(db, 1);
    assert.equal(row?.checkedIn, 1);
    assert.equal(row?.checkinDevice, 'door-a');
    assert.equal(row?.name, 'Renamed');
  });
  test('counts exclude trashed attendees and know this device and the last hour', async () => {
    const db = freshDb();
    const now = Date.parse('2026-11-22T18:30:00Z');
    await applyAttendees(db, [
      attendee(1),
      attendee(2, { status: 'trash' }),
      attendee(3, { checked_in: true, checkin_details: { date: '2026-11-22T16:00:00Z', device_id: 'door-b' } }),
    ]);
    await recordLocalScan(db, scan('n1', 1), 'admitted');
    assert.deepEqual(await countAttendees(db, 'door-a', now), { checkedIn: 2, total: 2, thisDevice: 1, lastHour: 1 });
  });
});

describe('outbox', () => {
  test('a scan writes the outbox row, the attendee mark and the log line together, once per nonce', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1)]);
    await recordLocalScan(db, scan('n1', 1), 'admitted');
    await recordLocalScan(db, scan('n1', 1), 'admitted');
    assert.equal(await db.outbox.count(), 1);
    assert.equal(await db.scans.count(), 1);
    assert.equal((await getAttendee(db, 1))?.checkedIn, 1);
  });
  test('a failed transaction leaves neither the row nor the mark', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1)]);
    await db.scans.add({ id: 1, nonce: 'x', at: 0, attendeeId: null, verdict: 'x', reason: null, mode: 'offline' });
    // Force the log insert inside the transaction to collide with an existing key.
    const origAdd = db.scans.add.bind(db.scans);
    db.scans.add = ((row) => origAdd({ ...row, id: 1 })) as typeof db.scans.add;
    await assert.rejects(recordLocalScan(db, scan('n2', 1), 'admitted'));
    assert.equal(await db.outbox.count(), 0);
    assert.equal((await getAttendee(db, 1))?.checkedIn, 0);
  });
  test('a conflict keeps both sides and the cache takes the standing check-in', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1)]);
    await recordLocalScan(db, scan('n1', 1), 'admitted');
    const [row] = await nextOutboxBatch(db, 25);
    const standing = { date: '2026-11-22T19:58:00+02:00', device_id: 'door-b', device_label: 'Door 2' };
    const {
      conflicts: [c],
    } = await settleBatch(db, [{ row, fate: { kind: 'conflict', standing, message: 'Already' } }], 5);
    const theirs = Date.parse('2026-11-22T19:58:00+02:00');
    assert.deepEqual(
      { ...c, id: undefined },
      {
        id: undefined,
        nonce: row.nonce,
        attendeeId: 1,
        name: 'Mari Tamm 1',
        ourScanIso: row.scanIso,
        ourScanAt: row.scanAt,
        ourDevice: 'door-a',
        theirDate: '2026-11-22T19:58:00+02:00',
        theirScanAt: theirs,
        theirDevice: 'door-b',
        theirDeviceLabel: 'Door 2',
        first: 'theirs',
        gapMs: 120_000,
        recordedAt: 5,
      },
    );
    assert.equal(await db.outbox.count(), 0);
    assert.equal((await getAttendee(db, 1))?.checkinDevice, 'door-b');
    assert.equal((await db.conflicts.toArray()).length, 1);
  });
  test('a batch settles accepted rows, keeps retries queued, and keeps a later queued scan on top', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1), attendee(2)]);
    await recordLocalScan(db, scan('in-1', 1), 'admitted');
    await recordLocalScan(db, scan('in-2', 2), 'admitted');
    await recordLocalScan(db, { ...scan('out-1', 1, false), scanIso: '2026-11-22T20:05:00.000+02:00' }, 'admitted');
    const [r1, r2] = await nextOutboxBatch(db, 2);
    const server = (id: number) =>
      attendee(id, { checked_in: true, checkin_details: { date: '2026-11-22 18:00:00', device_id: 'door-a' }, security_code: undefined });
    const out = await settleBatch(
      db,
      [
        { row: r1, fate: { kind: 'accepted', attendee: server(1) } },
        { row: r2, fate: { kind: 'retry', status: 503, message: 'busy' } },
      ],
      9,
    );
    assert.deepEqual([...out.attempts.values()], [1]);
    assert.deepEqual(
      (await db.outbox.toArray()).map((r) => [r.nonce.slice(0, 5), r.attempts]),
      [
        ['in-20', 1],
        ['out-1', 0],
      ],
    );
    const a1 = await getAttendee(db, 1);
    assert.equal(a1?.checkedIn, 0, 'the queued check-out stays on top of the accepted check-in');
    assert.equal(a1?.codeHash, hashSecurityCode(1, 'code1xxxxxx'), 'the hash survives an answer without the code');
  });
  test('a rejected admission is set aside with its reason and no longer counts as inside', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1)]);
    await recordLocalScan(db, scan('n1', 1), 'admitted');
    const [row] = await nextOutboxBatch(db, 25);
    await settleBatch(db, [{ row, fate: { kind: 'rejected', code: 'tec-et-attendee-invalid-check-in', message: 'Order', status: 400 } }], 6);
    const rejected = await db.rejected.toArray();
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0].code, 'tec-et-attendee-invalid-check-in');
    assert.equal((await getAttendee(db, 1))?.checkedIn, 0);
  });
  test('pairing elsewhere moves unsent scans to the rejected list instead of dropping them', async () => {
    const db = freshDb();
    await applyAttendees(db, [attendee(1)]);
    await recordLocalScan(db, scan('n1', 1), 'admitted');
    assert.equal(await clearEventData(db, 7), 1);
    assert.equal(await db.outbox.count(), 0);
    assert.equal(await db.attendees.count(), 0);
    assert.equal((await db.rejected.toArray())[0].code, 'unpaired');
  });
  test('the device ID is made once and kept', async () => {
    const db = freshDb();
    const id = await getDeviceId(db);
    assert.match(id, /^door-[0-9a-f]{16}$/);
    assert.equal(await getDeviceId(db), id);
  });
});
