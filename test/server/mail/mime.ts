/**
 * A small MIME reader for the tests: enough of RFC 5322/2045/2046/2047 to read what nodemailer writes
 * (folded headers, nested multiparts, base64 and quoted-printable bodies, encoded-word subjects).
 */
export interface MimePart {
  headers: Record<string, string>;
  /** Content-Type without parameters, lower case. */
  type: string;
  params: Record<string, string>;
  body: Buffer;
  parts: MimePart[];
}

function decodeWords(s: string): string {
  return s.replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=\s*(?==\?)?/g, (_m, _cs: string, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

function parseParams(value: string): { value: string; params: Record<string, string> } {
  const [head, ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i < 0) continue;
    params[p.slice(0, i).trim().toLowerCase()] = p
      .slice(i + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { value: head.trim().toLowerCase(), params };
}

function decodeBody(raw: string, encoding: string): Buffer {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(raw.replace(/\s+/g, ''), 'base64');
    case 'quoted-printable': {
      const s = raw.replace(/=\r?\n/g, '');
      const bytes: number[] = [];
      for (let i = 0; i < s.length; i++) {
        if (s[i] === '=' && /^[0-9A-F]{2}$/i.test(s.slice(i + 1, i + 3))) {
          bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
          i += 2;
        } else bytes.push(...Buffer.from(s[i], 'utf8'));
      }
      return Buffer.from(bytes);
    }
    default:
      return Buffer.from(raw, 'utf8');
  }
}

export function parseMime(input: string | Buffer): MimePart {
  const text = (typeof input === 'string' ? input : input.toString('utf8')).replace(/\r\n/g, '\n');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const rawBody = split < 0 ? '' : text.slice(split + 2);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = decodeWords(line.slice(i + 1).trim());
  }
  const ct = parseParams(headers['content-type'] ?? 'text/plain');
  const part: MimePart = { headers, type: ct.value, params: ct.params, body: Buffer.alloc(0), parts: [] };
  if (ct.value.startsWith('multipart/') && ct.params.boundary) {
    const sections = rawBody.split(`--${ct.params.boundary}`);
    // First section is the preamble, the one after the closing delimiter ("--") the epilogue.
    for (const sec of sections.slice(1)) {
      if (sec.startsWith('--')) break;
      part.parts.push(parseMime(sec.replace(/^\n/, '').replace(/\n$/, '')));
    }
  } else {
    part.body = decodeBody(rawBody, headers['content-transfer-encoding'] ?? '7bit');
  }
  return part;
}

/** Every leaf part, depth first. */
export function leaves(p: MimePart): MimePart[] {
  return p.parts.length ? p.parts.flatMap(leaves) : [p];
}
