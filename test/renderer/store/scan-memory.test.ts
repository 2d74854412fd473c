import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import type { DBCore, Middleware } from 'dexie';
import { openKioskDb, type AttendeeRow, type KioskDb } from '../../../renderer/store/db.ts';
import { applyAttendees, applySnapshotPage, getAttendee } from '../../../renderer/store/attendees.ts';
import { clearEventData, hasPending, recordLocalScan, storeServerAttendee } from '../../../renderer/store/outbox.ts';
import { settleBatch } from '../../../renderer/store/settle.ts';
import { keepAttendee, loadScanMemory, scanMemory } from '../../../renderer/store/scan-memory.ts';
import {
  knownTickets,
  knownTicketsFrom,
  rememberTicketIds,
  storeEventSigningKeys,
  storeTicketTotal,
  trustedSigningKeys,
  trustedSigningKeysFrom,
} from '../../../renderer/store/signing-keys.ts';
import { attendeePasses, forgetGatePass, GATE_META_KEY, gateOf, loadGate, mergeServerPasses, saveGate } from '../../../renderer/checkin/gate.ts';
import { doorAttendee } from '../door-attendee-fixture.ts';
import type { PairingPayload } from '../../../shared/checkin/pairing.ts';
import { FakeDoorServer } from '../fake-door-server.ts';
import { makeDevice } from '../kiosk-fixture.ts';

const a = doorAttendee;

const scan = (nonce: string, attendeeId: number, checkIn = true) => ({
  nonce: nonce.padEnd(20, '-'),
  attendeeId,
  checkIn,
  scanAt: Date.parse('2026-11-22T17:30:00Z'),
  scanIso: '2026-11-22T19:30:00.000+02:00',
  deviceId: 'door-a',
});

const settings: PairingPayload = {
  url: 'http://127.0.0.1:8080/wp-json/',
  api_key: 'door-key',
  event_id: 10,
  signing_key: 'A'.repeat(43),
  signing_key_id: 'k1',
};

const IDS = Array.from({ length: 14 }, (_, i) => i);
let n = 0;

/** The memory's answers equal what the same questions read from IndexedDB answer. */
async function assertInStep(db: KioskDb, when: string): Promise<void> {
  await loadScanMemory(db);
  const memory = scanMemory(db);
  assert.ok(memory, `${when}: loaded`);
  for (const id of IDS) {
    const held: AttendeeRow | undefined | 'read' = memory.attendee(id);
    const fromMemory: AttendeeRow | undefined = held === 'read' ? ((await db.attendees.get(id)) ?? memory.snapshotRow(id)) : held;
    assert.deepEqual(fromMemory, await getAttendee(db, id), `${when}: attendee ${id}`);
    const byNonce = (x: { nonce: string }, y: { nonce: string }) => x.nonce.localeCompare(y.nonce);
    assert.deepEqual(memory.passes(id).sort(byNonce), (await attendeePasses(db, id)).sort(byNonce), `${when}: passes of ${id}`);
    assert.equal(memory.hasPending(id), await hasPending(db, id), `${when}: pending of ${id}`);
  }
  assert.deepEqual(gateOf(memory.meta(GATE_META_KEY)), await loadGate(db), `${when}: gate`);
  assert.deepEqual(knownTicketsFrom(memory.tickets(), memory.meta), await knownTickets(db), `${when}: tickets`);
  assert.deepEqual(trustedSigningKeysFrom(memory.meta, settings), await trustedSigningKeys(db, settings), `${when}: keys`);
}

const GATE = {
  list: {
    id: 7,
    event_id: 10,
    name: 'VIP',
    ticket_ids: [11],
    direction: 'entry' as const,
    allow_reentry: true,
    allow_multiple_entries: false,
    window_start: null,
    window_end: null,
    entries_per_day: null,
  },
  timezone: 'Europe/Tallinn',
  status: null,
  statusAt: null,
};

describe('the scan memory stays in step with IndexedDB', () => {
  test('through the first download, deltas, scans, server answers, settled uploads, passes, keys and a new pairing', async () => {
    const db = openKioskDb(`scan-memory-${process.pid}-${++n}`);
    // Loaded before anything is there: every later write must reach it through the middleware.
    await assertInStep(db, 'empty');
    await applySnapshotPage(db, [a(1), a(2), a(3), a(5)]);
    await applySnapshotPage(db, [a(8), a(9, { checked_in: true, checkin_details: { date: '2026-11-22T16:00:00Z', device_id: 'door-b' } })]);
    await assertInStep(db, 'first download');

    await applyAttendees(db, [a(2, { title: 'Renamed' }), a(3, { status: 'trash' }), a(12)]);
    await assertInStep(db, 'delta');

    const first = scanMemory(db)!;
    await recordLocalScan(
      db,
      scan('in-1', 1),
      'admitted',
      undefined,
      { nonce: scan('in-1', 1).nonce, listId: 7, attendeeId: 1, kind: 'entry', at: 1 },
      {
        row: first.snapshotRow(1),
      },
    );
    await recordLocalScan(db, scan('in-5', 5), 'admitted');
    // A signed ticket the list did not hold, admitted offline: cached with the scan.
    const signed = { ...(await getAttendee(db, 1))!, id: 13, name: '', email: '', words: [] };
    await recordLocalScan(db, scan('in-13', 13), 'admitted', signed, undefined, { row: undefined });
    await assertInStep(db, 'local scans');

    // The server's answer while another scan of 1 waits; then the upload of both settles.
    await recordLocalScan(db, scan('out-1', 1, false), 'checked_out');
    await storeServerAttendee(
      db,
      a(1, { checked_in: true, checkin_details: { date: '2026-11-22T17:30:00Z', device_id: 'door-a' } }),
      scan('in-1', 1).nonce,
    );
    await assertInStep(db, 'server answer');
    const queued = await db.outbox.orderBy('seq').toArray();
    await settleBatch(
      db,
      queued.slice(0, 2).map((row) => ({ row, fate: { kind: 'accepted' as const, attendee: a(row.attendeeId) } })),
      Date.now(),
    );
    await assertInStep(db, 'settled');

    await saveGate(db, GATE);
    await mergeServerPasses(db, [{ nonce: 'server-1', listId: 7, attendeeId: 2, kind: 'entry', at: 5 }], false);
    await forgetGatePass(db, 'server-1');
    await mergeServerPasses(db, [{ nonce: 'server-2', listId: 7, attendeeId: 8, kind: 'entry', at: 6 }], true);
    await storeEventSigningKeys(db, { id: 10, signing_keys: [{ signing_key_id: 'k2', signing_key: 'B'.repeat(43) }] });
    await rememberTicketIds(db, [{ ticket_id: 11 }, { ticket_id: 12 }]);
    await storeTicketTotal(db, 3);
    await db.tickets.put({ id: 11, title: 'General' });
    await assertInStep(db, 'gate, keys, tickets');

    // A modify and a delete by a filtered collection go through the same middleware.
    await db.attendees.update(12, { name: 'Changed by update' });
    await db.listPasses.where('attendeeId').equals(8).delete();
    await assertInStep(db, 'update and collection delete');

    await clearEventData(db, Date.now());
    await assertInStep(db, 'cleared');
    db.close();
  });

  test('an aborted transaction leaves nothing of its writes in memory', async () => {
    const db = openKioskDb(`scan-memory-${process.pid}-${++n}`);
    await applySnapshotPage(db, [a(1), a(2)]);
    await assertInStep(db, 'start');
    await assert.rejects(
      db.transaction('rw', [db.attendees, db.outbox, db.listPasses, db.meta], async () => {
        await db.attendees.put({ ...(await getAttendee(db, 1))!, name: 'Never stored' });
        await db.outbox.add({ ...scan('gone', 2), attempts: 0 });
        await db.listPasses.put({ nonce: 'gone', listId: 7, attendeeId: 2, kind: 'entry', at: 1, source: 'local' });
        await db.meta.put({ key: GATE_META_KEY, value: GATE });
        throw new Error('abort');
      }),
    );
    assert.equal(scanMemory(db), null, 'read again after the abort');
    await assertInStep(db, 'after abort');
    assert.equal((await getAttendee(db, 1))?.name, 'Guest 1');
    db.close();
  });

  test('a row read from IndexedDB is kept only when nothing wrote the table meanwhile', async () => {
    const db = openKioskDb(`scan-memory-${process.pid}-${++n}`);
    await applyAttendees(db, [a(4)]);
    await loadScanMemory(db);
    const memory = scanMemory(db)!;
    assert.equal(memory.attendee(4), 'read', 'there, not held');
    const generation = memory.attendeesGeneration;
    const row = (await db.attendees.get(4))!;
    await applyAttendees(db, [a(4, { title: 'Newer' })]);
    keepAttendee(db, row, generation);
    assert.equal((scanMemory(db)!.attendee(4) as { name: string }).name, 'Newer');
    db.close();
  });
});

/** Records the transactions a database opens, with their mode and tables. */
function spy(db: KioskDb): Array<{ mode: string; tables: string[] }> {
  const seen: Array<{ mode: string; tables: string[] }> = [];
  const middleware: Middleware<DBCore> = {
    stack: 'dbcore',
    name: 'spy',
    create: (down) => ({
      ...down,
      transaction(tables, mode, options) {
        seen.push({ mode, tables: [...tables] });
        return down.transaction(tables, mode, options);
      },
    }),
  };
  // A middleware takes effect when the database opens.
  db.close();
  db.use(middleware);
  return seen;
}

test('once warmed up, a scan reads nothing from IndexedDB before its one write transaction', async () => {
  const server = new FakeDoorServer();
  const people = server.seed(3);
  const d = await makeDevice(server, { deviceId: 'door-a' });
  await d.engine.syncNow();
  await d.service.warmUp();
  d.online = false;
  d.engine.noteNetworkFailure('cut');
  const seen = spy(d.db);
  await d.db.open();
  const r = await d.service.scan(server.ticketUrl(people[1]));
  assert.equal(r.verdict.kind, 'admitted');
  assert.equal(r.mode, 'offline');
  const first = seen.findIndex((t) => t.mode === 'readwrite');
  assert.ok(first >= 0, 'the scan was written');
  assert.deepEqual(seen.slice(0, first), [], 'no transaction before the write');
  assert.ok(!seen[first].tables.includes('snapshot'), 'the write does not lock the first download');
  // The scan is durable: a new page (a fresh memory) reads it from IndexedDB.
  assert.equal((await getAttendee(d.db, people[1].id))?.checkedIn, 1);
  assert.equal(await d.db.outbox.count(), 1);
  await d.close();
});

test('online, a scan that is all the outbox holds goes up first and is written while the request is out; with a backlog the outbox is read in order', async () => {
  const server = new FakeDoorServer();
  const people = server.seed(4);
  let seen: Array<{ mode: string; tables: string[] }> = [];
  const atBatch: Array<Array<{ mode: string; tables: string[] }>> = [];
  const d = await makeDevice(server, {
    deviceId: 'door-a',
    intercept: (req) => {
      if (req.method === 'POST' && req.path.includes('batch')) atBatch.push([...seen]);
      return 'ok';
    },
  });
  await d.engine.syncNow();
  await d.service.warmUp();
  seen = spy(d.db);
  await d.db.open();
  seen.length = 0;
  atBatch.length = 0;
  const r = await d.service.scan(server.ticketUrl(people[0]));
  assert.equal(r.mode, 'online');
  assert.equal(r.verdict.kind, 'admitted');
  assert.equal(atBatch.length, 1);
  // Sent first, the scan written while it is out: no read of the outbox, no transaction at all before it.
  assert.deepEqual(atBatch[0], [], 'no transaction before it went up');
  assert.equal(server.log.at(-1)?.nonce, r.nonce);
  // Answered and stored: the scan was written (its log line), and its answer took it out of the outbox.
  assert.equal(await d.db.outbox.count(), 0);
  assert.equal((await d.db.scans.toArray()).find((x) => x.nonce === r.nonce)?.verdict, 'admitted');
  assert.equal((await getAttendee(d.db, people[0].id))?.checkedIn, 1);

  // Two scans queued offline, then one online: all three go up, oldest first, the backlog read from the outbox.
  d.online = false;
  d.engine.noteNetworkFailure('cut');
  const queued = [await d.service.scan(server.ticketUrl(people[1])), await d.service.scan(server.ticketUrl(people[2]))];
  d.online = true;
  d.engine.resetAuth();
  assert.equal(await d.db.outbox.count(), 2);
  const last = await d.service.scan(server.ticketUrl(people[3]));
  await d.engine.idle();
  assert.deepEqual(
    server.log.slice(-3).map((e) => e.nonce),
    [...queued, last].map((x) => x.nonce),
  );
  assert.equal(await d.db.outbox.count(), 0);
  await d.close();
});
