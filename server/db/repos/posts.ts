import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, sql } from '../engine/sql.ts';

export interface PostRow {
  id: number;
  type: string;
  status: string;
  author: number;
  slug: string;
  title: string;
  title_et: string | null;
  content: string;
  content_et: string | null;
  excerpt: string;
  excerpt_et: string | null;
  password: string;
  parent: number;
  menu_order: number;
  image_id: number;
  date: string;
  date_gmt: string;
  modified: string;
  modified_gmt: string;
  trashed_from: string | null;
}

export type PostWrite = Partial<Omit<PostRow, 'id' | 'type'>>;

const COLUMNS = [
  'status',
  'author',
  'slug',
  'title',
  'title_et',
  'content',
  'content_et',
  'excerpt',
  'excerpt_et',
  'password',
  'parent',
  'menu_order',
  'image_id',
  'date',
  'date_gmt',
  'modified',
  'modified_gmt',
  'trashed_from',
] as const;

/**
 * Posts joined with their detail table (`events`, `tickets`, `venues`, `organizers`: one row per post, keyed
 * by `post_id`), in the order of `ids` (missing ones skipped). One statement whatever the list length.
 */
export async function getPostsWithDetail<T extends PostRow>(db: Db, table: string, ids: readonly number[]): Promise<T[]> {
  if (!ids.length) return [];
  const rows = (await statement(db, sql`SELECT p.*, d.* FROM posts p JOIN ${table} d ON d.post_id = p.id WHERE ${inJson('p.id', 'id')}`).all(
    JSON.stringify(ids),
  )) as T[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
}

/** Inserts a post's detail row with the `keys` of `cols` that are set. */
export async function insertDetailCols<C>(
  db: Db,
  table: string,
  postId: number,
  cols: Partial<C>,
  keys: readonly (keyof C & string)[],
): Promise<void> {
  const set = keys.filter((k) => cols[k] !== undefined);
  await statement(db, `INSERT INTO ${table} (post_id${set.map((k) => `, ${k}`).join('')}) VALUES (?${set.map(() => ', ?').join('')})`).run(
    postId,
    ...set.map((k) => cols[k] as unknown),
  );
}

/** Updates the `keys` of `cols` that are set in a post's detail row; nothing to set, no statement. */
export async function updateDetailCols<C>(
  db: Db,
  table: string,
  postId: number,
  cols: Partial<C>,
  keys: readonly (keyof C & string)[],
): Promise<void> {
  const set = keys.filter((k) => cols[k] !== undefined);
  if (!set.length) return;
  await statement(db, `UPDATE ${table} SET ${set.map((k) => `${k} = ?`).join(', ')} WHERE post_id = ?`).run(
    ...set.map((k) => cols[k] as unknown),
    postId,
  );
}

export async function getPost(db: Db, id: number): Promise<PostRow | undefined> {
  return (await statement(db, 'SELECT * FROM posts WHERE id = ?').get(id)) as PostRow | undefined;
}

export async function getPostType(db: Db, id: number): Promise<string | undefined> {
  return ((await statement(db, 'SELECT type FROM posts WHERE id = ?').get(id)) as { type: string } | undefined)?.type;
}

/** A post of that type by slug; trashed posts are not found (WordPress renames their slugs). */
export async function findPostIdBySlug(db: Db, type: string, slug: string): Promise<number | undefined> {
  return (
    (await statement(db, "SELECT id FROM posts WHERE type = ? AND slug = ? AND status <> 'trash'").get(type, slug)) as { id: number } | undefined
  )?.id;
}

export async function insertPost(db: Db, type: string, fields: PostWrite & { date: string; date_gmt: string }): Promise<number> {
  const row: PostWrite = { modified: fields.date, modified_gmt: fields.date_gmt, ...fields };
  const cols = COLUMNS.filter((c) => row[c] !== undefined);
  const sql = `INSERT INTO posts (type, ${cols.join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')}) RETURNING id`;
  return Number((await statement(db, sql).run(type, ...cols.map((c) => row[c] as unknown))).lastInsertRowid);
}

/**
 * Posts of one type in one statement (`INSERT ... VALUES (...), (...) RETURNING id`), each written as insertPost
 * writes one; every row sets the same fields (the first row's). Their IDs in the order of `rows` (IDs are handed
 * out in the order the rows are inserted).
 */
export async function insertPosts(db: Db, type: string, rows: readonly (PostWrite & { date: string; date_gmt: string })[]): Promise<number[]> {
  if (!rows.length) return [];
  const full = rows.map((f): PostWrite => ({ modified: f.date, modified_gmt: f.date_gmt, ...f }));
  const cols = COLUMNS.filter((c) => full[0]![c] !== undefined);
  const one = `(?, ${cols.map(() => '?').join(', ')})`;
  const sql = `INSERT INTO posts (type, ${cols.join(', ')}) VALUES ${full.map(() => one).join(', ')} RETURNING id`;
  const ids = (await statement(db, sql)
    .pluck()
    .all(...full.flatMap((row) => [type, ...cols.map((c) => row[c] as unknown)]))) as number[];
  return ids.map(Number).sort((a, b) => a - b);
}

export async function updatePost(db: Db, id: number, fields: PostWrite): Promise<void> {
  const cols = COLUMNS.filter((c) => fields[c] !== undefined);
  if (!cols.length) return;
  await statement(db, `UPDATE posts SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...cols.map((c) => fields[c] as unknown), id);
}

/** WordPress `sanitize_title`: lower case, accents removed, anything else to hyphens. */
export function sanitizeSlug(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/&[a-z0-9#]+;/g, '')
    .replace(/[^a-z0-9_\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 190);
}

/** `wp_unique_post_slug`: appends -2, -3, ... until no other post of the type uses it. */
export async function uniqueSlug(db: Db, type: string, wanted: string, exceptId = 0): Promise<string> {
  const base = sanitizeSlug(wanted) || 'post';
  const taken = statement(db, 'SELECT 1 FROM posts WHERE type = ? AND slug = ? AND id <> ?');
  if (!(await taken.get(type, base, exceptId))) return base;
  for (let n = 2; ; n++) {
    const s = `${base}-${n}`;
    if (!(await taken.get(type, s, exceptId))) return s;
  }
}

/** The author of a post (null when it has none), or undefined when there is no such post. */
export async function postAuthorOf(db: Db, id: number): Promise<number | null | undefined> {
  return (await statement(db, 'SELECT author FROM posts WHERE id = ?').pluck().get(id)) as number | null | undefined;
}

export async function setPostTitle(db: Db, id: number, title: string): Promise<void> {
  await statement(db, 'UPDATE posts SET title = ? WHERE id = ?').run(title, id);
}

/** How many events, venues and organizers there are, in any status. */
export async function countCalendarPosts(db: Db): Promise<number> {
  return ((await statement(db, "SELECT COUNT(*) AS n FROM posts WHERE type IN ('event', 'venue', 'organizer')").get()) as { n: number }).n;
}
