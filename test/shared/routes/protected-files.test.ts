import { describe, test } from 'vitest';
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
    // Plain random strings almost never end in an allowed extension, so names are also built from allowed and
    // risky characters with an extension on the end: the check below must run on accepted names, not just skip.
    const unit = fc.constantFrom(...'aZ09 ._()-/\\%:~'.split(''), '\u0000');
    const names = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.tuple(fc.string({ unit, maxLength: 36 }), fc.constantFrom('.png', '.txt', '.pdf', '.exe', '')).map(([a, ext]) => a + ext),
    );
    let accepted = 0;
    fc.assert(
      fc.property(names, (name) => {
        const ok = validUploadName(name);
        if (ok === null) return;
        accepted++;
        assert.ok(!/[\\/\u0000%]/.test(name) && !name.includes('..') && !name.startsWith('.'), name);
      }),
      { numRuns: 2000 },
    );
    assert.ok(accepted > 0, 'no generated name was accepted, so the property checked nothing');
  });
});
