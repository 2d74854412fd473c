import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BOM, neutralise, toCsv } from '../../../server/routes/forms/csv.ts';

/** An RFC 4180 reader, written independently of the writer under test. */
function parseCsv(text: string): string[][] {
  assert.ok(text.startsWith(BOM), 'starts with the byte-order mark');
  const s = text.slice(1);
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < s.length) {
    assert.equal(s[i], '"', `cell at ${i} is quoted`);
    let cell = '';
    i++;
    for (;;) {
      if (s[i] === '"' && s[i + 1] === '"') (cell += '"'), (i += 2);
      else if (s[i] === '"') break;
      else cell += s[i++];
      assert.ok(i < s.length, 'unterminated cell');
    }
    i++;
    row.push(cell);
    if (s[i] === ',') i++;
    else if (s.startsWith('\r\n', i)) rows.push(row), (row = []), (i += 2);
    else assert.fail(`unexpected ${JSON.stringify(s[i])} at ${i}`);
  }
  return rows;
}

describe('forms CSV writer', () => {
  test('round-trips any table through an RFC 4180 reader, formulas neutralised', () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', 'Z', '1', ' ', ',', '"', '\n', '\r', '\t', '=', '+', '-', '@', "'", 'ü', '€'),
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }), (table) => {
        const back = parseCsv(toCsv(table));
        assert.deepEqual(
          back,
          table.map((r) => r.map(neutralise)),
        );
        for (const r of back) for (const c of r) assert.ok(!/^[=+\-@\t\r]/.test(c), `cell ${JSON.stringify(c)} would be read as a formula`);
      }),
      { seed: 20261122, numRuns: 500 },
    );
  });

  test('neutralise prefixes exactly the dangerous leading characters', () => {
    assert.deepEqual(['=1', '+1', '-1', '@x', '\tx', '\rx', 'x=1', ' =1', "'=1", ''].map(neutralise), [
      "'=1",
      "'+1",
      "'-1",
      "'@x",
      "'\tx",
      "'\rx",
      'x=1',
      ' =1',
      "'=1",
      '',
    ]);
  });
});
