import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { translator } from '../../../renderer/ui/i18n.ts';
import { conflictLine, recentScan } from '../../../renderer/ui/door-text.ts';
import { preflightItems, type PreflightFacts } from '../../../renderer/ui/preflight-text.ts';
import type { ConflictRow, ScanRow } from '../../../renderer/store/db.ts';

const at = Date.UTC(2026, 10, 22, 17, 1, 52);
const conflict = (over: Partial<ConflictRow>): ConflictRow => ({
  nonce: 'n'.repeat(32),
  attendeeId: 7,
  name: 'Karl Rebane',
  ourScanIso: '',
  ourScanAt: at,
  ourDevice: 'door-aaaa',
  theirDate: null,
  theirScanAt: at + 19_000,
  theirDevice: 'door-bbbb',
  theirDeviceLabel: 'Door 2',
  first: 'ours',
  gapMs: 19_000,
  recordedAt: at + 60_000,
  ...over,
});
const door = (c: ConflictRow) => c.theirDeviceLabel ?? 'another door';

/** A moment as the server writes event dates: site time (here the machine's), `Y-m-d H:i:s`. */
function localDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

describe('main screen texts', () => {
  test("the conflict line is worded by who came first, with the other door's label and the time to the second", () => {
    const en = translator('en');
    const clock = (ms: number) => new Date(ms).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    assert.equal(conflictLine(conflict({}), en, 'en', door), `Karl Rebane was also admitted at Door 2, ${clock(at + 19_000)}, 19 s after you`);
    assert.equal(
      conflictLine(conflict({ first: 'theirs', theirScanAt: at - 19_000 }), en, 'en', door),
      `Karl Rebane was already admitted at Door 2, ${clock(at - 19_000)}, 19 s before you`,
    );
    assert.equal(conflictLine(conflict({ first: null, theirScanAt: null, gapMs: null }), en, 'en', door), 'Karl Rebane was also admitted at Door 2');
    assert.match(
      conflictLine(conflict({}), translator('et'), 'et', door),
      /^Karl Rebane lasti sisse ka uksel Door 2 kell \d\d:\d\d:\d\d, 19 s pärast sind$/,
    );
  });

  test('recent scans: a verdict per row, names only where the verdict named the guest', () => {
    const t = translator('en');
    const row = (over: Partial<ScanRow>): ScanRow => ({ nonce: 'x', at, attendeeId: 5, verdict: 'admitted', reason: null, mode: 'offline', ...over });
    assert.deepEqual([recentScan(row({}), 'Mari', t, 'en').tone, recentScan(row({ verdict: 'checked_out' }), 'Mari', t, 'en').tone], ['ok', 'out']);
    assert.equal(recentScan(row({}), 'Mari', t, 'en').who, 'Mari');
    assert.equal(recentScan(row({ verdict: 'checked_out' }), 'Mari', t, 'en').label, 'Checked out');
    const guessed = recentScan(row({ verdict: 'invalid', reason: 'wrong_security_code' }), 'Mari', t, 'en');
    assert.equal(guessed.who, 'Ticket #5', 'a wrong security code learns no name');
    assert.equal(guessed.tone, 'bad');
    assert.equal(guessed.label, 'Not valid: Security code does not match', 'the reason the verdict gave stays');
    assert.equal(recentScan(row({ verdict: 'invalid', reason: 'other_event' }), undefined, t, 'en').label, 'Not valid: Ticket for another event');
    assert.equal(
      recentScan(row({ verdict: 'invalid', reason: 'other_event' }), undefined, translator('et'), 'et').label,
      'Ei kehti: Pilet on teisele üritusele',
    );
    assert.equal(recentScan(row({ verdict: 'invalid', reason: 'order_not_complete' }), 'Mari', t, 'en').label, 'Not valid: Order not complete');
    assert.equal(recentScan(row({ verdict: 'invalid', reason: 'unreadable', attendeeId: null }), undefined, t, 'en').who, 'Unknown ticket');
    assert.equal(recentScan(row({ verdict: 'already_here' }), 'Mari', t, 'en').tone, 'warn');
    assert.match(recentScan(row({}), 'Mari', t, 'en').time, /^\d\d:\d\d:\d\d$/);
  });

  test('preflight: a clock more than 2 minutes off the server is a warning; under it is fine', () => {
    const t = translator('en');
    const facts: PreflightFacts = {
      now: at,
      lastSyncAt: at - 180_000,
      ready: true,
      cached: 120,
      expected: 120,
      pending: 3,
      clockSkewMs: 5 * 60_000,
      camera: { state: 'ok', label: 'USB camera', width: 1280, height: 720 },
      online: true,
      problems: [],
      lastError: null,
      event: { startDate: localDate(at + 3_600_000), endDate: localDate(at + 5 * 3_600_000) },
    };
    const items = preflightItems(facts, t, 'en');
    const skew = items.find((i) => i.id === 'skew')!;
    assert.equal(skew.ok, false);
    assert.match(skew.value, /^5 min off/);
    assert.equal(preflightItems({ ...facts, clockSkewMs: -90_000 }, t, 'en').find((i) => i.id === 'skew')!.ok, true);
    assert.equal(preflightItems({ ...facts, clockSkewMs: null }, t, 'en').find((i) => i.id === 'skew')!.ok, false);
    assert.equal(items.find((i) => i.id === 'cached')!.value, '120 of 120 expected');
    assert.match(items.find((i) => i.id === 'sync')!.value, /\(3 min ago\)$/);
    assert.equal(preflightItems({ ...facts, cached: 80, expected: 120 }, t, 'en').find((i) => i.id === 'cached')!.ok, false);
    assert.equal(preflightItems({ ...facts, camera: { state: 'blocked' } }, t, 'en').find((i) => i.id === 'camera')!.ok, false);
  });

  test('preflight: offline, a refused key and an event days away are each a warning, with a row of their own', () => {
    const t = translator('en');
    const facts: PreflightFacts = {
      now: at,
      lastSyncAt: at - 60_000,
      ready: true,
      cached: 10,
      expected: 10,
      pending: 0,
      clockSkewMs: 1000,
      camera: { state: 'ok', label: 'USB camera', width: 1280, height: 720 },
      online: true,
      problems: [],
      lastError: null,
      event: { startDate: localDate(at + 3_600_000), endDate: localDate(at + 5 * 3_600_000) },
    };
    const row = (f: PreflightFacts, id: string) => preflightItems(f, t, 'en').find((i) => i.id === id)!;
    assert.ok(
      preflightItems(facts, t, 'en').every((i) => i.ok),
      'all well: every row fine',
    );
    assert.deepEqual([row(facts, 'connection').value, row(facts, 'key').value], ['online: the server answers', 'accepted by the server']);
    assert.match(row(facts, 'event').value, /^starts .* \(in 1 h\)$/);
    const offline = {
      ...facts,
      online: false,
      lastError: 'Failed to fetch',
      problems: [{ kind: 'unreachable' as const, since: at, message: 'Failed to fetch' }],
    };
    assert.equal(row(offline, 'connection').ok, false);
    assert.match(row(offline, 'connection').value, /^offline: the server cannot be reached \(Failed to fetch\)/);
    assert.equal(row(offline, 'key').ok, false, 'not known to be good while the server cannot be asked');
    const revoked = { ...facts, problems: [{ kind: 'revoked' as const, since: at, message: 'HTTP 401' }] };
    assert.deepEqual([row(revoked, 'key').ok, row(revoked, 'key').value], [false, 'refused by the server: pair again with a new key']);
    const later = { ...facts, event: { startDate: localDate(at + 20 * 86_400_000), endDate: null } };
    assert.equal(row(later, 'event').ok, false);
    assert.match(row(later, 'event').value, /^starts .*, in 20 d: this kiosk admits its guests today all the same$/);
    const ended = { ...facts, event: { startDate: localDate(at - 5 * 86_400_000), endDate: localDate(at - 4 * 86_400_000) } };
    assert.deepEqual([row(ended, 'event').ok, /^ended .* \(4 d ago\)$/.test(row(ended, 'event').value)], [false, true]);
  });
});
