import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { getAttendee } from '../../../renderer/store/attendees.ts';
import { FakeDoorServer } from '../fake-door-server.ts';
import { makeDevice } from '../kiosk-fixture.ts';

describe('scanning online first', () => {
  test('an online scan is decided by the server and queues nothing', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(2);
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.mode, 'online');
    assert.deepEqual(r.verdict, { kind: 'admitted', attendeeId: a.id, name: a.name, ticketTitle: 'General admission' });
    assert.equal(await d.db.outbox.count(), 0);
    assert.equal(server.log[0].nonce, r.nonce);
    assert.equal(server.attendees.get(a.id)?.checkin?.deviceId, 'door-a');
    const again = await d.service.scan(server.ticketUrl(a));
    assert.equal(again.verdict.kind, 'already');
    assert.equal(again.verdict.kind === 'already' && again.verdict.deviceId, 'door-a');
    assert.equal(server.log[1].result, 'conflict');
    await d.close();
  });

  test('a wrong security code or another event never reaches the server', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    const before = server.requests;
    const wrong = await d.service.scan(server.ticketUrl(a, a.eventId, 'deadbeef00'));
    const other = await d.service.scan(server.ticketUrl(a, 999));
    const junk = await d.service.scan('4006381333931');
    assert.deepEqual([wrong, other, junk].map((r) => r.verdict.kind === 'invalid' && r.verdict.reason), ['wrong_security_code', 'other_event', 'unreadable']);
    assert.equal(server.requests, before);
    assert.equal(await d.db.scans.count(), 3, 'every scan is logged on the device');
    await d.close();
  });

  test('a ticket sold after the last sync is fetched, verified and admitted online', async () => {
    const server = new FakeDoorServer();
    server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    const [late] = server.seed(1, 500);
    const ok = await d.service.scan(server.ticketUrl(late));
    assert.equal(ok.verdict.kind, 'admitted');
    const forged = await d.service.scan(server.ticketUrl({ ...late, id: 501 }));
    assert.equal(forged.verdict.kind === 'invalid' && forged.verdict.reason, 'unknown_ticket');
    const [late2] = server.seed(1, 600);
    const wrongCode = await d.service.scan(server.ticketUrl(late2, late2.eventId, 'nottherightcode'));
    assert.equal(wrongCode.verdict.kind === 'invalid' && wrongCode.verdict.reason, 'wrong_security_code');
    assert.equal(server.attendees.get(600)?.checkin, null);
    await d.close();
  });

  test('with no answer the same nonce is decided offline, queued, and later de-duplicated', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(1);
    let drop = false;
    const d = await makeDevice(server, { intercept: (req) => (drop && req.path === 'batch/v1' ? 'drop-response' : 'ok') });
    await d.engine.syncNow();
    drop = true;
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.mode, 'offline');
    assert.equal(r.verdict.kind, 'admitted');
    assert.equal(server.log.length, 1, 'the server did get it');
    const [row] = await d.db.outbox.toArray();
    assert.equal(row.nonce, r.nonce);
    assert.equal(d.engine.status.online, false, 'later scans go straight to offline');
    drop = false;
    await d.engine.syncNow();
    assert.equal(await d.db.outbox.count(), 0);
    assert.equal(server.log.length, 1);
    assert.equal(await d.db.conflicts.count(), 0, 'a replay of our own nonce is not a conflict');
    await d.close();
  });

  test('order not complete and revoked tickets are refused with the reason', async () => {
    const server = new FakeDoorServer();
    const [pending, trashed] = server.seed(2);
    pending.orderStatus = 'pending';
    const d = await makeDevice(server);
    await d.engine.syncNow();
    trashed.status = 'trash';
    server.touch(trashed);
    await d.engine.syncNow();
    const p = await d.service.scan(server.ticketUrl(pending));
    const t = await d.service.scan(server.ticketUrl(trashed));
    assert.deepEqual([p, t].map((r) => r.verdict.kind === 'invalid' && r.verdict.reason), ['order_not_complete', 'revoked']);
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    const off = await d.service.scan(server.ticketUrl(pending));
    assert.equal(off.verdict.kind === 'invalid' && off.verdict.reason, 'order_not_complete');
    assert.equal(await d.db.outbox.count(), 0);
    await d.close();
  });

  test('offline: unknown ticket on a stale cache says so; a revoked key refuses', async () => {
    const server = new FakeDoorServer();
    server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    d.clock.now += 10 * 60_000;
    const r = await d.service.scan(`${server.baseUrl}/?event_qr_code=1&ticket_id=999&event_id=10&security_code=abcabcabca`);
    assert.deepEqual(r.verdict, { kind: 'stale', attendeeId: 999, cacheAgeMs: 600_000 });
    d.online = true;
    d.engine.resetAuth();
    server.keys.clear();
    const refused = await d.service.scan(server.ticketUrl(server.attendees.get(100)!));
    assert.equal(refused.verdict.kind === 'invalid' && refused.verdict.reason, 'refused');
    assert.equal(d.engine.status.unauthorized, true);
    assert.equal(await d.db.outbox.count(), 0, 'a refused key admits no one offline');
    await d.close();
  });

  test('staff check-out and check-in by hand, offline, replay in order', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    assert.equal((await d.service.manual(a.id, true)).mode, 'online');
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    assert.equal((await d.service.manual(a.id, false)).verdict.kind, 'admitted');
    assert.equal((await getAttendee(d.db, a.id))?.checkedIn, 0);
    assert.equal((await d.service.manual(a.id, true)).verdict.kind, 'admitted');
    d.online = true;
    await d.engine.syncNow();
    assert.deepEqual(server.log.map((e) => e.result), ['accepted', 'checked_out', 'accepted']);
    assert.notEqual(server.attendees.get(a.id)?.checkin, null);
    await d.close();
  });
});
