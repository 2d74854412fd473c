import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Hex } from '../../../shared/checkin/sha256.ts';
import { hashSecurityCode, securityCodeMatches } from '../../../shared/checkin/security-code.ts';

describe('sha256Hex', () => {
  test('matches the FIPS test vectors', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
  test('agrees with node:crypto on random strings of every block-boundary length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 150 }), (s) => {
        assert.equal(sha256Hex(s), createHash('sha256').update(s, 'utf8').digest('hex'));
      }),
      { seed: 4, numRuns: 300 },
    );
  });
});

describe('hashSecurityCode', () => {
  test('depends on the attendee and ignores case and surrounding space', () => {
    const h = hashSecurityCode(12, 'ab12cd34ef');
    assert.notEqual(h, hashSecurityCode(13, 'ab12cd34ef'));
    assert.equal(h, hashSecurityCode(12, ' AB12CD34EF\n'));
    assert.equal(securityCodeMatches(12, 'AB12cd34ef', h), true);
    assert.equal(securityCodeMatches(12, 'ab12cd34e0', h), false);
    assert.doesNotMatch(h, /ab12cd34ef/);
  });
});
