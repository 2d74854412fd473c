/**
 * A strict XML 1.0 well-formedness checker (no DTD validation, no external entities: nothing is fetched or
 * expanded). It reports the first error with its line and column (1-based), with libxml2's message wording
 * and error codes where there is an equivalent, because the original answers with libxml2's errors.
 */

export interface XmlIssue {
  /** libxml2 `xmlParserErrors` code. */
  code: number;
  message: string;
  line: number;
  column: number;
}

export type XmlCheck = { ok: true; root: string; rootLine: number; rootColumn: number } | { ok: false; error: XmlIssue };

class Fail extends Error {
  constructor(
    readonly at: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const NAME_START =
  /[A-Za-z_:\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/;
const NAME_CHAR =
  /[-.0-9\u00B7\u0300-\u036F\u203F\u2040A-Za-z_:\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/;
// XML 1.0 Char: tab, LF, CR and everything from U+0020 but surrogates (checked in pairs), U+FFFE and U+FFFF.
const BAD_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PREDEFINED = new Set(['lt', 'gt', 'amp', 'apos', 'quot']);

function position(src: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at && i < src.length; i++) {
    if (src[i] === '\n' || (src[i] === '\r' && src[i + 1] !== '\n')) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1 };
}

export function checkWellFormed(src: string): XmlCheck {
  try {
    const p = new Parser(src);
    const root = p.document();
    const at = position(src, p.rootAt);
    return { ok: true, root, rootLine: at.line, rootColumn: at.column };
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    return { ok: false, error: { code: e.code, message: e.message, ...position(src, e.at) } };
  }
}

class Parser {
  private i = 0;
  private readonly entities = new Set<string>();
  private readonly badCharAt: number;
  /** Index of the root element's `<`. */
  rootAt = 0;

  constructor(private readonly s: string) {
    this.badCharAt = BAD_CHAR.exec(s)?.index ?? -1;
  }

  private fail(code: number, message: string, at = this.i): never {
    throw new Fail(at, code, message);
  }

  private starts(t: string): boolean {
    return this.s.startsWith(t, this.i);
  }

  private skipSpace(): boolean {
    const start = this.i;
    while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i])) this.i++;
    return this.i > start;
  }

  private name(what: string): string {
    const start = this.i;
    if (!NAME_START.test(this.s[this.i] ?? '')) this.fail(68, `${what}: invalid element name`);
    this.i++;
    while (this.i < this.s.length && NAME_CHAR.test(this.s[this.i])) this.i++;
    return this.s.slice(start, this.i);
  }

  private until(end: string, code: number, message: string, from = this.i): number {
    const j = this.s.indexOf(end, this.i);
    if (j < 0) this.fail(code, message, from);
    return j;
  }

  document(): string {
    if (this.badCharAt >= 0) {
      // Reported before anything else: simpler than at the point parsing reaches it, and the position is the same.
      this.fail(9, `Char 0x${this.s.charCodeAt(this.badCharAt).toString(16).toUpperCase()} out of allowed range`, this.badCharAt);
    }
    if (this.s.charCodeAt(0) === 0xfeff) this.i = 1;
    if (this.s.trim() === '') this.fail(4, 'Document is empty', 0);
    if (this.starts('<?xml') && /[\s?]/.test(this.s[this.i + 5] ?? '')) this.xmlDecl();
    this.misc(true);
    if (this.i >= this.s.length) this.fail(4, "Start tag expected, '<' not found");
    if (this.s[this.i] !== '<') this.fail(4, "Start tag expected, '<' not found");
    if (!NAME_START.test(this.s[this.i + 1] ?? '')) this.fail(68, 'StartTag: invalid element name', this.i + 1);
    this.rootAt = this.i;
    const root = this.element();
    this.misc(false);
    if (this.i < this.s.length) this.fail(5, 'Extra content at the end of the document');
    return root;
  }

  private xmlDecl(): void {
    const start = this.i;
    const end = this.until('?>', 57, "parsing XML declaration: '?>' expected");
    const body = this.s.slice(start + 5, end);
    if (
      !/^\s+version\s*=\s*(["'])1\.[0-9]+\1(\s+encoding\s*=\s*(["'])[A-Za-z][A-Za-z0-9._-]*\3)?(\s+standalone\s*=\s*(["'])(yes|no)\5)?\s*$/.test(body)
    ) {
      this.fail(96, 'Malformed declaration expecting version', start);
    }
    this.i = end + 2;
  }

  /** Comments, processing instructions and white space; a DOCTYPE too before the root. */
  private misc(beforeRoot: boolean): void {
    let doctypeSeen = false;
    for (;;) {
      this.skipSpace();
      if (this.starts('<!--')) this.comment();
      else if (this.starts('<?')) this.pi();
      else if (this.starts('<!DOCTYPE')) {
        if (!beforeRoot || doctypeSeen) this.fail(5, 'Extra content at the end of the document');
        doctypeSeen = true;
        this.doctype();
      } else return;
    }
  }

  private comment(): void {
    const start = this.i;
    this.i += 4;
    const end = this.until('-->', 45, 'Comment not terminated', start);
    const dd = this.s.indexOf('--', this.i);
    if (dd >= 0 && dd < end) this.fail(80, 'Double hyphen within comment', dd);
    if (this.s[end - 1] === '-') this.fail(80, 'Double hyphen within comment', end - 1);
    this.i = end + 3;
  }

  private pi(): void {
    const start = this.i;
    this.i += 2;
    const target = this.name('ParsePI');
    if (target.toLowerCase() === 'xml') this.fail(64, 'XML declaration allowed only at the start of the document', start);
    const end = this.until('?>', 47, `ParsePI: PI ${target} never end ...`, start);
    if (end > this.i && !' \t\r\n'.includes(this.s[this.i])) this.fail(47, `ParsePI: PI ${target} space expected`);
    this.i = end + 2;
  }

  private doctype(): void {
    const start = this.i;
    this.i += 9;
    if (!this.skipSpace()) this.fail(65, "Space required after '<!DOCTYPE'");
    this.name('DOCTYPE');
    let depth = 0;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '"' || c === "'") {
        const j = this.s.indexOf(c, this.i + 1);
        if (j < 0) break;
        this.i = j + 1;
        continue;
      }
      if (c === '[') depth++;
      else if (c === ']') depth--;
      else if (c === '>' && depth <= 0) {
        // General entities declared in the internal subset may be referenced (they are never expanded).
        for (const m of this.s.slice(start, this.i).matchAll(/<!ENTITY\s+([^\s%][^\s]*)\s/g)) this.entities.add(m[1]);
        this.i++;
        return;
      }
      this.i++;
    }
    this.fail(61, 'DOCTYPE improperly terminated', start);
  }

  private reference(): void {
    const start = this.i;
    this.i++;
    if (this.s[this.i] === '#') {
      const m = /^#(?:x([0-9A-Fa-f]+)|([0-9]+));/.exec(this.s.slice(this.i, this.i + 12));
      if (!m) this.fail(8, 'CharRef: invalid decimal value', start);
      const cp = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2], 10);
      const allowed =
        cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
      if (!allowed) this.fail(9, `xmlParseCharRef: invalid xmlChar value ${cp}`, start);
      this.i += m[0].length;
      return;
    }
    if (!NAME_START.test(this.s[this.i] ?? '')) this.fail(68, 'xmlParseEntityRef: no name', start);
    const name = this.name('EntityRef');
    if (this.s[this.i] !== ';') this.fail(23, "EntityRef: expecting ';'", start);
    this.i++;
    if (!PREDEFINED.has(name) && !this.entities.has(name)) this.fail(26, `Entity '${name}' not defined`, start);
  }

  /** An element from its `<`; returns its name. Iterative over the open-element stack, so depth is unbounded. */
  private element(): string {
    const stack: { name: string; at: number }[] = [];
    let root = '';
    do {
      if (this.i >= this.s.length) {
        const top = stack[stack.length - 1];
        this.fail(77, `Premature end of data in tag ${top.name} line ${position(this.s, top.at).line}`);
      }
      if (this.starts('</')) {
        const at = this.i;
        this.i += 2;
        const name = this.name('xmlParseEndTag');
        this.skipSpace();
        if (this.s[this.i] !== '>') this.fail(73, "expected '>'");
        this.i++;
        const top = stack.pop()!;
        if (top.name !== name) this.fail(76, `Opening and ending tag mismatch: ${top.name} line ${position(this.s, top.at).line} and ${name}`, at);
      } else if (this.starts('<!--')) this.comment();
      else if (this.starts('<![CDATA[')) {
        const start = this.i;
        this.i += 9;
        this.i = this.until(']]>', 63, 'CData section not finished', start) + 3;
      } else if (this.starts('<?')) this.pi();
      else if (this.s[this.i] === '<') {
        const open = this.startTag();
        if (!root) root = open.name;
        if (!open.empty) stack.push(open);
      } else this.text();
    } while (stack.length > 0);
    return root;
  }

  private startTag(): { name: string; at: number; empty: boolean } {
    const at = this.i;
    this.i++;
    const name = this.name('StartTag');
    const seen = new Set<string>();
    for (;;) {
      const spaced = this.skipSpace();
      if (this.starts('/>')) {
        this.i += 2;
        return { name, at, empty: true };
      }
      if (this.s[this.i] === '>') {
        this.i++;
        return { name, at, empty: false };
      }
      if (this.i >= this.s.length) this.fail(77, `Couldn't find end of Start Tag ${name} line ${position(this.s, at).line}`, at);
      if (!spaced) this.fail(65, 'attributes construct error');
      const attrAt = this.i;
      const attr = this.name('AttName');
      this.skipSpace();
      if (this.s[this.i] !== '=') this.fail(41, `Specification mandates value for attribute ${attr}`);
      this.i++;
      this.skipSpace();
      const q = this.s[this.i];
      if (q !== '"' && q !== "'") this.fail(39, 'AttValue: " or \' expected');
      this.i++;
      while (this.s[this.i] !== q) {
        if (this.i >= this.s.length) this.fail(40, "AttValue: ' expected", attrAt);
        if (this.s[this.i] === '<') this.fail(38, "Unescaped '<' not allowed in attributes values");
        if (this.s[this.i] === '&') this.reference();
        else this.i++;
      }
      this.i++;
      if (seen.has(attr)) this.fail(42, `Attribute ${attr} redefined`, attrAt);
      seen.add(attr);
    }
  }

  private text(): void {
    while (this.i < this.s.length && this.s[this.i] !== '<') {
      if (this.s[this.i] === '&') this.reference();
      else if (this.starts(']]>')) this.fail(62, "Sequence ']]>' not allowed in content");
      else this.i++;
    }
  }
}
