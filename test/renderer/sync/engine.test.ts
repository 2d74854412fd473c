import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { getAttendee } from '../../../renderer/store/attendees.ts';
import { FakeDoorServer } from '../fake-door-server.ts';
import { cachedIds, makeDevice } from '../kiosk-fixture.ts';
import { backoffDelay } from '../../../renderer/sync/engine.ts';
import { getSyncState } from '../../../renderer/store/meta.ts';
import { recordLocalScan } from '../../../renderer/store/outbox.ts';
import type { SyncEvent } from '../../../renderer/sync/events.ts';

const scanRow = (attendeeId: number, i: number, deviceId = 'door-a') => ({
  nonce: `nonce-${deviceId}-${i}`.padEnd(20, 'x'),
  attendeeId,
  checkIn: true,
  scanAt: 1,
  scanIso: '2026-11-22T20:00:00.000+02:00',
  deviceId,
});

describe('download', () => {
  test('first full download pages through everything, then deltas bring only changes', async () => {
    const server = new FakeDoorServer();
    server.seed(250);
    const d = await makeDevice(server);
    const progress: SyncEvent[] = [];
    d.engine.events.on((e) => e.type === 'progress' && progress.push(e));
    await d.engine.syncNow();
    assert.equal((await cachedIds(d.db)).size, 250);
    // Pages that arrive together are written together, so progress may skip a step, but it only grows.
    const loaded = progress.map((p) => (p.type === 'progress' ? p.loaded : 0));
    assert.equal(loaded.at(-1), 250);
    assert.deepEqual(
      [...loaded].sort((a, b) => a - b),
      loaded,
    );
    assert.equal((await d.db.event.toArray())[0].title, 'Door test event');
    assert.equal(d.engine.status.ready, true);

    const a = server.attendees.get(120)!;
    a.name = 'Changed Name';
    server.touch(a);
    const gone = server.attendees.get(121)!;
    gone.status = 'trash';
    server.touch(gone);
    server.seed(1, 1000);
    const before = server.requests;
    await d.engine.syncNow();
    assert.equal(server.requests - before, 1, 'one delta page, no full download');
    assert.equal((await getAttendee(d.db, 120))?.name, 'Changed Name');
    assert.equal((await getAttendee(d.db, 121))?.status, 'trash');
    assert.equal((await cachedIds(d.db)).size, 251);
    await d.close();
  });

  test('an interrupted first download resumes at the page it stopped on', async () => {
    const server = new FakeDoorServer();
    server.seed(350);
    let pagesServed = 0;
    let cut = true;
    const d = await makeDevice(server, {
      intercept: (req) => {
        if (!req.path.startsWith('evt/tickets/v1/attendees?')) return 'ok';
        if (cut && pagesServed === 2) return 'drop-request';
        pagesServed++;
        return 'ok';
      },
    });
    await d.engine.syncNow();
    assert.equal(d.engine.status.online, false);
    const state = await getSyncState(d.db);
    assert.equal(state.complete, false);
    assert.equal(state.full?.nextPage, 3);
    assert.equal((await cachedIds(d.db)).size, 200);
    cut = false;
    const pages: string[] = [];
    const off = d.engine.events.on((e) => e.type === 'progress' && pages.push(String(e.loaded)));
    await d.engine.syncNow();
    off();
    assert.equal(pages.at(-1), '350');
    assert.ok(Number(pages[0]) > 200, 'resumed after the two stored pages');
    assert.equal((await cachedIds(d.db)).size, 350);
    assert.equal((await getSyncState(d.db)).complete, true);
    assert.equal(d.engine.status.online, true);
    await d.close();
  });
});

describe('upload', () => {
  test('sends the outbox in batches of at most 25 and sorts accepted, conflict and rejected', async () => {
    const server = new FakeDoorServer();
    const people = server.seed(60);
    server.attendees.get(people[1].id)!.orderStatus = 'refunded';
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    // Someone else admits person 0 first.
    server.attendees.get(people[0].id)!.checkin = { date: '2026-11-22T19:59:00+02:00', deviceId: 'door-b', nonce: 'other' };
    for (let i = 0; i < 60; i++) await recordLocalScan(d.db, scanRow(people[i].id, i), 'admitted');
    const batchSizes: number[] = [];
    const fetchSpy = server.handle.bind(server);
    server.handle = (req) => {
      if (req.path === 'batch/v1') batchSizes.push((req.body as { requests: unknown[] }).requests.length);
      return fetchSpy(req);
    };
    const failures: string[] = [];
    d.engine.events.on((e) => e.type === 'failure' && failures.push(e.failure.kind));
    await d.engine.syncNow();
    assert.deepEqual(batchSizes, [25, 25, 10]);
    assert.equal(await d.db.outbox.count(), 0);
    assert.deepEqual(failures.sort(), ['conflict', 'rejected']);
    const [conflict] = await d.db.conflicts.toArray();
    assert.equal(conflict.theirDevice, 'door-b');
    assert.equal(conflict.ourDevice, 'door-a');
    assert.equal((await d.db.rejected.toArray())[0].code, 'tec-et-attendee-invalid-check-in');
    assert.equal(server.log.filter((e) => e.result === 'accepted').length, 58);
    assert.equal(d.engine.status.pending, 0);
    await d.close();
  });

  test('a network failure keeps every row and backs off; the same nonces go again', async () => {
    const server = new FakeDoorServer();
    const people = server.seed(3);
    let mode: 'drop-response' | 'ok' = 'ok';
    const d = await makeDevice(server, { intercept: (req) => (req.path === 'batch/v1' ? mode : 'ok') });
    await d.engine.syncNow();
    for (let i = 0; i < 3; i++) await recordLocalScan(d.db, scanRow(people[i].id, i), 'admitted');
    mode = 'drop-response';
    const failures: Array<{ kind: string; retryInMs?: number }> = [];
    d.engine.events.on((e) => e.type === 'failure' && failures.push(e.failure));
    await d.engine.syncNow();
    await d.engine.syncNow();
    assert.equal(await d.db.outbox.count(), 3);
    assert.deepEqual(
      failures.map((f) => [f.kind, f.retryInMs]),
      [
        ['network', 750],
        ['device', undefined],
        ['network', 1500],
      ],
    );
    assert.equal(d.engine.status.device?.kind, 'unreachable', 'the second failure in a row raises the device state');
    mode = 'ok';
    await d.engine.syncNow();
    assert.equal(await d.db.outbox.count(), 0);
    assert.equal(server.log.length, 3, 'the replay was de-duplicated by nonce');
    assert.ok(server.log.every((e) => e.result === 'accepted'));
    await d.close();
  });

  test('a revoked key stops syncing and asks to pair again', async () => {
    const server = new FakeDoorServer();
    const [p] = server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    await recordLocalScan(d.db, scanRow(p.id, 1), 'admitted');
    server.keys.clear();
    const failures: string[] = [];
    d.engine.events.on((e) => e.type === 'failure' && failures.push(e.failure.kind));
    await d.engine.syncNow();
    assert.deepEqual(failures, ['device', 'unauthorized']);
    assert.equal(d.engine.status.unauthorized, true);
    assert.equal(d.engine.status.device?.kind, 'revoked');
    assert.equal(await d.db.outbox.count(), 1, 'the scan waits for the new key');
    const before = server.requests;
    await d.engine.syncNow();
    assert.equal(server.requests, before, 'no requests with a refused key');
    server.keys.add('door-key');
    d.engine.resetAuth();
    await d.engine.syncNow();
    assert.equal(await d.db.outbox.count(), 0);
    await d.close();
  });

  test('backoff doubles up to a cap, with jitter', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 10].map((n) => backoffDelay(n, () => 1)),
      [1000, 2000, 4000, 8000, 30000],
    );
    assert.equal(
      backoffDelay(1, () => 0),
      500,
    );
  });

  test('runs requested while one is running join it and cause exactly one more', async () => {
    const server = new FakeDoorServer();
    server.seed(5);
    const d = await makeDevice(server);
    const p1 = d.engine.syncNow();
    const p2 = d.engine.syncNow();
    const p3 = d.engine.syncNow();
    assert.equal(p1, p2);
    assert.equal(p2, p3);
    await p1;
    // Two runs: the key checked against the event (1 GET, whose answer the download takes for the event), the first
    // full download (the door snapshot, which this server does not offer, then the list by pages, and the tickets:
    // 3 GETs, and the ticket titles in each kiosk language: 2 more), whether the key is bound to a check-in list
    // (1 GET, asked once per pairing) and one delta (1 GET).
    assert.equal(server.requests, 8);
    await d.close();
  });
});
