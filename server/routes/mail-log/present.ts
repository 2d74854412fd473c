import type { MailLogRow, AttachmentMeta } from '../../db/repos/mail-log.ts';
import { formatInZone } from '../../../shared/dates.ts';
import { utcSeconds } from '../../db/clock.ts';

/** Log rows in Post SMTP's shapes (post_smtp_logs columns; wpdb hands every value back as a string). */

/** Post SMTP's `success` column: "1" when delivered, "In Queue" while waiting, else the error text. */
export function successText(row: Pick<MailLogRow, 'status' | 'error'>): string {
  return row.status === 'sent' ? '1' : row.status === 'queued' ? 'In Queue' : row.error || 'Failed';
}

export function listRow(row: MailLogRow) {
  return {
    id: String(row.id),
    original_subject: row.subject,
    to_header: row.to_header,
    success: successText(row),
    time: String(utcSeconds(row.created_utc)),
  };
}

function headerLines(row: MailLogRow): string {
  const extra = JSON.parse(row.headers) as Record<string, string>;
  const lines = [`From: ${row.from_header}`];
  if (row.cc_header) lines.push(`Cc: ${row.cc_header}`);
  if (row.reply_to_header) lines.push(`Reply-To: ${row.reply_to_header}`);
  for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
  return lines.join('\n');
}

/** Every column of the original table, in its order. */
export function fullRow(row: MailLogRow) {
  return {
    id: String(row.id),
    solution: row.status === 'failed' ? 'Check the SMTP server address (EVT_SMTP_URL) and that it accepts mail from this site, then resend.' : '',
    success: successText(row),
    from_header: row.from_header,
    to_header: row.to_header,
    cc_header: row.cc_header,
    bcc_header: row.bcc_header,
    reply_to_header: row.reply_to_header,
    transport_uri: row.transport,
    original_to: row.to_header,
    original_subject: row.subject,
    original_message: row.html_body ?? row.text_body,
    original_headers: headerLines(row),
    session_transcript: row.transcript,
    time: String(utcSeconds(row.created_utc)),
  };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** WordPress's default `date_format time_format` ("F j, Y g:i a") in the site's time zone. */
export function wpDateTime(utc: string, tz: string): string {
  const local = formatInZone(new Date(`${utc.replace(' ', 'T')}Z`), tz);
  const [y, m, d, h, i] = [
    local.slice(0, 4),
    Number(local.slice(5, 7)),
    Number(local.slice(8, 10)),
    Number(local.slice(11, 13)),
    local.slice(14, 16),
  ];
  return `${MONTHS[m - 1]} ${d}, ${y} ${h % 12 === 0 ? 12 : h % 12}:${i} ${h < 12 ? 'am' : 'pm'}`;
}

export function attachmentList(list: AttachmentMeta[]) {
  return list.map((a) => ({
    filename: a.filename,
    content_type: a.content_type,
    size: a.size,
    inline: a.cid !== null,
    cid: a.cid,
    sha256: a.sha256,
  }));
}

/** PHP `array_filter` keeps keys: a JSON array only while they stay 0..n-1, else an object. */
export function phpFiltered<T>(items: T[], keep: (t: T) => boolean): T[] | Record<string, T> {
  const kept: [number, T][] = [];
  items.forEach((t, i) => keep(t) && kept.push([i, t]));
  if (kept.every(([k], i) => k === i)) return kept.map(([, t]) => t);
  return Object.fromEntries(kept.map(([k, t]) => [String(k), t]));
}
