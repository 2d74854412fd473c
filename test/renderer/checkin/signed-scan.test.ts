import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { getAttendee } from '../../../renderer/store/attendees.ts';
import { trustedSigningKeys } from '../../../renderer/store/signing-keys.ts';
import { applyPairing } from '../../../renderer/sync/pairing.ts';
import { FakeDoorServer } from '../fake-door-server.ts';
import { makeDevice, type Device } from '../kiosk-fixture.ts';

/**
 * Signed tickets at the door (CONTRACT section 8): a ticket sold after the kiosk's last download is admitted
 * offline by its signature under the event key pinned at pairing, queued and uploaded once; a forged signature
 * or a revoked attendee is refused; unsigned codes are decided as before.
 */

const reasonOf = (v: { kind: string; reason?: string }) => (v.kind === 'invalid' ? v.reason : v.kind);

/** A device paired with the server's current key pinned, its list downloaded, then cut off the network. */
async function pairedOffline(server: FakeDoorServer, deviceId = 'door-a'): Promise<Device> {
  const current = server.signingKeys.at(-1)!;
  const d = await makeDevice(server, { deviceId, pairing: { signing_key: current.key, signing_key_id: current.kid } });
  await d.engine.syncNow();
  d.online = false;
  d.engine.noteNetworkFailure('cut');
  return d;
}

describe('signed tickets at the kiosk', () => {
  test('a signed ticket sold after the last download is admitted offline, queued once, uploaded once; a second scan is a re-scan', async () => {
    const server = new FakeDoorServer();
    server.addSigningKey('key-one');
    server.seed(2);
    const d = await pairedOffline(server);
    const [late] = server.seed(1, 500);
    const r = await d.service.scan(server.signedTicketUrl(late));
    assert.equal(r.mode, 'offline');
    assert.equal(r.queued, true);
    assert.deepEqual(r.verdict, { kind: 'admitted', attendeeId: late.id, name: '', ticketTitle: 'General admission' });
    assert.equal(await d.db.outbox.count(), 1);
    // Cached now, marked admitted here: the same ticket again is a re-scan, never a second admission.
    const again = await d.service.scan(server.signedTicketUrl(late));
    assert.equal(again.verdict.kind, 'already_here');
    assert.equal(again.queued, false);
    assert.equal(await d.db.outbox.count(), 1);
    const cached = await getAttendee(d.db, late.id);
    assert.equal(cached?.ticketId, server.ticketId);
    assert.equal(cached?.checkinDevice, 'door-a');
    assert.equal(server.log.length, 0, 'nothing reached the server while offline');
    d.online = true;
    await d.engine.syncNow();
    await d.engine.syncNow();
    assert.equal(await d.db.outbox.count(), 0);
    const accepted = server.log.filter((e) => e.result === 'accepted');
    assert.deepEqual(
      accepted.map((e) => [e.attendeeId, e.nonce, e.deviceId]),
      [[late.id, r.nonce, 'door-a']],
    );
    assert.equal(server.attendees.get(late.id)?.checkin?.deviceId, 'door-a');
    // The download replaced the stand-in row with the server's, name and all.
    assert.equal((await getAttendee(d.db, late.id))?.name, late.name);
    await d.close();
  });

  test('the ticket a signature covers is found among the tickets of downloaded attendees when the ticket list named none', async () => {
    const server = new FakeDoorServer();
    server.addSigningKey('key-one');
    server.seed(1);
    const d = await pairedOffline(server);
    // As the real server answers the kiosk's trimmed ticket list (`_fields=tickets.id` keeps nothing of a list).
    await d.db.tickets.clear();
    const [late] = server.seed(1, 500);
    const r = await d.service.scan(server.signedTicketUrl(late));
    assert.deepEqual(r.verdict, { kind: 'admitted', attendeeId: late.id, name: '', ticketTitle: null });
    assert.equal((await getAttendee(d.db, late.id))?.ticketId, server.ticketId);
    await d.close();
  });

  test('a signature for a ticket the kiosk has not seen (the event has more than it knows) proves nothing: not in the list, not forged', async () => {
    const server = new FakeDoorServer();
    server.addSigningKey('key-one');
    server.seed(1);
    server.unlistedTickets = 1;
    const d = await pairedOffline(server);
    const [late] = server.seed(1, 500, { ticketId: 12 });
    const unseen = await d.service.scan(server.signedTicketUrl(late));
    assert.equal(unseen.verdict.kind, 'not_in_list');
    const garbage = await d.service.scan(`${server.ticketUrl(late)}&sig=${'A'.repeat(86)}&kid=key-one`);
    assert.equal(garbage.verdict.kind, 'not_in_list');
    assert.equal(await d.db.outbox.count(), 0);
    // Once the kiosk knows every ticket of the event (here: the count drops back), the same forgery is named.
    server.unlistedTickets = 0;
    d.online = true;
    await d.engine.syncNow();
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    const [later] = server.seed(1, 600);
    const forged = await d.service.scan(`${server.ticketUrl(later)}&sig=${'A'.repeat(86)}&kid=key-one`);
    assert.equal(reasonOf(forged.verdict), 'forged');
    await d.close();
  });

  test('forged: a signature that does not verify under the pinned key is refused, nothing queued, the refusal logged', async () => {
    const server = new FakeDoorServer();
    server.addSigningKey('key-one');
    server.seed(1);
    const d = await pairedOffline(server);
    const [late] = server.seed(2, 500);
    // Another attendee's signature, a signature over another code, a key the device never trusted under the
    // trusted key's ID, and bytes that are no signature at all.
    const stolen = server.signedTicketUrl(late).replace(`ticket_id=${late.id}`, `ticket_id=${late.id + 1}`);
    const otherCode = server
      .signedTicketUrl({ ...late, securityCode: 'ffffffffffff' })
      .replace('security_code=ffffffffffff', `security_code=${late.securityCode}`);
    const evil = new FakeDoorServer();
    evil.addSigningKey('key-one');
    const wrongKey = evil.signedTicketUrl(late);
    const garbage = `${server.ticketUrl(late)}&sig=${'A'.repeat(86)}&kid=key-one`;
    const verdicts = [];
    for (const url of [stolen, otherCode, wrongKey, garbage]) verdicts.push((await d.service.scan(url)).verdict);
    assert.deepEqual(
      verdicts.map((v) => reasonOf(v)),
      ['forged', 'forged', 'forged', 'forged'],
    );
    assert.deepEqual(verdicts[2], { kind: 'invalid', reason: 'forged', attendeeId: late.id, name: null });
    assert.equal(await d.db.outbox.count(), 0, 'nobody admitted');
    assert.equal(await getAttendee(d.db, late.id), undefined);
    d.online = true;
    await d.engine.syncNow();
    assert.deepEqual(
      server.log.map((e) => [e.result, e.reason]),
      [
        ['rejected', 'forged'],
        ['rejected', 'forged'],
        ['rejected', 'forged'],
        ['rejected', 'forged'],
      ],
    );
    await d.close();
  });

  test('revoked: a signed ticket whose attendee the cache holds as trashed, refunded or cancelled is refused', async () => {
    const server = new FakeDoorServer();
    server.addSigningKey('key-one');
    const [trashed, refunded, cancelled, fine] = server.seed(4);
    const d = await pairedOffline(server);
    // The delta download brings the changes (CONTRACT section 7): made on the server, then one sync.
    trashed.status = 'trash';
    refunded.orderStatus = 'refunded';
    cancelled.orderStatus = 'cancelled';
    for (const a of [trashed, refunded, cancelled]) server.touch(a);
    d.online = true;
    await d.engine.syncNow();
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    const verdicts = [];
    for (const a of [trashed, refunded, cancelled, fine]) verdicts.push((await d.service.scan(server.signedTicketUrl(a))).verdict);
    assert.deepEqual(
      verdicts.map((v) => reasonOf(v)),
      ['revoked', 'revoked', 'revoked', 'admitted'],
    );
    assert.equal(verdicts[1].kind === 'invalid' && verdicts[1].name, refunded.name);
    // The same refunded ticket unsigned is refused as before, with its order status.
    const plain = (await d.service.scan(server.ticketUrl(refunded))).verdict;
    assert.equal(reasonOf(plain), 'order_not_complete');
    assert.equal(await d.db.outbox.count(), 1, 'only the valid one is queued');
    await d.close();
  });

  test('unsigned codes as before: an unknown one offline is "not in the list", never admitted; so is a key ID the kiosk does not trust', async () => {
    const server = new FakeDoorServer();
    server.addSigningKey('key-one');
    server.seed(1);
    const d = await pairedOffline(server);
    const [late, late2] = server.seed(2, 500);
    const unsigned = await d.service.scan(server.ticketUrl(late));
    assert.equal(unsigned.verdict.kind, 'not_in_list');
    // Made after the kiosk last read the event: it proves nothing here, so the code counts as unsigned.
    server.addSigningKey('key-two');
    const unknownKey = await d.service.scan(server.signedTicketUrl(late2));
    assert.equal(unknownKey.verdict.kind, 'not_in_list');
    assert.equal(await d.db.outbox.count(), 0);
    await d.close();
  });

  test('a kiosk with no key pinned (paired before signing) treats signed codes as unsigned', async () => {
    const server = new FakeDoorServer();
    server.seed(1);
    const d = await makeDevice(server);
    await d.engine.syncNow();
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    server.addSigningKey('key-one');
    const [late] = server.seed(1, 500);
    assert.equal((await d.service.scan(server.signedTicketUrl(late))).verdict.kind, 'not_in_list');
    await d.close();
  });

  test('rotation: a new key is learnt from the event at the next download, a revoked one dropped', async () => {
    const server = new FakeDoorServer();
    server.addSigningKey('key-one');
    server.seed(1);
    const d = await pairedOffline(server);
    assert.deepEqual(
      (await trustedSigningKeys(d.db, d.settings)).map((k) => k.kid),
      ['key-one'],
    );
    server.addSigningKey('key-two');
    d.online = true;
    await d.engine.syncNow({ refreshEvent: true });
    assert.deepEqual(
      (await trustedSigningKeys(d.db, d.settings)).map((k) => k.kid),
      ['key-one', 'key-two'],
    );
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    const [a, b] = server.seed(2, 500);
    assert.equal((await d.service.scan(server.signedTicketUrl(a))).verdict.kind, 'admitted', 'signed with the new key');
    assert.equal((await d.service.scan(server.signedTicketUrl(b, { kid: 'key-one' }))).verdict.kind, 'admitted', 'the old key still holds');
    // key-one revoked on the server: once the kiosk has read the event again, what it signs proves nothing.
    server.signingKeys[0].revoked = true;
    d.online = true;
    await d.engine.syncNow({ refreshEvent: true });
    d.online = false;
    d.engine.noteNetworkFailure('cut');
    const [c] = server.seed(1, 600);
    assert.equal((await d.service.scan(server.signedTicketUrl(c, { kid: 'key-one' }))).verdict.kind, 'not_in_list');
    // A new pairing forgets the downloaded list: its own pinned key holds until the event is read again.
    await applyPairing(
      d.db,
      { ...d.settings, api_key: 'door-key-2', signing_key: server.signingKeys[1].key, signing_key_id: 'key-two' },
      d.clock.now,
    );
    assert.deepEqual(
      (await trustedSigningKeys(d.db, { ...d.settings, signing_key: server.signingKeys[1].key, signing_key_id: 'key-two' })).map((k) => k.kid),
      ['key-two'],
    );
    await d.close();
  });
});
