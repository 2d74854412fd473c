import { z } from 'zod';
import { HttpError } from '../kernel/errors.ts';

/**
 * What other modules hand to `sendMail`. Addresses are validated here, once, so a message that reaches the
 * log can always be composed; a bad address is the caller's 400, not a failed delivery later.
 */
export interface MailAttachment {
  filename: string;
  /** The bytes; or leave it out and give `qrText`. */
  content?: Buffer | string;
  /**
   * A PNG QR code of this text, drawn after the transaction commits (drawing one takes milliseconds, too
   * long to hold the database's write lock for a large order). Content type becomes image/png.
   */
  qrText?: string;
  contentType?: string;
  /** Content-ID for an inline part (`<img src="cid:...">`). */
  cid?: string;
}

export interface MailMessage {
  to: string | string[];
  subject: string;
  text?: string;
  html?: string;
  cc?: string | string[];
  bcc?: string | string[];
  replyTo?: string;
  /** Defaults to the site's address. */
  from?: string;
  /** Extra headers (no CR/LF; the structural ones such as To or Content-Type are refused). */
  headers?: Record<string, string>;
  attachments?: MailAttachment[];
  /** Which module sent it ('tickets', 'forms', ...), and about what (an order or submission ID). */
  source?: string;
  relatedId?: number;
}

const email = z.email();
const NAME_ADDR = /^\s*(?:"((?:[^"\\\r\n]|\\.)*)"|([^<>"\r\n,;]*?))\s*<([^<>\s]+)>\s*$/;
const RESERVED = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'sender',
  'return-path',
]);

function bad(message: string, field: string): HttpError {
  return new HttpError(400, 'evt_mail_invalid', message, { field });
}

/** One address, bare or `Name <addr>`; returns it in a form nodemailer and the log both understand. */
export function normalizeAddress(raw: string, field: string): string {
  const s = raw.trim();
  const m = NAME_ADDR.exec(s);
  const addr = m ? m[3] : s;
  if (!email.safeParse(addr).success) throw bad(`Invalid e-mail address in ${field}: ${JSON.stringify(raw)}`, field);
  if (!m) return addr;
  const name = (m[1] ?? m[2] ?? '').trim();
  return name ? `"${name.replace(/["\\]/g, (c) => `\\${c}`)}" <${addr}>` : addr;
}

/** A list of addresses: an array, or a comma/semicolon separated string. */
export function normalizeAddressList(v: string | string[] | undefined, field: string, required: boolean): string[] {
  const parts = (Array.isArray(v) ? v : v === undefined ? [] : splitAddresses(v)).map((s) => s.trim()).filter(Boolean);
  if (required && parts.length === 0) throw bad(`No recipient in ${field}.`, field);
  if (parts.length > 100) throw bad(`Too many recipients in ${field}.`, field);
  return parts.map((p) => normalizeAddress(p, field));
}

/** Splits on commas and semicolons outside quoted display names. */
export function splitAddresses(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"' && s[i - 1] !== '\\') quoted = !quoted;
    if (!quoted && (c === ',' || c === ';')) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export function cleanHeaders(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(h ?? {})) {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/.test(name) || RESERVED.has(name.toLowerCase())) throw bad(`Header not allowed: ${name}`, 'headers');
    if (typeof value !== 'string' || /[\r\n]/.test(value)) throw bad(`Invalid value of header ${name}`, 'headers');
    out[name] = value;
  }
  return out;
}

/** Subjects are one line: folding whitespace becomes a space instead of a header injection. */
export function cleanSubject(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ').trim();
}

export interface PreparedAttachment {
  filename: string;
  contentType: string;
  cid: string | null;
  content: Buffer;
  qrText: string | null;
}

export function prepareAttachments(list: MailAttachment[] | undefined): PreparedAttachment[] {
  return (list ?? []).map((a, i) => {
    const filename =
      String(a.filename ?? '')
        .replace(/[\r\n\\/"]/g, '_')
        .trim() || `attachment-${i + 1}`;
    const qrText = a.qrText ?? null;
    if ((qrText === null) === (a.content === undefined)) throw bad(`Attachment ${filename} needs either content or qrText`, 'attachments');
    if (qrText !== null && (qrText === '' || qrText.length > 2000)) throw bad(`Invalid QR text of attachment ${filename}`, 'attachments');
    const contentType = qrText !== null ? 'image/png' : (a.contentType ?? 'application/octet-stream');
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(contentType)) throw bad(`Invalid content type of attachment ${filename}`, 'attachments');
    if (a.cid !== undefined && !/^[\w.@+-]{1,200}$/.test(a.cid)) throw bad(`Invalid content ID of attachment ${filename}`, 'attachments');
    const content = a.content === undefined ? Buffer.alloc(0) : Buffer.isBuffer(a.content) ? a.content : Buffer.from(String(a.content), 'utf8');
    return { filename, contentType, cid: a.cid ?? null, content, qrText };
  });
}
