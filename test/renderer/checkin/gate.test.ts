import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { ScanVerdict } from '../../../shared/checkin/decide.ts';
import { CheckinDetails } from '../../../shared/checkin/wire.ts';
import type { CheckinList } from '../../../shared/models/checkin-lists.ts';
import { verdictFromFate } from '../../../renderer/checkin/checkin-service.ts';
import { gateCounts, loadGate, replaceServerPasses, saveGate, type GateState } from '../../../renderer/checkin/gate.ts';
import { formatTime, translator } from '../../../renderer/ui/i18n.ts';
import { verdictText } from '../../../renderer/ui/verdict-text.ts';
import { FakeDoorServer } from '../fake-door-server.ts';
import { makeDevice, type Device } from '../kiosk-fixture.ts';

/**
 * A kiosk on a check-in list decides offline through the list's rules (renderer/checkin/gate.ts) and words the
 * refusals with the list's name and window, in both kiosk languages. The fake server knows no lists: the gate is
 * stored as a sync would store it, and the kiosk is then cut off.
 */

const GENERAL = 11;
const VIP = 12;
const TZ = 'Europe/Tallinn';
/** The fixture's clock: 2026-11-22 18:00 UTC, 20:00 in Tallinn. */
const T0 = Date.parse('2026-11-22T18:00:00Z');

function list(over: Partial<CheckinList> = {}): CheckinList {
  return {
    id: 7,
    event_id: 10,
    name: 'VIP',
    ticket_ids: [VIP],
    allow_reentry: true,
    allow_multiple_entries: false,
    window_start: null,
    window_end: null,
    entries_per_day: null,
    direction: 'entry',
    ...over,
  };
}

const status = { checked_in: 3, inside: 2, expected: 10, event: { checked_in: 5, inside: 4, expected: 20 } };

async function gateDevice(over: Partial<CheckinList> = {}, opts: { signed?: boolean } = {}) {
  const server = new FakeDoorServer();
  const key = opts.signed ? server.addSigningKey('key-one') : null;
  const general = server.seed(2, 100);
  const vip = server.seed(3, 200, { ticketId: VIP });
  const d = await makeDevice(server, { deviceId: 'vip-1', pairing: key ? { signing_key: key.key, signing_key_id: key.kid } : {} });
  await d.engine.syncNow();
  const gate: GateState = { list: list(over), timezone: TZ, status, statusAt: T0 };
  await saveGate(d.db, gate);
  cut(d);
  return { server, general, vip, d, gate };
}

function cut(d: Device): void {
  d.online = false;
  d.engine.noteNetworkFailure('cut');
}

const words = (v: ScanVerdict, gate: GateState, lang: 'en' | 'et', now = T0) => {
  const text = verdictText(v, translator(lang), lang, { gate, now });
  return `${text.headline} | ${text.detail}`;
};

describe('offline decisions through the kiosk’s check-in list', () => {
  test('a VIP gate admits a VIP ticket and refuses a general one as a ticket for another gate, in both languages', async () => {
    const { server, general, vip, d, gate } = await gateDevice();
    const ok = await d.service.scan(server.ticketUrl(vip[0]));
    assert.equal(ok.mode, 'offline');
    assert.equal(ok.verdict.kind, 'admitted');
    const no = await d.service.scan(server.ticketUrl(general[0]));
    assert.deepEqual(no.verdict, {
      kind: 'invalid',
      reason: 'refused',
      attendeeId: general[0].id,
      name: general[0].name,
      code: 'checkin-list-ticket-not-admitted',
    });
    assert.equal(no.queued, false, 'a refusal is no check-in to upload');
    assert.equal(no.gate?.list.name, 'VIP');
    assert.equal(words(no.verdict, gate, 'en'), 'Not valid | This ticket is for another gate: not on the VIP list');
    assert.equal(words(no.verdict, gate, 'et'), 'Ei kehti | See pilet on teise värava jaoks: pole nimekirjas VIP');
    // The refusal goes to the server's log like any other, with the list's code as its reason.
    assert.deepEqual(
      (await d.db.refusals.toArray()).map((r) => [r.attendeeId, r.result, r.reason]),
      [[general[0].id, 'rejected', 'checkin-list-ticket-not-admitted']],
    );
    await d.close();
  });

  test('before the window an entry is refused with the opening time in the site’s time; from then on admitted', async () => {
    const { server, vip, d, gate } = await gateDevice({ window_start: '2026-11-22 21:00:00', window_end: '2026-11-22 23:30:00' });
    const early = await d.service.scan(server.ticketUrl(vip[0]));
    assert.equal(early.verdict.kind === 'invalid' && early.verdict.code, 'checkin-list-closed');
    assert.equal(words(early.verdict, gate, 'en'), 'Not valid | Doors open at 21:00');
    assert.equal(words(early.verdict, gate, 'et'), 'Ei kehti | Uksed avatakse kell 21:00');
    d.clock.now = Date.parse('2026-11-22T19:00:00Z'); // 21:00 in Tallinn
    assert.equal((await d.service.scan(server.ticketUrl(vip[0]))).verdict.kind, 'admitted');
    d.clock.now = Date.parse('2026-11-22T21:31:00Z'); // 23:31
    const late = await d.service.scan(server.ticketUrl(vip[1]));
    assert.equal(words(late.verdict, gate, 'en', d.clock.now), 'Not valid | This gate closed at 23:30');
    // A window on another day names the day.
    const tomorrow = { ...gate, list: list({ window_start: '2026-11-23 18:00:00' }) };
    assert.equal(words(early.verdict, tomorrow, 'en'), 'Not valid | Doors open on 23 Nov at 18:00');
    await d.close();
  });

  test('inside: a second entry is "already inside since"; after an exit (staff check-out) the list’s re-entry rule decides', async () => {
    const { server, vip, d, gate } = await gateDevice();
    await d.service.scan(server.ticketUrl(vip[0]));
    d.clock.now += 60_000;
    const again = await d.service.scan(server.ticketUrl(vip[0]));
    assert.equal(again.verdict.kind, 'already');
    const since = formatTime('en', new Date(T0).toISOString(), d.clock.now);
    assert.equal(words(again.verdict, gate, 'en', d.clock.now), `Already inside | Already inside since ${since} \u2014 scan at the exit first`);
    assert.equal(
      words(again.verdict, gate, 'et', d.clock.now),
      `Juba sees | Juba sees alates ${formatTime('et', new Date(T0).toISOString(), d.clock.now)} \u2014 skanni esmalt väljapääsul`,
    );
    d.clock.now += 60_000;
    const out = await d.service.manual(vip[0].id, false);
    assert.equal(out.verdict.kind, 'admitted');
    assert.deepEqual(
      (await d.db.outbox.toArray()).map((r) => r.checkIn),
      [true, false],
      'the exit is queued as check_in: false',
    );
    d.clock.now += 60_000;
    assert.equal((await d.service.scan(server.ticketUrl(vip[0]))).verdict.kind, 'admitted', 're-entry allowed');
    await d.close();

    const strict = await gateDevice({ allow_reentry: false });
    await strict.d.service.scan(strict.server.ticketUrl(strict.vip[0]));
    strict.d.clock.now += 60_000;
    await strict.d.service.manual(strict.vip[0].id, false);
    strict.d.clock.now += 60_000;
    const back = await strict.d.service.scan(strict.server.ticketUrl(strict.vip[0]));
    assert.equal(back.verdict.kind === 'invalid' && back.verdict.code, 'checkin-list-no-reentry');
    assert.equal(words(back.verdict, strict.gate, 'en'), 'Not valid | No re-entry on this list');
    assert.equal(words(back.verdict, strict.gate, 'et'), 'Ei kehti | Selle nimekirjaga uuesti sisse ei saa');
    await strict.d.close();
  });

  test('a kiosk on an exit list is an exit: its scans are queued as exits and its screen says goodbye; other gates’ tickets still refused', async () => {
    const { server, vip, general, d, gate } = await gateDevice({ direction: 'exit' });
    const out = await d.service.scan(server.ticketUrl(vip[0]));
    assert.equal(out.verdict.kind, 'admitted');
    assert.equal(words(out.verdict, gate, 'en'), 'Goodbye | Exit through VIP recorded');
    assert.equal(words(out.verdict, gate, 'et'), 'Head aega | Väljumine läbi VIP on kirja pandud');
    // Staff asking for a check-in by hand on an exit kiosk make an exit too.
    d.clock.now += 60_000;
    await d.service.manual(vip[1].id, true);
    assert.deepEqual(
      (await d.db.outbox.toArray()).map((r) => [r.attendeeId, r.checkIn]),
      [
        [vip[0].id, false],
        [vip[1].id, false],
      ],
    );
    const other = await d.service.scan(server.ticketUrl(general[0]));
    assert.equal(other.verdict.kind === 'invalid' && other.verdict.code, 'checkin-list-ticket-not-admitted');
    await d.close();
  });

  test('entries per day are counted in the site’s day', async () => {
    const { server, vip, d, gate } = await gateDevice({ entries_per_day: 1 });
    await d.service.scan(server.ticketUrl(vip[0]));
    d.clock.now += 60_000;
    await d.service.manual(vip[0].id, false);
    d.clock.now += 60_000;
    const second = await d.service.scan(server.ticketUrl(vip[0]));
    assert.equal(second.verdict.kind === 'invalid' && second.verdict.code, 'checkin-list-entries-exhausted');
    assert.equal(words(second.verdict, gate, 'en'), 'Not valid | Entries for today used');
    assert.equal(words(second.verdict, gate, 'et'), 'Ei kehti | Tänased sissepääsud on kasutatud');
    // 22:30 UTC is already the next day in Tallinn (00:30): a new day's entry.
    d.clock.now = Date.parse('2026-11-22T22:30:00Z');
    assert.equal((await d.service.scan(server.ticketUrl(vip[0]))).verdict.kind, 'admitted');
    await d.close();
  });

  test('a code the kiosk does not know, on a list admitting some tickets: maybe another gate’s, maybe sold since the sync', async () => {
    const { server, d, gate } = await gateDevice();
    const [walkIn] = server.seed(1, 300, { ticketId: GENERAL });
    const r = await d.service.scan(server.ticketUrl(walkIn));
    assert.equal(r.verdict.kind, 'not_in_list');
    const age = r.verdict.kind === 'not_in_list' ? r.verdict.syncedAgoMs : null;
    assert.equal(age, 0);
    assert.equal(words(r.verdict, gate, 'en'), 'Not on the VIP list | A ticket for another gate, or sold after the last sync (0 s ago)');
    assert.equal(words(r.verdict, gate, 'et'), 'Pole nimekirjas VIP | Pilet teise värava jaoks või müüdud pärast viimast sünkroonimist (0 s tagasi)');
    // A list admitting every ticket says what a kiosk without a list says.
    const open = { ...gate, list: list({ ticket_ids: [] }) };
    assert.equal(verdictText(r.verdict, translator('en'), 'en', { gate: open, now: T0 }).headline, "Not in this kiosk's list yet");
    await d.close();
  });

  test('a SIGNED ticket of another gate the kiosk never downloaded: refused offline in the online words, not "maybe sold since"', async () => {
    const { server, d, gate } = await gateDevice({}, { signed: true });
    // Sold after the sync, for the general ticket: its signature names the ticket, which the VIP list does not admit.
    const [walkIn] = server.seed(1, 300, { ticketId: GENERAL });
    const r = await d.service.scan(server.signedTicketUrl(walkIn));
    assert.equal(r.mode, 'offline');
    assert.deepEqual(r.verdict, { kind: 'invalid', reason: 'refused', attendeeId: walkIn.id, name: '', code: 'checkin-list-ticket-not-admitted' });
    assert.equal(words(r.verdict, gate, 'en'), 'Not valid | This ticket is for another gate: not on the VIP list');
    assert.equal(r.queued, false, 'nothing to upload');
    assert.equal(await d.db.outbox.count(), 0);
    // A signed VIP ticket sold since is still admitted by its signature.
    const [lateVip] = server.seed(1, 400, { ticketId: VIP });
    const ok = await d.service.scan(server.signedTicketUrl(lateVip));
    assert.equal(ok.verdict.kind, 'admitted');
    assert.equal(ok.queued, true);
    await d.close();
  });

  test('passes from the server’s log (another kiosk of the list) decide too', async () => {
    const { server, vip, d } = await gateDevice();
    await replaceServerPasses(d.db, [{ nonce: 'other-kiosk-nonce-1', listId: 7, attendeeId: vip[1].id, kind: 'entry', at: T0 - 600_000 }]);
    assert.equal((await d.service.scan(server.ticketUrl(vip[1]))).verdict.kind, 'already');
    // A pass on another list is not this list's history.
    await replaceServerPasses(d.db, [{ nonce: 'other-list-nonce-1', listId: 8, attendeeId: vip[2].id, kind: 'entry', at: T0 - 600_000 }]);
    assert.equal((await d.service.scan(server.ticketUrl(vip[2]))).verdict.kind, 'admitted');
    await d.close();
  });

  test('a kiosk whose key is bound to no list decides as before', async () => {
    const server = new FakeDoorServer();
    const [a] = server.seed(1, 100, { ticketId: GENERAL });
    const d = await makeDevice(server);
    await d.engine.syncNow();
    assert.equal(await loadGate(d.db), null);
    cut(d);
    const r = await d.service.scan(server.ticketUrl(a));
    assert.equal(r.verdict.kind, 'admitted');
    assert.equal(r.gate, null);
    assert.equal((await d.service.scan(server.ticketUrl(a))).verdict.kind, 'already_here');
    await d.close();
  });
});

describe('the server’s refusals read as the kiosk’s own', () => {
  test('each list code the server answers a queued scan with is worded as the kiosk words its own decision', () => {
    const gate: GateState = { list: list({ window_start: '2026-11-22 21:00:00' }), timezone: TZ, status, statusAt: T0 };
    const local = { kind: 'admitted' as const, attendeeId: 200, name: 'Guest 200', ticketTitle: 'VIP' };
    const refused = (code: string) => verdictFromFate({ kind: 'rejected', code, message: 'server English', status: 400 }, local, undefined)!;
    const cases: Array<[string, string, string]> = [
      [
        'checkin-list-ticket-not-admitted',
        'This ticket is for another gate: not on the VIP list',
        'See pilet on teise värava jaoks: pole nimekirjas VIP',
      ],
      ['checkin-list-closed', 'Doors open at 21:00', 'Uksed avatakse kell 21:00'],
      ['checkin-list-no-reentry', 'No re-entry on this list', 'Selle nimekirjaga uuesti sisse ei saa'],
      ['checkin-list-entries-exhausted', 'Entries for today used', 'Tänased sissepääsud on kasutatud'],
    ];
    for (const [code, en, et] of cases) {
      assert.equal(words(refused(code), gate, 'en'), `Not valid | ${en}`, code);
      assert.equal(words(refused(code), gate, 'et'), `Ei kehti | ${et}`, code);
    }
    const standing = { date: '2026-11-22T17:50:00+00:00', date_details: {}, source: 'kiosk', author: '7', device_id: 'vip-2' };
    const conflict = verdictFromFate({ kind: 'conflict', standing: CheckinDetails.parse(standing), message: '' }, local, undefined)!;
    const since = formatTime('en', standing.date, T0);
    assert.equal(words(conflict, gate, 'en'), `Already inside | Already inside since ${since} \u2014 scan at the exit first`);
  });
});

describe('counts on a kiosk of a list', () => {
  test('the status of the last sync plus this kiosk’s passes not in the server’s log', async () => {
    const { server, vip, d, gate } = await gateDevice();
    assert.deepEqual(await gateCounts(d.db, gate), {
      list: { checkedIn: 3, inside: 2, expected: 10 },
      event: { checkedIn: 5, inside: 4, expected: 20 },
    });
    // The server's log has vip[1] inside (counted in the status); this kiosk lets vip[0] in and vip[1] out.
    await replaceServerPasses(d.db, [{ nonce: 'server-1', listId: 7, attendeeId: vip[1].id, kind: 'entry', at: T0 - 600_000 }]);
    await d.service.scan(server.ticketUrl(vip[0]));
    await d.service.manual(vip[1].id, false);
    assert.deepEqual(await gateCounts(d.db, gate), {
      list: { checkedIn: 4, inside: 2, expected: 10 },
      event: { checkedIn: 5 + 1, inside: 4, expected: 20 },
    });
    // An exit of someone not inside changes nothing.
    await d.service.manual(vip[2].id, false);
    assert.equal((await gateCounts(d.db, gate))?.list.inside, 2);
    // Once the server's log has this kiosk's scans (same nonces) and the queue is empty, the status counts them.
    const mine = await d.db.listPasses.toArray();
    await d.db.outbox.clear();
    await replaceServerPasses(
      d.db,
      mine.map(({ source: _s, ...p }) => p),
    );
    assert.deepEqual(await gateCounts(d.db, gate), {
      list: { checkedIn: 3, inside: 2, expected: 10 },
      event: { checkedIn: 5, inside: 4, expected: 20 },
    });
    await d.close();
  });
});
