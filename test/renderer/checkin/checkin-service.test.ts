import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { getAttendee } from '../../../renderer/store/attendees.ts';
import { FakeDoorServer } from '../fake-door-server.ts';
import { makeDevice } from '../kiosk-fixture.ts';

const reasonOf = (v: { kind: string; reason?: string }) => (v.kind === 'invalid' ? v.reason : v.kind);

describe('one path: decided locally, queued with the mark, flushed with a deadline', () => {
  test('an online scan goes through the outbox and the server confirms it in time, with the same nonce', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(2);
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.mode, 'online');
    assert.equal(r.queued, true);
    assert.deepEqual(r.verdict, { kind: 'admitted', attendeeId: a.id, name: a.name, ticketTitle: 'General admission' });
    assert.equal(await d.db.outbox.count(), 0, 'uploaded and settled');
    assert.equal(server.log.length, 1);
    assert.equal(server.log[0].nonce, r.nonce);
    assert.equal(server.attendees.get(a.id)?.checkin?.deviceId, 'door-a');
    await d.close();
  });

  test('refused scans (garbage, another event, a re-scan here), offline or online, reach the server log once each with reason and device', async () => {
    const server = new FakeDoorServer();
    const [a, b] = server.seed(2);
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    await d.service.scan(server.ticketUrl(a));
    const garbage = await d.service.scan('hello world');
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    const other = await d.service.scan(server.ticketUrl(b, server.eventId + 1));
    const again = await d.service.scan(server.ticketUrl(a));
    assert.deepEqual(
      [garbage, other, again].map((r) => reasonOf(r.verdict)),
      ['unreadable', 'other_event', 'already_here'],
    );
    assert.equal(await d.db.refusals.count(), 3);
    assert.equal(await d.db.outbox.count(), 0, 'a refusal is no check-in waiting to upload');
    d.online = true;
    await d.engine.syncNow();
    await d.engine.syncNow();
    const refused = server.log.filter((e) => e.result !== 'accepted');
    assert.deepEqual(
      refused.map((e) => [e.nonce, e.result, e.reason, e.deviceId, e.attendeeId]),
      [
        [garbage.nonce, 'rejected', 'unreadable', 'door-a', null],
        // The code named an attendee of this event (with another event's ID on it): the log keeps who.
        [other.nonce, 'rejected', 'other_event', 'door-a', b.id],
        [again.nonce, 'conflict', 'already_here', 'door-a', a.id],
      ],
    );
    assert.equal(await d.db.refusals.count(), 0);
    assert.equal(server.attendees.get(a.id)?.checkin?.deviceId, 'door-a', 'the admission stands');
    await d.close();
  });

  test('a re-scan of an attendee this device admitted is "already admitted here", not sent, not a conflict', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(1);
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    await d.service.scan(server.ticketUrl(a));
    d.clock.now += 12_000;
    const before = server.requests;
    const again = await d.service.scan(server.ticketUrl(a));
    assert.equal(again.verdict.kind, 'already_here');
    assert.equal(again.verdict.kind === 'already_here' && again.verdict.agoMs, 12_000);
    assert.equal(again.queued, false);
    assert.equal(server.requests, before, 'nothing sent');
    assert.deepEqual(
      server.log.map((e) => e.result),
      ['accepted'],
    );
    assert.equal(await d.db.conflicts.count(), 0);
    // Offline too: the cache knows this device admitted them.
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    assert.equal((await d.service.scan(server.ticketUrl(a))).verdict.kind, 'already_here');
    await d.close();
  });

  test('another door admitted first and the server says so in time: ALREADY with that door, no conflict listed', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(1);
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    a.checkin = { date: '2026-11-22T17:59:50Z', deviceId: 'door-b', nonce: 'x'.repeat(16) };
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.mode, 'online');
    assert.equal(r.verdict.kind, 'already');
    assert.equal(r.verdict.kind === 'already' && r.verdict.deviceId, 'door-b');
    assert.equal(await d.db.conflicts.count(), 0, 'the door was told in time: not a double admission');
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
    assert.deepEqual(
      [wrong, other, junk].map((r) => reasonOf(r.verdict)),
      ['wrong_security_code', 'other_event', 'unreadable'],
    );
    assert.equal(server.requests, before);
    assert.equal(await d.db.scans.count(), 3, 'every scan is logged on the device');
    await d.close();
  });

  test('a walk-in sold after the last sync: looked up and admitted online; offline "not in this kiosk\'s list yet"', async () => {
    const server = new FakeDoorServer();
    server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    const [late, late2, late3] = server.seed(3, 500);
    const ok = await d.service.scan(server.ticketUrl(late));
    assert.equal(ok.verdict.kind, 'admitted');
    assert.equal(ok.mode, 'online');
    const forged = await d.service.scan(server.ticketUrl({ ...late, id: 999 }));
    assert.equal(reasonOf(forged.verdict), 'unknown_ticket', 'the server says it does not exist');
    const wrongCode = await d.service.scan(server.ticketUrl(late2, late2.eventId, 'nottherightcode'));
    assert.equal(reasonOf(wrongCode.verdict), 'wrong_security_code');
    assert.equal(server.attendees.get(late2.id)?.checkin, null);
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    d.clock.now += 120_000;
    const off = await d.service.scan(server.ticketUrl(late3));
    assert.deepEqual(off.verdict, { kind: 'not_in_list', attendeeId: late3.id, syncedAgoMs: 120_000 });
    assert.equal(await d.db.outbox.count(), 0, 'nobody admitted on an unknown code');
    await d.close();
  });

  test('with no answer the local verdict stands, queued with the same nonce, and later de-duplicated', async () => {
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
    assert.equal(d.engine.status.online, false, 'later scans do not wait');
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
    assert.deepEqual(
      [p, t].map((r) => reasonOf(r.verdict)),
      ['order_not_complete', 'revoked'],
    );
    // Paid since the last sync: the lookup finds it complete and admits.
    pending.orderStatus = 'completed';
    assert.equal((await d.service.scan(server.ticketUrl(pending))).verdict.kind, 'admitted');
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    const off = await d.service.scan(server.ticketUrl(trashed));
    assert.equal(reasonOf(off.verdict), 'revoked');
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
    assert.deepEqual(
      server.log.map((e) => e.result),
      ['accepted', 'checked_out', 'accepted'],
    );
    assert.ok(server.attendees.get(a.id)?.checkin, 'checked in on the server (a missing attendee no longer passes)');
    await d.close();
  });
});

describe('device state is never a ticket verdict', () => {
  test('revoked key: the banner state, valid tickets still admitted from the cache and kept queued', async () => {
    const server = new FakeDoorServer();
    const [a, b] = server.seed(2);
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    server.keys.clear();
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.verdict.kind, 'admitted', 'a refused key does not turn a valid ticket into NOT VALID');
    assert.equal(d.engine.status.device?.kind, 'revoked');
    assert.equal(r.device?.kind, 'revoked');
    const r2 = await d.service.scan(server.ticketUrl(b));
    assert.equal(r2.verdict.kind, 'admitted');
    assert.equal(await d.db.outbox.count(), 2, 'kept for the new key');
    assert.equal(server.log.length, 0);
    // A new key for the same server and event: the queue goes up.
    server.keys.add('door-key');
    d.engine.resetAuth();
    await d.engine.syncNow();
    assert.equal(await d.db.outbox.count(), 0);
    assert.deepEqual(
      server.log.map((e) => e.result),
      ['accepted', 'accepted'],
    );
    await d.close();
  });

  test('wrong event (a key scoped to another event): the banner state, no NOT VALID, nothing rejected', async () => {
    const server = new FakeDoorServer();
    const [a, b] = server.seed(2);
    const d = await makeDevice(server, { deviceId: 'door-a' });
    await d.engine.syncNow();
    server.keyScopes.set('door-key', 77);
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.verdict.kind, 'admitted');
    assert.equal(d.engine.status.device?.kind, 'wrong_event');
    const walkIn = server.seed(1, 900)[0];
    const w = await d.service.scan(server.ticketUrl(walkIn));
    assert.equal(w.verdict.kind, 'not_in_list', "the server's 404 to a key for another event says nothing about the ticket");
    const r2 = await d.service.scan(server.ticketUrl(b));
    assert.equal(r2.verdict.kind, 'admitted');
    assert.equal(await d.db.rejected.count(), 0);
    assert.equal(await d.db.outbox.count(), 2);
    await d.close();
  });

  test('a server that is not a Doorstep server and a clock off by more than 2 minutes are device states', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    assert.deepEqual(d.engine.status.problems, []);
    server.now = () => d.clock.now - 5 * 60_000;
    await d.engine.syncNow();
    assert.equal(d.engine.status.device?.kind, 'clock_off');
    assert.ok(Math.abs((d.engine.status.clockSkewMs ?? 0) - 300_000) < 1000);
    server.now = () => d.clock.now;
    server.rootKind = 'html';
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.verdict.kind, 'admitted');
    assert.equal(d.engine.status.device?.kind, 'not_doorstep');
    server.rootKind = 'doorstep';
    d.engine.resetAuth();
    await d.engine.syncNow();
    assert.deepEqual(d.engine.status.problems, []);
    assert.equal(server.log.length, 1);
    await d.close();
  });
});
