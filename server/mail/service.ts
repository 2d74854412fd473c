import { outsideTransaction } from '../db/engine/tx-scope.ts';
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import type Mail from 'nodemailer/lib/mailer';
import type { AppState } from '../kernel/context.ts';
import { nowUtc } from '../db/clock.ts';
import { recordChange } from '../db/change-feed.ts';
import { HttpError } from '../kernel/errors.ts';
import {
  claimQueuedMailWithAttachments,
  getAttachments,
  getMailLog,
  insertMailWithAttachments,
  queuedMailIds,
  recordDeliveryWithImages,
  requeueMailLog,
  countResend,
  type AttachmentRow,
  type FilledImage,
  type MailLogRow,
} from '../db/repos/mail-log.ts';
import { cleanHeaders, cleanSubject, normalizeAddress, normalizeAddressList, prepareAttachments, type MailMessage } from './message.ts';
import { hooks } from '../kernel/hooks.ts';
import { MailThread, type MailJobResult } from './mail-thread.ts';
import { qrPng } from './qr-png.ts';
import { fileDeliver, smtpDeliver, type Deliver, type DeliveryResult } from './transport.ts';

declare module '../kernel/services.ts' {
  interface Services {
    /** The mail transport, the From address and the sends in flight (made on first use). */
    mail?: MailService;
  }
}

/**
 * The mail service. `sendMail` only writes the message to the log (status `queued`), inside whatever
 * transaction the caller is in; delivery starts on a later turn of the event loop, after that transaction
 * has committed, so no network wait ever holds SQLite. A message whose transaction rolled back is gone from
 * the log by then and is not sent. Every attempt updates the log (`sent` or `failed`, with the transcript).
 */

interface MailService {
  deliver: Deliver;
  /**
   * The line endings the built-in transport wants a message composed with (by the mail thread); null for a
   * transport a test installed, which is handed the message's parts, not its bytes.
   */
  newline: 'unix' | 'windows' | null;
  /** Where the QR images are drawn and messages composed (mail-thread.ts). */
  thread: MailThread;
  from: string;
  /** Deliveries in flight or waiting for their turn, by log ID. */
  pending: Map<number, Promise<DeliveryResult | null>>;
}

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** `"Site" <wordpress@host>`, as WordPress builds its default From. */
export function defaultFrom(state: AppState): string {
  let host = 'localhost';
  try {
    host = new URL(state.config.publicUrl).hostname.replace(/^www\./, '') || 'localhost';
  } catch {
    // keep localhost
  }
  if (net.isIP(host.replace(/^\[|\]$/g, '')) || !host.includes('.')) host = 'localhost.localdomain';
  return normalizeAddress(`"${state.config.siteName}" <wordpress@${host}>`, 'from');
}

function service(state: AppState): MailService {
  let s = state.services.mail;
  if (!s) {
    const { smtpUrl } = state.config;
    const thread = new MailThread((error) =>
      state.log({ level: 'warn', msg: 'mail thread failed; messages are composed on the request thread until it is back', error }),
    );
    s = {
      deliver: smtpUrl ? smtpDeliver(smtpUrl) : fileDeliver(mailDir(state)),
      newline: smtpUrl ? 'windows' : 'unix',
      thread,
      from: defaultFrom(state),
      pending: new Map(),
    };
    state.services.mail = s;
    hooks(state).onClose.push(() => thread.stop());
  }
  return s;
}

/** Where the file transport writes: `<dataDir>/mail/`. */
export function mailDir(state: AppState): string {
  return path.join(state.config.dataDir, 'mail');
}

/** Replaces how messages leave (tests inject a transport; production keeps SMTP or files). */
export function setMailTransport(state: AppState, deliver: Deliver): void {
  const svc = service(state);
  svc.deliver = deliver;
  svc.newline = null;
}

/** Logs a message as queued and schedules its delivery after the current transaction. Returns the log ID. */
export async function sendMail(state: AppState, message: MailMessage): Promise<number> {
  const svc = service(state);
  const to = normalizeAddressList(message.to, 'to', true);
  const cc = normalizeAddressList(message.cc, 'cc', false);
  const bcc = normalizeAddressList(message.bcc, 'bcc', false);
  const replyTo = message.replyTo ? normalizeAddress(message.replyTo, 'replyTo') : '';
  const from = message.from ? normalizeAddress(message.from, 'from') : svc.from;
  const subject = cleanSubject(String(message.subject ?? ''));
  if (!subject) throw new HttpError(400, 'evt_mail_invalid', 'A message needs a subject.', { field: 'subject' });
  const text = message.text ?? '';
  const html = message.html ?? null;
  if (!text && !html) throw new HttpError(400, 'evt_mail_invalid', 'A message needs a body.', { field: 'text' });
  const headers = cleanHeaders(message.headers);
  const attachments = prepareAttachments(message.attachments);
  const id = await insertMailWithAttachments(
    state.db,
    {
      from_header: from,
      to_header: to.join(', '),
      cc_header: cc.join(', '),
      bcc_header: bcc.join(', '),
      reply_to_header: replyTo,
      subject,
      headers,
      text_body: text,
      html_body: html,
      source: message.source ?? '',
      related_id: message.relatedId ?? null,
      resent_from: null,
    },
    attachments.map((a, position) => ({
      position,
      filename: a.filename,
      content_type: a.contentType,
      cid: a.cid,
      sha256: sha256(a.content),
      content: a.content,
      qr_text: a.qrText,
    })),
  );
  void schedule(state, id);
  return id;
}

/** Composes a logged message for nodemailer, exactly as it was first logged. */
export async function composeFromLog(state: AppState, row: MailLogRow, rows?: AttachmentRow[]): Promise<Mail.Options> {
  const split = (s: string) => (s ? s.split(', ') : undefined);
  return {
    from: row.from_header,
    to: split(row.to_header),
    cc: split(row.cc_header),
    bcc: split(row.bcc_header),
    replyTo: row.reply_to_header || undefined,
    subject: row.subject,
    text: row.text_body || undefined,
    html: row.html_body ?? undefined,
    headers: { ...(JSON.parse(row.headers) as Record<string, string>), 'X-Doorstep-Mail-Id': String(row.id) },
    date: new Date(`${row.created_utc.replace(' ', 'T')}Z`),
    attachments: (rows ?? (await getAttachments(state.db, row.id))).map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.content_type,
      ...(a.cid ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
    })),
  };
}

/** A delivery takes at most about a minute (SMTP timeouts): a claim ten minutes old was abandoned. */
const CLAIM_STALE_MS = 10 * 60_000;

async function deliverNow(state: AppState, id: number): Promise<DeliveryResult | null> {
  if (!state.db.open) return null;
  // Only a queued message is claimed, by one caller; the claim answers the message and its attachments.
  const claimed = await claimQueuedMailWithAttachments(state.db, id, nowUtc(new Date(Date.now() - CLAIM_STALE_MS)));
  if (!claimed) return null;
  const { row, attachments } = claimed;
  const svc = service(state);
  const msg = await composeFromLog(state, row, attachments);
  // Images deferred at logging time are drawn now, outside any transaction, and kept for resends with the
  // attempt's record (a delivery cut short draws them again: the same text gives the same image). The mail thread
  // draws them and composes the message; without it, this thread does, as before.
  const qr = attachments.flatMap((a, index) => (a.qr_text !== null && a.size === 0 ? [{ index, text: a.qr_text }] : []));
  let made: MailJobResult = { pngs: new Map(), compiled: null };
  try {
    // Nothing to draw for a transport that composes for itself (a test's): no turn through the thread.
    if (qr.length || svc.newline) made = await svc.thread.run({ qr, msg: svc.newline ? msg : null, newline: svc.newline ?? 'unix' });
  } catch {
    for (const { index, text } of qr) {
      // One image per turn of the event loop, so requests keep flowing while a large order is drawn.
      await new Promise((r) => setImmediate(r));
      made.pngs.set(index, qrPng(text));
    }
  }
  if (!state.db.open) return null;
  const drawn: FilledImage[] = [];
  for (const [index, png] of made.pngs) {
    const a = attachments[index]!;
    const digest = sha256(png);
    Object.assign(a, { content: png, size: png.length, sha256: digest });
    msg.attachments![index]!.content = png;
    drawn.push({ id: a.id, content: png, sha256: digest });
  }
  let result: DeliveryResult;
  try {
    result = await svc.deliver(msg, { id, attempt: row.attempts + 1, compiled: made.compiled ?? undefined });
  } catch (e) {
    result = { ok: false, transport: '', messageId: null, emlFile: null, transcript: '', error: (e as Error).message || 'Delivery failed' };
  }
  if (!state.db.open) return result;
  await recordDeliveryWithImages(
    state.db,
    id,
    {
      status: result.ok ? 'sent' : 'failed',
      transport: result.transport,
      error: result.ok ? null : result.error,
      transcript: result.transcript,
      message_id: result.messageId,
      eml_file: result.emlFile,
    },
    drawn,
  );
  if (!result.ok) state.log({ level: 'warn', msg: 'mail delivery failed', mail_id: id, transport: result.transport, error: result.error });
  return result;
}

/** Delivers a queued message on a later turn (once per ID at a time); resolves with the attempt's outcome. */
export function schedule(state: AppState, id: number): Promise<DeliveryResult | null> {
  const svc = service(state);
  const existing = svc.pending.get(id);
  if (existing !== undefined) return existing;
  // Delivered on a later turn, outside the transaction that queued the message and only once it has committed.
  const p = outsideTransaction(() => new Promise<void>((r) => setImmediate(r)).then(() => deliverNow(state, id)))
    .catch((e: unknown) => {
      state.log({ level: 'error', msg: 'mail delivery crashed', mail_id: id, error: String((e as Error)?.stack ?? e) });
      return null;
    })
    .finally(() => svc.pending.delete(id));
  svc.pending.set(id, p);
  return p;
}

/** Resolves when every scheduled delivery has finished (tests, shutdown). */
export async function mailIdle(state: AppState): Promise<void> {
  const svc = service(state);
  while (svc.pending.size) await Promise.all([...svc.pending.values()]);
}

export interface ResendOutcome {
  /** The log entry that was (re)sent: the same one, or a copy when other recipients were given. */
  row: MailLogRow;
  result: DeliveryResult | null;
}

/**
 * Resends a logged message now and waits for the outcome (no transaction is open while it waits). Without
 * `to` the same entry goes out again (its resend count grows); with `to` a copy addressed to them is logged.
 */
export async function resendMail(state: AppState, id: number, to?: string[]): Promise<ResendOutcome | null> {
  const db = state.db;
  const row = await getMailLog(db, id);
  if (!row) return null;
  // The write and its change-log row (other processes' caches) commit together (server/db/change-feed.ts).
  const target = await db.transaction(async () => {
    let target = id;
    if (to?.length) {
      const recipients = to.map((a) => normalizeAddress(a, 'sent_to'));
      const copy = await insertMailWithAttachments(
        db,
        {
          from_header: row.from_header,
          to_header: recipients.join(', '),
          cc_header: '',
          bcc_header: '',
          reply_to_header: row.reply_to_header,
          subject: row.subject,
          headers: JSON.parse(row.headers) as Record<string, string>,
          text_body: row.text_body,
          html_body: row.html_body,
          source: 'resend',
          related_id: row.related_id,
          resent_from: row.id,
        },
        (await getAttachments(db, id)).map(({ position, filename, content_type, cid, sha256, content, qr_text }) => ({
          position,
          filename,
          content_type,
          cid,
          sha256,
          content,
          qr_text,
        })),
      );
      await countResend(db, id);
      target = copy;
    } else if (row.status !== 'queued') {
      await requeueMailLog(db, id);
    } else {
      await countResend(db, id);
    }
    await recordChange(db, ['mail']);
    return target;
  });
  const result = await schedule(state, target);
  return { row: (await getMailLog(db, target)) ?? row, result };
}

/**
 * Picks up messages a previous run logged but never delivered (a crash between commit and delivery), a
 * moment after start-up. The timer does not keep a process alive: a CLI run exits and leaves them queued.
 */
export function resumeQueuedMail(state: AppState, delayMs = 1000): void {
  setTimeout(async () => {
    if (!state.db.open) return;
    for (const id of await queuedMailIds(state.db)) void schedule(state, id);
  }, delayMs).unref();
}
