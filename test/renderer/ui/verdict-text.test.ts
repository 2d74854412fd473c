import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { translator, formatAge } from '../../../renderer/ui/i18n.ts';
import { verdictText } from '../../../renderer/ui/verdict-text.ts';
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
    assert.match(verdictText(verdicts[1], t, 'en').detail, /on door-b$/);
    assert.equal(verdictText(verdicts[2], t, 'en').detail, 'Synced 10 min ago: check by hand or sync now');
    assert.match(verdictText(verdicts[2], translator('et'), 'et').detail, /10 min tagasi/);
    assert.deepEqual(verdicts.slice(0, 4).map((v) => verdictText(v, t, 'en').tone), ['ok', 'warn', 'stale', 'stale']);
    assert.equal(verdictText(verdicts[9], t, 'en').detail, 'Order not complete (refunded)');
  });
  test('ages use the largest whole unit', () => {
    const t = translator('en');
    assert.deepEqual([5_000, 125_000, 7_300_000, 200_000_000].map((ms) => formatAge(t, ms)), ['5 s', '2 min', '2 h', '2 d']);
  });
});
