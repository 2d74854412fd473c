import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createWedge } from '../../../renderer/scanner/wedge.ts';
import { createDeduper } from '../../../renderer/scanner/dedupe.ts';

/** A wedge with a hand-driven timer, so the idle terminator can be fired on purpose. */
function wedge() {
  const codes: string[] = [];
  let pending: (() => void) | null = null;
  const w = createWedge({
    onCode: (c) => codes.push(c),
    setTimer: (fn) => (pending = fn),
    clearTimer: () => (pending = null),
  });
  const type = (text: string) => {
    for (const ch of text) w.key({ key: ch });
  };
  return { w, codes, type, idle: () => pending?.() };
}

describe('keyboard wedge', () => {
  test('Enter, Tab or a pause ends a code', () => {
    const { w, codes, type, idle } = wedge();
    type('http://x/?ticket_id=1');
    assert.equal(w.key({ key: 'Enter' }), true);
    type('ABCDEF');
    w.key({ key: 'Tab' });
    type('QWERTY');
    idle();
    assert.deepEqual(codes, ['http://x/?ticket_id=1', 'ABCDEF', 'QWERTY']);
  });
  test('short bursts, modifier chords and named keys are not codes', () => {
    const { w, codes, type } = wedge();
    type('ab');
    w.key({ key: 'Enter' });
    assert.equal(w.key({ key: 'r', ctrlKey: true }), false);
    assert.equal(w.key({ key: 'Shift' }), false);
    assert.equal(w.key({ key: 'Enter' }), false, 'a lone Enter is left to the page');
    assert.deepEqual(codes, []);
  });
});

describe('same-code filter', () => {
  test('drops the same code within 3 s of its last sighting, lets other codes and later repeats through', () => {
    let now = 0;
    const accept = createDeduper(3000, () => now);
    assert.equal(accept('A'), true);
    now = 100;
    assert.equal(accept('A'), false);
    assert.equal(accept('B'), true);
    now = 2999;
    assert.equal(accept('A'), false);
    now = 3000;
    assert.equal(accept('A'), false, 'seen 1 ms ago: still the same scan');
    now = 5999;
    assert.equal(accept('A'), false, 'seen 2999 ms ago');
    now = 8999;
    assert.equal(accept('A'), true, 'away for 3 s: a new scan');
  });
  test('a ticket held in view for 12 s is one scan', () => {
    let now = 0;
    const accept = createDeduper(3000, () => now);
    let passed = 0;
    for (; now <= 12_000; now += 200) if (accept('T')) passed++;
    assert.equal(passed, 1);
    now += 3000;
    assert.equal(accept('T'), true);
  });
});
