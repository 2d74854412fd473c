import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, sql } from '../engine/sql.ts';

export interface AttachmentRow {
  post_id: number;
  url: string;
  file_path: string | null;
  mime_type: string;
  width: number | null;
  height: number | null;
  filesize: number | null;
  protected: number;
  parent: number;
  title: string;
  status: string;
}

export async function getAttachment(db: Db, id: number): Promise<AttachmentRow | undefined> {
  return (await statement(db, 'SELECT a.*, p.parent, p.title, p.status FROM attachments a JOIN posts p ON p.id = a.post_id WHERE a.post_id = ?').get(
    id,
  )) as AttachmentRow | undefined;
}

export async function getAttachments(db: Db, ids: readonly number[]): Promise<Map<number, AttachmentRow>> {
  if (!ids.length) return new Map();
  const rows = (await statement(
    db,
    sql`SELECT a.*, p.parent, p.title, p.status FROM attachments a JOIN posts p ON p.id = a.post_id WHERE ${inJson('a.post_id', 'id')}`,
  ).all(JSON.stringify(ids))) as AttachmentRow[];
  return new Map(rows.map((r) => [r.post_id, r]));
}

export async function findAttachmentByUrl(db: Db, url: string): Promise<number | undefined> {
  return ((await statement(db, 'SELECT post_id FROM attachments WHERE url = ? LIMIT 1').get(url)) as { post_id: number } | undefined)?.post_id;
}

export async function insertAttachmentCols(
  db: Db,
  postId: number,
  a: {
    url: string;
    file_path?: string | null;
    mime_type: string;
    width?: number | null;
    height?: number | null;
    filesize?: number | null;
    protected?: number;
  },
): Promise<void> {
  await statement(
    db,
    'INSERT INTO attachments (post_id, url, file_path, mime_type, width, height, filesize, protected) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(postId, a.url, a.file_path ?? null, a.mime_type, a.width ?? null, a.height ?? null, a.filesize ?? null, a.protected ?? 0);
}
