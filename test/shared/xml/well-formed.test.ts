import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkWellFormed } from '../../../shared/xml/well-formed.ts';

function errorOf(xml: string) {
  const r = checkWellFormed(xml);
  assert.equal(r.ok, false, xml);
  return (r as Extract<typeof r, { ok: false }>).error;
}

describe('checkWellFormed', () => {
  test('accepts well-formed documents and names the root', () => {
    for (const xml of [
      '<a/>',
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><a x="1" y=\'&lt;&#65;&#x42;\'><![CDATA[<not a tag> & ]]><b/>text &amp; more<?pi data?></a>\n',
      '<!DOCTYPE a [<!ENTITY e "v"> <!ATTLIST a x CDATA "q>">]><a>&e;</a>',
      '<wpml-config><custom-fields><custom-field action="translate">title</custom-field></custom-fields></wpml-config>',
    ]) {
      const r = checkWellFormed(xml);
      assert.equal(r.ok, true, xml);
    }
  });

  test('reports the first error with line and column', () => {
    const cases: [string, number, number, number, RegExp][] = [
      ['<a>\n  <b></a>', 2, 6, 76, /Opening and ending tag mismatch: b line 2 and a/],
      ['<a x="1" x="2"/>', 1, 10, 42, /Attribute x redefined/],
      ['<a/>\n<b/>', 2, 1, 5, /Extra content/],
      ['<a>&nope;</a>', 1, 4, 26, /Entity 'nope' not defined/],
      ['<a>& b</a>', 1, 4, 68, /no name/],
      ['<a>&amp</a>', 1, 4, 23, /expecting ';'/],
      ['', 1, 1, 4, /Document is empty/],
      ['<a>\n<b>', 2, 4, 77, /Premature end of data in tag b/],
      ['<a><!-- x -- y --></a>', 1, 11, 80, /Double hyphen/],
      ['<a><!-- x </a>', 1, 4, 45, /Comment not terminated/],
      ['<a b=c/>', 1, 6, 39, /AttValue/],
      ['<a b="1"c="2"/>', 1, 9, 65, /attributes construct error/],
      ['<a b/>', 1, 5, 41, /value for attribute b/],
      ['<a b="<"/>', 1, 7, 38, /Unescaped '<'/],
      ['<a>]]></a>', 1, 4, 62, /]]>/],
      ['<a>\u0001</a>', 1, 4, 9, /out of allowed range/],
      ['<a>&#0;</a>', 1, 4, 9, /invalid xmlChar value 0/],
      ['x<a/>', 1, 1, 4, /Start tag expected/],
      ['<1a/>', 1, 2, 68, /invalid element name/],
      ['<a><?xml version="1.0"?></a>', 1, 4, 64, /XML declaration allowed only at the start/],
      ['<a><![CDATA[ x </a>', 1, 4, 63, /CData section not finished/],
      ['<?xml version="2"?><a/>', 1, 1, 96, /Malformed declaration/],
      ['<a></a >x', 1, 9, 5, /Extra content/],
    ];
    for (const [xml, line, column, code, message] of cases) {
      const e = errorOf(xml);
      assert.deepEqual([e.line, e.column, e.code], [line, column, code], xml);
      assert.match(e.message, message, xml);
    }
  });

  test('generated well-formed trees pass; cutting one off before its end never does', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/);
    const text = fc.string({ maxLength: 8 }).map((s) => s.replace(/[<&\u0000-\u001f\uD800-\uDFFF\uFFFE\uFFFF]/g, '').replace(/]]>/g, ''));
    const tree: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.tuple(name, text).map(([n, t]) => `<${n}>${t.replace(/>/g, '&gt;')}</${n}>`),
        fc.tuple(name, fc.array(tie('node'), { maxLength: 3 })).map(([n, kids]) => `<${n} k="v">${kids.join('')}</${n}>`),
      ),
    })).node;
    fc.assert(
      fc.property(tree, fc.nat(), (xml, cut) => {
        assert.equal(checkWellFormed(xml).ok, true, xml);
        const truncated = xml.slice(0, cut % xml.length);
        assert.equal(checkWellFormed(truncated).ok, false, truncated);
      }),
      { numRuns: 300 },
    );
  });
});
