import type { Db } from '../connection.ts';
import { likeContains, statement } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';
import { LIKE_NOCASE, sqlFor } from '../engine/sql.ts';
import { nowUtc } from '../clock.ts';

/** The mail log, its attachments, connected mail apps, the pairing key and the license (migration 006). */

export type MailStatus = 'queued' | 'sent' | 'failed';

export interface MailLogRow {
  id: number;
  status: MailStatus;
  from_header: string;
  to_header: string;
  cc_header: string;
  bcc_header: string;
  reply_to_header: string;
  subject: string;
  headers: string;
  text_body: string;
  html_body: string | null;
  transport: string;
  error: string | null;
  transcript: string;
  message_id: string | null;
  eml_file: string | null;
  source: string;
  related_id: number | null;
  resent_from: number | null;
  created_utc: string;
  updated_utc: string;
  sent_utc: string | null;
  claimed_utc: string | null;
  attempts: number;
  resend_count: number;
  opened: number;
  notification_deleted: number;
}

export interface NewMailLog {
  from_header: string;
  to_header: string;
  cc_header: string;
  bcc_header: string;
  reply_to_header: string;
  subject: string;
  headers: Record<string, string>;
  text_body: string;
  html_body: string | null;
  source: string;
  related_id: number | null;
  resent_from: number | null;
}

export interface AttachmentMeta {
  id: number;
  log_id: number;
  position: number;
  filename: string;
  content_type: string;
  cid: string | null;
  size: number;
  sha256: string;
  qr_text: string | null;
}

export interface AttachmentRow extends AttachmentMeta {
  content: Buffer;
}

/** A new message's columns from `from_header` to `resent_from`, in the order both inserts below list them. */
function mailLogValues(m: NewMailLog): unknown[] {
  return [
    m.from_header,
    m.to_header,
    m.cc_header,
    m.bcc_header,
    m.reply_to_header,
    m.subject,
    JSON.stringify(m.headers),
    m.text_body,
    m.html_body,
    m.source,
    m.related_id,
    m.resent_from,
  ];
}

export async function insertMailLog(db: Db, m: NewMailLog): Promise<number> {
  const now = nowUtc();
  const r = await statement(
    db,
    `INSERT INTO mail_log (status, from_header, to_header, cc_header, bcc_header, reply_to_header, subject, headers, text_body, html_body,
       source, related_id, resent_from, created_utc, updated_utc)
     VALUES ('queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).run(...mailLogValues(m), now, now);
  return Number(r.lastInsertRowid);
}

/** An attachment as it is first logged with its message. */
export interface NewAttachment {
  position: number;
  filename: string;
  content_type: string;
  cid: string | null;
  sha256: string;
  content: Buffer;
  qr_text: string | null;
}

/** The message and its attachments in one statement on PostgreSQL (one round trip, atomic without a savepoint). */
const PG_INSERT_MAIL = `WITH l AS (
  INSERT INTO mail_log (status, from_header, to_header, cc_header, bcc_header, reply_to_header, subject, headers, text_body, html_body,
     source, related_id, resent_from, created_utc, updated_utc)
  VALUES ('queued', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
  RETURNING id
), a AS (
  INSERT INTO mail_attachments (log_id, position, filename, content_type, cid, size, sha256, content, qr_text)
  SELECT l.id, x.position, x.filename, x.content_type, x.cid, x.size, x.sha256, x.content, x.qr_text
  FROM l, unnest($14::bigint[], $15::text[], $16::text[], $17::text[], $18::bigint[], $19::text[], $20::bytea[], $21::text[])
       AS x(position, filename, content_type, cid, size, sha256, content, qr_text)
)
SELECT id FROM l`;

/**
 * Logs a message with its attachments, whole or not at all, and returns its ID: on PostgreSQL one statement, on
 * SQLite (no round trips to save) the two inserts in a transaction (a savepoint inside the caller's).
 */
export async function insertMailWithAttachments(db: Db, m: NewMailLog, attachments: readonly NewAttachment[]): Promise<number> {
  if (db.engine === 'postgres') {
    const now = nowUtc();
    const rows = await (db as PgDb).native(PG_INSERT_MAIL, [
      ...mailLogValues(m),
      now,
      attachments.map((a) => a.position),
      attachments.map((a) => a.filename),
      attachments.map((a) => a.content_type),
      attachments.map((a) => a.cid),
      attachments.map((a) => a.content.length),
      attachments.map((a) => a.sha256),
      attachments.map((a) => a.content),
      attachments.map((a) => a.qr_text),
    ]);
    return Number((rows[0] as { id: unknown }).id);
  }
  return await db.transaction(async () => {
    const logId = await insertMailLog(db, m);
    for (const a of attachments) await insertAttachment(db, { log_id: logId, ...a });
    return logId;
  });
}

export async function insertAttachment(
  db: Db,
  a: {
    log_id: number;
    position: number;
    filename: string;
    content_type: string;
    cid: string | null;
    sha256: string;
    content: Buffer;
    qr_text: string | null;
  },
): Promise<void> {
  await statement(
    db,
    'INSERT INTO mail_attachments (log_id, position, filename, content_type, cid, size, sha256, content, qr_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(a.log_id, a.position, a.filename, a.content_type, a.cid, a.content.length, a.sha256, a.content, a.qr_text);
}

export async function fillAttachment(db: Db, id: number, content: Buffer, sha256: string): Promise<void> {
  await statement(db, 'UPDATE mail_attachments SET content = ?, size = ?, sha256 = ? WHERE id = ? AND size = 0').run(
    content,
    content.length,
    sha256,
    id,
  );
}

export async function getMailLog(db: Db, id: number): Promise<MailLogRow | undefined> {
  return (await statement(db, 'SELECT * FROM mail_log WHERE id = ?').get(id)) as MailLogRow | undefined;
}

export async function getAttachments(db: Db, logId: number): Promise<AttachmentRow[]> {
  return (await statement(db, 'SELECT * FROM mail_attachments WHERE log_id = ? ORDER BY position').all(logId)) as AttachmentRow[];
}

export async function getAttachmentMeta(db: Db, logId: number): Promise<AttachmentMeta[]> {
  return (await statement(
    db,
    'SELECT id, log_id, position, filename, content_type, cid, size, sha256, qr_text FROM mail_attachments WHERE log_id = ? ORDER BY position',
  ).all(logId)) as AttachmentMeta[];
}

export type LogFilter = 'all' | 'success' | 'failed' | 'in_queue';

export interface LogQuery {
  offset: number;
  limit: number;
  filter: LogFilter;
  /** Post SMTP searches the subject, the status text and the To header. */
  search: string;
}

const STATUS_OF: Record<Exclude<LogFilter, 'all'>, MailStatus> = { success: 'sent', failed: 'failed', in_queue: 'queued' };

/** Newest first (Post SMTP orders by time, then we break ties by id). */
export async function listMailLogs(db: Db, q: LogQuery): Promise<{ rows: MailLogRow[]; total: number }> {
  const status = q.filter === 'all' ? null : STATUS_OF[q.filter];
  const like = q.search ? likeContains(q.search) : null;
  // The casts give PostgreSQL the parameters' type where they are only tested for NULL.
  const op = sqlFor(db.engine, LIKE_NOCASE);
  const where = `(CAST(@status AS TEXT) IS NULL OR status = @status)
    AND (CAST(@like AS TEXT) IS NULL OR subject ${op} @like ESCAPE '\\' OR to_header ${op} @like ESCAPE '\\' OR COALESCE(error, '') ${op} @like ESCAPE '\\'
         OR (status = 'sent' AND '1' ${op} @like ESCAPE '\\') OR (status = 'queued' AND 'In Queue' ${op} @like ESCAPE '\\'))`;
  const rows = (await statement(db, `SELECT * FROM mail_log WHERE ${where} ORDER BY created_utc DESC, id DESC LIMIT @limit OFFSET @offset`).all({
    status,
    like,
    limit: q.limit,
    offset: q.offset,
  })) as MailLogRow[];
  const total = ((await statement(db, `SELECT COUNT(*) AS n FROM mail_log WHERE ${where}`).get({ status, like })) as { n: number }).n;
  return { rows, total };
}

/** Counts of messages created in [fromUtc, toUtc]. */
export async function countMailLogs(db: Db, fromUtc: string, toUtc: string): Promise<{ success: number; failed: number; total: number }> {
  const r = (await statement(
    db,
    `SELECT COUNT(*) AS total, COALESCE(SUM(status = 'sent'), 0) AS success, COALESCE(SUM(status = 'failed'), 0) AS failed
     FROM mail_log WHERE created_utc >= ? AND created_utc <= ?`,
  ).get(fromUtc, toUtc)) as { total: number; success: number; failed: number };
  return { success: r.success, failed: r.failed, total: r.total };
}

/** Every message, newest first, with only the columns the dashboard lists. */
export async function allMailLogsBrief(
  db: Db,
): Promise<Pick<MailLogRow, 'id' | 'status' | 'subject' | 'to_header' | 'error' | 'created_utc' | 'opened' | 'notification_deleted'>[]> {
  return (await statement(
    db,
    'SELECT id, status, subject, to_header, error, created_utc, opened, notification_deleted FROM mail_log ORDER BY id DESC',
  ).all()) as never;
}

export async function queuedMailIds(db: Db): Promise<number[]> {
  return ((await statement(db, "SELECT id FROM mail_log WHERE status = 'queued' ORDER BY id").all()) as { id: number }[]).map((r) => r.id);
}

export interface DeliveryRecord {
  status: 'sent' | 'failed';
  transport: string;
  error: string | null;
  transcript: string;
  message_id: string | null;
  eml_file: string | null;
}

/**
 * Claims a queued message for delivery: true for exactly one caller, even across processes. A claim older
 * than `staleBeforeUtc` (a process that died mid-delivery) can be taken over.
 */
export async function claimMailLog(db: Db, id: number, staleBeforeUtc: string): Promise<boolean> {
  return (await claimQueuedMail(db, id, staleBeforeUtc)) !== undefined;
}

/**
 * claimMailLog that answers the claimed row (as it stands after the claim), or undefined when this caller did not
 * get it (not queued, claimed by another, or gone): the check, the claim and the read in one statement.
 */
export async function claimQueuedMail(db: Db, id: number, staleBeforeUtc: string): Promise<MailLogRow | undefined> {
  return (await statement(
    db,
    "UPDATE mail_log SET claimed_utc = ? WHERE id = ? AND status = 'queued' AND (claimed_utc IS NULL OR claimed_utc < ?) RETURNING *",
  ).get(nowUtc(), id, staleBeforeUtc)) as MailLogRow | undefined;
}

/** A claimed message and its attachments, in position order. */
export interface ClaimedMail {
  row: MailLogRow;
  attachments: AttachmentRow[];
}

/**
 * claimQueuedMail and the message's attachments in one statement on PostgreSQL: the message once, its attachments
 * as one JSON array beside it (contents in base64).
 */
const PG_CLAIM_WITH_ATTACHMENTS = `WITH c AS (
  UPDATE mail_log SET claimed_utc = $1 WHERE id = $2 AND status = 'queued' AND (claimed_utc IS NULL OR claimed_utc < $3) RETURNING *
)
SELECT c.*, (
  SELECT COALESCE(json_agg(json_build_object('id', a.id, 'position', a.position, 'filename', a.filename, 'content_type', a.content_type,
           'cid', a.cid, 'size', a.size, 'sha256', a.sha256, 'content', encode(a.content, 'base64'), 'qr_text', a.qr_text)
         ORDER BY a.position), '[]')
  FROM mail_attachments a WHERE a.log_id = c.id
) AS attachments_json
FROM c`;

type ClaimedAttachmentJson = Omit<AttachmentRow, 'content' | 'log_id'> & { content: string };

/**
 * claimQueuedMail with the claimed message's attachments (what a delivery needs): undefined when this caller did
 * not get the claim. One statement on PostgreSQL; on SQLite (no round trips to save) the claim, then the read.
 */
export async function claimQueuedMailWithAttachments(db: Db, id: number, staleBeforeUtc: string): Promise<ClaimedMail | undefined> {
  if (db.engine !== 'postgres') {
    const row = await claimQueuedMail(db, id, staleBeforeUtc);
    return row && { row, attachments: await getAttachments(db, id) };
  }
  const found = (await (db as PgDb).native(PG_CLAIM_WITH_ATTACHMENTS, [nowUtc(), id, staleBeforeUtc]))[0];
  if (!found) return undefined;
  const { attachments_json, ...row } = found;
  const attachments = (JSON.parse(String(attachments_json)) as ClaimedAttachmentJson[]).map(
    (a): AttachmentRow => ({
      ...a,
      id: Number(a.id),
      log_id: id,
      position: Number(a.position),
      size: Number(a.size),
      content: Buffer.from(a.content, 'base64'),
    }),
  );
  return { row: row as unknown as MailLogRow, attachments };
}

/** An image drawn at delivery, kept for resends (its attachment row was logged empty). */
export interface FilledImage {
  id: number;
  content: Buffer;
  sha256: string;
}

/** The images drawn at delivery kept, then the attempt recorded: one statement on PostgreSQL. */
const PG_RECORD_WITH_IMAGES = `WITH f AS (
  UPDATE mail_attachments m SET content = x.content, size = octet_length(x.content), sha256 = x.sha256
  FROM unnest($11::bigint[], $12::bytea[], $13::text[]) AS x(id, content, sha256)
  WHERE m.id = x.id AND m.log_id = $10 AND m.size = 0
)
UPDATE mail_log SET status = $1, transport = $2, error = $3, transcript = transcript || $4, message_id = COALESCE($5, message_id),
  eml_file = COALESCE($6, eml_file), claimed_utc = NULL, attempts = attempts + 1, updated_utc = $7,
  sent_utc = CASE WHEN $8::text = 'sent' THEN $9 ELSE sent_utc END
WHERE id = $10 AND status = 'queued' RETURNING id`;

/**
 * Keeps the images a delivery drew (an image already kept stays as it is) and records the attempt (recordDelivery):
 * one statement on PostgreSQL, one transaction on SQLite. Answers whether the message was still queued.
 */
export async function recordDeliveryWithImages(db: Db, id: number, d: DeliveryRecord, images: readonly FilledImage[]): Promise<boolean> {
  if (db.engine !== 'postgres') {
    return await db.transaction(async () => {
      for (const i of images) await fillAttachment(db, i.id, i.content, i.sha256);
      return await recordDelivery(db, id, d);
    });
  }
  const now = nowUtc();
  const rows = await (db as PgDb).native(PG_RECORD_WITH_IMAGES, [
    d.status,
    d.transport,
    d.error,
    d.transcript,
    d.message_id,
    d.eml_file,
    now,
    d.status,
    now,
    id,
    images.map((i) => i.id),
    images.map((i) => i.content),
    images.map((i) => i.sha256),
  ]);
  return rows.length === 1;
}

/** Records one delivery attempt; only a message still queued is updated (a deleted row stays deleted). */
export async function recordDelivery(db: Db, id: number, d: DeliveryRecord): Promise<boolean> {
  const now = nowUtc();
  const r = await statement(
    db,
    `UPDATE mail_log SET status = ?, transport = ?, error = ?, transcript = transcript || ?, message_id = COALESCE(?, message_id),
       eml_file = COALESCE(?, eml_file), claimed_utc = NULL, attempts = attempts + 1, updated_utc = ?, sent_utc = CASE WHEN ? = 'sent' THEN ? ELSE sent_utc END
     WHERE id = ? AND status = 'queued'`,
  ).run(d.status, d.transport, d.error, d.transcript, d.message_id, d.eml_file, now, d.status, now, id);
  return r.changes === 1;
}

/** Puts a message back in the queue for a resend. */
export async function requeueMailLog(db: Db, id: number): Promise<void> {
  await statement(
    db,
    "UPDATE mail_log SET status = 'queued', error = NULL, claimed_utc = NULL, resend_count = resend_count + 1, updated_utc = ? WHERE id = ?",
  ).run(nowUtc(), id);
}

export async function countResend(db: Db, id: number): Promise<void> {
  await statement(db, 'UPDATE mail_log SET resend_count = resend_count + 1, updated_utc = ? WHERE id = ?').run(nowUtc(), id);
}

// Connected apps ------------------------------------------------------------------------------------------

export interface MailAppRow {
  id: number;
  token_hash: string;
  token_hint: string;
  device: string;
  server_url: string;
  enable_notification: number;
  connected_utc: string;
  last_seen_utc: string | null;
}

export async function upsertMailApp(db: Db, a: { token_hash: string; token_hint: string; device: string; server_url: string }): Promise<MailAppRow> {
  await statement(
    db,
    `INSERT INTO mail_apps (token_hash, token_hint, device, server_url, connected_utc) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (token_hash) DO UPDATE SET device = excluded.device, server_url = excluded.server_url, connected_utc = excluded.connected_utc`,
  ).run(a.token_hash, a.token_hint, a.device, a.server_url, nowUtc());
  return (await findMailApp(db, a.token_hash))!;
}

export async function findMailApp(db: Db, tokenHash: string): Promise<MailAppRow | undefined> {
  return (await statement(db, 'SELECT * FROM mail_apps WHERE token_hash = ?').get(tokenHash)) as MailAppRow | undefined;
}

export async function touchMailApp(db: Db, id: number): Promise<void> {
  await statement(db, 'UPDATE mail_apps SET last_seen_utc = ? WHERE id = ?').run(nowUtc(), id);
}

export async function listMailApps(db: Db): Promise<MailAppRow[]> {
  return (await statement(db, 'SELECT * FROM mail_apps ORDER BY id').all()) as MailAppRow[];
}

export async function deleteMailApp(db: Db, id: number): Promise<boolean> {
  return (await statement(db, 'DELETE FROM mail_apps WHERE id = ?').run(id)).changes === 1;
}

export async function deleteAllMailApps(db: Db): Promise<number> {
  return (await statement(db, 'DELETE FROM mail_apps').run()).changes;
}

// Pairing key and license ----------------------------------------------------------------------------------

export async function setPairing(db: Db, keyHash: string, expiresUtc: string, userId: number): Promise<void> {
  await statement(
    db,
    'INSERT INTO mail_pairing (id, key_hash, expires_utc, created_by) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET key_hash = excluded.key_hash, expires_utc = excluded.expires_utc, created_by = excluded.created_by',
  ).run(keyHash, expiresUtc, userId);
}

export async function getPairing(db: Db): Promise<{ key_hash: string; expires_utc: string } | undefined> {
  return (await statement(db, 'SELECT key_hash, expires_utc FROM mail_pairing WHERE id = 1').get()) as
    | { key_hash: string; expires_utc: string }
    | undefined;
}

export async function clearPairing(db: Db): Promise<void> {
  await statement(db, 'DELETE FROM mail_pairing').run();
}

export interface LicenseRow {
  license_key: string;
  activated_utc: string;
  activated_by: number;
  last_checked_utc: string | null;
}

export async function setLicense(db: Db, key: string, userId: number): Promise<void> {
  await statement(
    db,
    'INSERT INTO mail_license (id, license_key, activated_utc, activated_by) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET license_key = excluded.license_key, activated_utc = excluded.activated_utc, activated_by = excluded.activated_by',
  ).run(key, nowUtc(), userId);
}

export async function getLicense(db: Db): Promise<LicenseRow | undefined> {
  return (await statement(db, 'SELECT license_key, activated_utc, activated_by, last_checked_utc FROM mail_license WHERE id = 1').get()) as
    | LicenseRow
    | undefined;
}

export async function touchLicense(db: Db): Promise<void> {
  await statement(db, 'UPDATE mail_license SET last_checked_utc = ? WHERE id = 1').run(nowUtc());
}
