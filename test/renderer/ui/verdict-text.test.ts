import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { translator, formatAge, orderStatusText } from '../../../renderer/ui/i18n.ts';
import { TONE_ICON, verdictText } from '../../../renderer/ui/verdict-text.ts';
import type { ScanVerdict } from '../../../shared/checkin/decide.ts';

const verdicts: ScanVerdict[] = [
  { kind: 'admitted', attendeeId: 1, name: 'Mari', ticketTitle: 'VIP' },
  { kind: 'already', attendeeId: 1, name: 'Mari', ticketTitle: 'VIP', checkedInAt: '2026-11-22T18:58:00Z', deviceId: 'door-b' },
  { kind: 'not_in_list', attendeeId: 1, syncedAgoMs: 600_000 },
  { kind: 'not_in_list', attendeeId: 1, syncedAgoMs: null },
  ...(['unreadable', 'unknown_ticket', 'other_event', 'wrong_security_code', 'revoked'] as const).map(
    (reason): ScanVerdict => ({ kind: 'invalid', reason, attendeeId: 1, name: null }),
  ),
  { kind: 'invalid', reason: 'order_not_complete', attendeeId: 1, name: 'Mari', orderStatus: 'refunded' },
  { kind: 'invalid', reason: 'refused', attendeeId: 1, name: null, message: 'key revoked' },
  { kind: 'invalid', reason: 'forged', attendeeId: 1, name: null },
];

describe('verdict texts', () => {
  test('every verdict has a colour and a distinct reason, in English and Estonian, with no placeholder left', () => {
    for (const lang of ['en', 'et'] as const) {
      const t = translator(lang);
      const details = new Set<string>();
      for (const v of verdicts) {
        const text = verdictText(v, t, lang);
        assert.ok(text.headline.length > 0);
        assert.doesNotMatch(`${text.headline} ${text.detail}`, /\{\w+\}/, `${lang} ${JSON.stringify(v)}`);
        details.add(text.detail);
      }
      assert.equal(details.size, verdicts.length, 'every verdict says why (admitted: which ticket)');
    }
  });
  test('already checked in says on which device; stale says how old the list is', () => {
    const t = translator('en');
    // Another door by its key's label, never by its hex ID.
    assert.match(verdictText(verdicts[1], t, 'en').detail, /on another door$/);
    assert.match(verdictText({ ...verdicts[1], deviceLabel: 'Door 2' } as ScanVerdict, t, 'en').detail, /on Door 2$/);
    assert.match(verdictText(verdicts[1], t, 'en', { deviceName: (id) => (id === 'door-b' ? 'Side gate' : null) }).detail, /on Side gate$/);
    assert.equal(verdictText(verdicts[2], t, 'en').detail, 'Synced 10 min ago: check by hand or sync now');
    assert.match(verdictText(verdicts[2], translator('et'), 'et').detail, /10 min tagasi/);
    assert.deepEqual(
      verdicts.slice(0, 4).map((v) => verdictText(v, t, 'en').tone),
      ['ok', 'warn', 'stale', 'stale'],
    );
    assert.equal(verdictText(verdicts[9], t, 'en').detail, 'Order not complete (refunded)');
    assert.equal(verdictText(verdicts[9], translator('et'), 'et').detail, 'Tellimus pole lõpetatud (raha tagastatud)');
  });
  test('ages use the largest whole unit', () => {
    const t = translator('en');
    assert.deepEqual(
      [5_000, 125_000, 7_300_000, 200_000_000].map((ms) => formatAge(t, ms)),
      ['5 s', '2 min', '2 h', '2 d'],
    );
  });
});

describe('signed tickets (CONTRACT section 8)', () => {
  test('a forged ticket and a revoked one are refused in plain words, in both languages', () => {
    const forged: ScanVerdict = { kind: 'invalid', reason: 'forged', attendeeId: 1, name: null };
    const revoked: ScanVerdict = { kind: 'invalid', reason: 'revoked', attendeeId: 1, name: 'Mari' };
    assert.equal(verdictText(forged, translator('en'), 'en').detail, 'Forged ticket: the signature does not match');
    assert.equal(verdictText(forged, translator('et'), 'et').detail, 'Võltsitud pilet: allkiri ei klapi');
    assert.equal(verdictText(revoked, translator('en'), 'en').detail, 'Ticket revoked');
    assert.equal(verdictText(revoked, translator('et'), 'et').detail, 'Pilet on tühistatud');
    for (const v of [forged, revoked]) assert.equal(verdictText(v, translator('en'), 'en').tone, 'bad');
  });
});

describe('door verdicts without colour, and in Estonian', () => {
  test('check-out has its own tone and shape, not WELCOME green; NOT VALID and WELCOME differ in shape', () => {
    const t = translator('en');
    const out = verdictText(verdicts[0], t, 'en', { checkOut: true });
    assert.equal(out.tone, 'out');
    assert.equal(out.headline, 'Checked out');
    const shapes = new Set(Object.values(TONE_ICON).map((i) => i.shape));
    assert.equal(shapes.size, Object.keys(TONE_ICON).length, 'every tone has its own shape');
    assert.notEqual(TONE_ICON.ok.glyph, TONE_ICON.bad.glyph);
  });
  test("server refusals are local text from their code, never the server's English message", () => {
    const refused = (code: string): ScanVerdict => ({
      kind: 'invalid',
      reason: 'refused',
      attendeeId: 1,
      name: 'Mari',
      message: 'Some English text',
      code,
    });
    const et = translator('et');
    assert.equal(verdictText(refused('attendee-not-found'), et, 'et').detail, 'Seda piletit serveris enam pole');
    assert.equal(verdictText(refused('rest_invalid_param'), et, 'et').detail, 'Server ei võtnud seda registreerimist vastu');
    assert.equal(verdictText(refused('something-new'), et, 'et').detail, 'Server keeldus (kood something-new)');
    assert.doesNotMatch(verdictText(refused('something-new'), translator('en'), 'en').detail, /English/);
    // The server refused an order the cache had as paid: no stale "paid" in the reason.
    const stale: ScanVerdict = { kind: 'invalid', reason: 'order_not_complete', attendeeId: 1, name: 'Mari', orderStatus: 'completed' };
    assert.equal(verdictText(stale, et, 'et').detail, 'Tellimus pole lõpetatud');
  });
  test('ticket titles in the kiosk language', () => {
    const v: ScanVerdict = { kind: 'admitted', attendeeId: 1, name: 'Mari', ticketTitle: 'General admission' };
    const titles: Record<string, string> = { 'General admission': 'Üldpilet' };
    assert.equal(verdictText(v, translator('et'), 'et', { ticketTitle: (s) => titles[s] ?? s }).detail, 'Üldpilet');
  });
  test('order statuses in both languages', () => {
    assert.equal(orderStatusText(translator('et'), 'pending'), 'ootab makset');
    assert.equal(orderStatusText(translator('en'), 'on-hold'), 'on hold');
    assert.equal(orderStatusText(translator('en'), 'weird'), 'weird');
  });
});
