import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { decideListScan, type ListPass, type ListRules } from '../../../shared/checkin/decide.ts';

/** The list rules (CONTRACT section 8) case by case; test/server/tickets/checkin-lists-property.test.ts checks the server against them. */

const T = Date.parse('2026-12-01T16:00:00Z'); // 18:00 in Tallinn
const H = 3_600_000;
const rules = (over: Partial<ListRules> = {}): ListRules => ({
  ticketIds: [],
  allowReentry: true,
  allowMultipleEntries: false,
  windowStart: null,
  windowEnd: null,
  entriesPerDay: null,
  timezone: 'Europe/Tallinn',
  ...over,
});
const entry = (at: number): ListPass => ({ kind: 'entry', at });
const exit = (at: number): ListPass => ({ kind: 'exit', at });
const admit = { kind: 'admit', counts: true };
const refuse = (code: string) => ({ kind: 'refuse', code });

describe('decideListScan', () => {
  test('defaults: the first entry is admitted; again without an exit is already checked in; after an exit, in again', () => {
    assert.deepEqual(decideListScan(rules(), 7, entry(T), []), admit);
    assert.deepEqual(decideListScan(rules(), 7, entry(T + H), [entry(T)]), refuse('tec-et-attendee-already-checked-in'));
    assert.deepEqual(decideListScan(rules(), 7, entry(T + 2 * H), [entry(T), exit(T + H)]), admit);
  });

  test('a ticket the list does not admit is refused, entry and exit alike; [] admits every ticket', () => {
    assert.deepEqual(decideListScan(rules({ ticketIds: [8, 9] }), 7, entry(T), []), refuse('checkin-list-ticket-not-admitted'));
    assert.deepEqual(decideListScan(rules({ ticketIds: [8, 9] }), 7, exit(T), [entry(T - H)]), refuse('checkin-list-ticket-not-admitted'));
    assert.deepEqual(decideListScan(rules({ ticketIds: [8, 9] }), 9, entry(T), []), admit);
  });

  test('the window bounds entries, ends included; exits go through outside it', () => {
    const w = rules({ windowStart: T, windowEnd: T + H });
    assert.deepEqual(decideListScan(w, 7, entry(T - 1), []), refuse('checkin-list-closed'));
    assert.deepEqual(decideListScan(w, 7, entry(T), []), admit);
    assert.deepEqual(decideListScan(w, 7, entry(T + H), []), admit);
    assert.deepEqual(decideListScan(w, 7, entry(T + H + 1), []), refuse('checkin-list-closed'));
    assert.deepEqual(decideListScan(w, 7, exit(T + 5 * H), [entry(T)]), admit);
    assert.deepEqual(decideListScan(rules({ windowStart: T }), 7, entry(T + 1000 * H), []), admit);
  });

  test('an exit counts only when the attendee is inside', () => {
    assert.deepEqual(decideListScan(rules(), 7, exit(T), []), { kind: 'admit', counts: false });
    assert.deepEqual(decideListScan(rules(), 7, exit(T + H), [entry(T), exit(T + 1)]), { kind: 'admit', counts: false });
    assert.deepEqual(decideListScan(rules(), 7, exit(T + H), [entry(T)]), admit);
  });

  test('multiple entries without an exit where allowed; no re-entry after an exit where not', () => {
    assert.deepEqual(decideListScan(rules({ allowMultipleEntries: true }), 7, entry(T + H), [entry(T)]), admit);
    const once = rules({ allowReentry: false });
    assert.deepEqual(decideListScan(once, 7, entry(T + 2 * H), [entry(T), exit(T + H)]), refuse('checkin-list-no-reentry'));
    const both = rules({ allowReentry: false, allowMultipleEntries: true });
    assert.deepEqual(decideListScan(both, 7, entry(T + H), [entry(T)]), admit);
    assert.deepEqual(decideListScan(both, 7, entry(T + 3 * H), [entry(T), entry(T + H), exit(T + 2 * H)]), refuse('checkin-list-no-reentry'));
  });

  test("entries_per_day counts the entries of the scan's site-local day", () => {
    const twice = rules({ entriesPerDay: 2 });
    const day = [entry(T), exit(T + H), entry(T + 2 * H), exit(T + 3 * H)];
    assert.deepEqual(decideListScan(twice, 7, entry(T + 4 * H), day), refuse('checkin-list-entries-exhausted'));
    // 22:30 UTC is 00:30 the next day in Tallinn (UTC+2): a new day there, though the same day in UTC.
    assert.deepEqual(decideListScan(twice, 7, entry(Date.parse('2026-12-01T22:30:00Z')), day), admit);
    assert.deepEqual(
      decideListScan({ ...twice, timezone: 'UTC' }, 7, entry(Date.parse('2026-12-01T22:30:00Z')), day),
      refuse('checkin-list-entries-exhausted'),
    );
  });

  test('the order of the checks: ticket, window, already inside, re-entry, daily entries', () => {
    const all = rules({ ticketIds: [8], windowStart: T, windowEnd: T + H, allowReentry: false, entriesPerDay: 1 });
    assert.deepEqual(decideListScan(all, 7, entry(T - 1), [entry(T - 2)]), refuse('checkin-list-ticket-not-admitted'));
    assert.deepEqual(decideListScan(all, 8, entry(T - 1), [entry(T - 2)]), refuse('checkin-list-closed'));
    assert.deepEqual(decideListScan(all, 8, entry(T + 1), [entry(T)]), refuse('tec-et-attendee-already-checked-in'));
    assert.deepEqual(decideListScan(all, 8, entry(T + 2), [entry(T), exit(T + 1)]), refuse('checkin-list-no-reentry'));
    const daily = rules({ entriesPerDay: 1, allowMultipleEntries: true });
    assert.deepEqual(decideListScan(daily, 8, entry(T + 1), [entry(T)]), refuse('checkin-list-entries-exhausted'));
  });
});
