import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validUploadName } from '../../../shared/routes/protected-files.ts';

describe('validUploadName', () => {
  test('plain names with an allowed extension pass', () => {
    assert.equal(validUploadName('Floor plan (v2).pdf'), 'pdf');
    assert.equal(validUploadName('photo.JPEG'), 'jpeg');
    assert.equal(validUploadName('x.exe'), null);
  });

  test('no accepted name contains a separator, a parent reference, NUL, % or a leading dot', () => {
    const risky = fc.constantFrom('/', '\\', '..', '\u0000', '%2f', '%2e', ':', '\n', '~');
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), risky, fc.string({ maxLength: 20 }), fc.constantFrom('.png', '.txt', '.pdf'), (a, r, b, ext) => {
        assert.equal(validUploadName(`${a}${r}${b}${ext}`), null);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (name) => {
        const ok = validUploadName(name);
        if (ok !== null) assert.ok(!/[\\/\u0000%]/.test(name) && !name.includes('..') && !name.startsWith('.'), name);
      }),
      { numRuns: 2000 },
    );
  });
});
