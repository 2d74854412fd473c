import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';

/** An attachment: its post, attachment row and upload record (empty name and digest when it was not uploaded). */
export interface FileRow {
  post_id: number;
  name: string;
  sha256: string;
  uploaded_by: number;
  created: string;
  file_path: string | null;
  mime_type: string;
  filesize: number | null;
  protected: number;
  url: string;
  parent: number;
  title: string;
  status: string;
}

export interface LinkRow {
  id: number;
  post_id: number;
  created: string;
  expires: string;
  hits: number;
  revoked: number;
  created_by: number;
}

export async function getFile(db: Db, id: number): Promise<FileRow | undefined> {
  return (await statement(
    db,
    // Any attachment: images attached by URL have no upload record and no local file.
    `SELECT a.post_id, COALESCE(u.name, '') AS name, COALESCE(u.sha256, '') AS sha256, COALESCE(u.uploaded_by, p.author) AS uploaded_by,
       COALESCE(u.created, p.date_gmt) AS created, a.file_path, a.mime_type, a.filesize, a.protected, a.url, p.parent, p.title, p.status
     FROM attachments a JOIN posts p ON p.id = a.post_id LEFT JOIN file_uploads u ON u.post_id = a.post_id WHERE a.post_id = ?`,
  ).get(id)) as FileRow | undefined;
}

export async function insertUpload(db: Db, u: { postId: number; name: string; sha256: string; uploadedBy: number; created: string }): Promise<void> {
  await statement(db, 'INSERT INTO file_uploads (post_id, name, sha256, uploaded_by, created) VALUES (?, ?, ?, ?, ?)').run(
    u.postId,
    u.name,
    u.sha256,
    u.uploadedBy,
    u.created,
  );
}

export async function setProtection(db: Db, id: number, isProtected: boolean, filePath: string): Promise<void> {
  await statement(db, 'UPDATE attachments SET protected = ?, file_path = ? WHERE post_id = ?').run(isProtected ? 1 : 0, filePath, id);
}

export async function insertLink(db: Db, l: { postId: number; created: string; expires: string; createdBy: number }): Promise<LinkRow> {
  const info = await statement(db, 'INSERT INTO private_links (post_id, created, expires, created_by) VALUES (?, ?, ?, ?) RETURNING id').run(
    l.postId,
    l.created,
    l.expires,
    l.createdBy,
  );
  return (await getLink(db, Number(info.lastInsertRowid)))!;
}

export async function getLink(db: Db, id: number): Promise<LinkRow | undefined> {
  return (await statement(db, 'SELECT * FROM private_links WHERE id = ?').get(id)) as LinkRow | undefined;
}

export async function liveLinks(db: Db, postId: number): Promise<LinkRow[]> {
  return (await statement(db, 'SELECT * FROM private_links WHERE post_id = ? AND revoked = 0 ORDER BY id').all(postId)) as LinkRow[];
}

export async function revokeLinks(db: Db, postId: number): Promise<number> {
  return (await statement(db, 'UPDATE private_links SET revoked = 1 WHERE post_id = ? AND revoked = 0').run(postId)).changes;
}

export async function countHit(db: Db, linkId: number): Promise<void> {
  await statement(db, 'UPDATE private_links SET hits = hits + 1 WHERE id = ?').run(linkId);
}
