import type { Db } from '../connection.ts';
import { likeContains, statement } from '../connection.ts';
import { inJson, LIKE_NOCASE, sqlFor } from '../engine/sql.ts';
import { getPostsWithDetail, insertDetailCols, updateDetailCols, type PostRow } from './posts.ts';

/** Venues and organizers: a post plus its detail row. */
export interface VenueCols {
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  zip: string;
  phone: string;
  stateprovince: string;
  website: string;
  show_map: number | null;
  show_map_link: number | null;
  lat: number | null;
  lng: number | null;
}
export interface OrganizerCols {
  phone: string;
  website: string;
  email: string;
}
export type VenueRow = PostRow & VenueCols;
export type OrganizerRow = PostRow & OrganizerCols;

export type LinkedKind = 'venue' | 'organizer';
const TABLE: Record<LinkedKind, string> = { venue: 'venues', organizer: 'organizers' };
export const VENUE_COLS: (keyof VenueCols)[] = [
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'stateprovince',
  'website',
  'show_map',
  'show_map_link',
  'lat',
  'lng',
];
export const ORGANIZER_COLS: (keyof OrganizerCols)[] = ['phone', 'website', 'email'];
const COLS: Record<LinkedKind, readonly string[]> = { venue: VENUE_COLS, organizer: ORGANIZER_COLS };

export async function getLinkedRows<K extends LinkedKind>(
  db: Db,
  kind: K,
  ids: readonly number[],
): Promise<(K extends 'venue' ? VenueRow : OrganizerRow)[]> {
  return (await getPostsWithDetail(db, TABLE[kind], ids)) as never;
}

export async function insertLinkedCols(db: Db, kind: LinkedKind, postId: number, cols: Record<string, unknown>): Promise<void> {
  await insertDetailCols(db, TABLE[kind], postId, cols, COLS[kind]);
}

export async function updateLinkedCols(db: Db, kind: LinkedKind, postId: number, cols: Record<string, unknown>): Promise<void> {
  await updateDetailCols(db, TABLE[kind], postId, cols, COLS[kind]);
}

/** A live (not trashed) venue or organizer with exactly this title, for duplicate avoidance. */
export async function findLinkedByTitle(db: Db, kind: LinkedKind, title: string): Promise<number | undefined> {
  return (
    (await statement(db, "SELECT id FROM posts WHERE type = ? AND title = ? AND status <> 'trash' ORDER BY id LIMIT 1").get(kind, title)) as
      | { id: number }
      | undefined
  )?.id;
}

/** Published venues or organizers with exactly this title, by ID (TEC's duplicate avoidance on create). */
export async function publishedLinkedByTitle(db: Db, kind: LinkedKind, title: string): Promise<number[]> {
  return (
    (await statement(db, "SELECT id FROM posts WHERE type = ? AND title = ? AND status = 'publish' ORDER BY id").all(kind, title)) as { id: number }[]
  ).map((r) => r.id);
}

const ARCHIVE: Record<LinkedKind, { table: string; col: string; detail: string; search: string[] }> = {
  venue: {
    table: 'event_venues',
    col: 'venue_id',
    detail: 'venues',
    search: ['address', 'city', 'country', 'province', 'state', 'zip', 'stateprovince', 'phone'],
  },
  organizer: { table: 'event_organizers', col: 'organizer_id', detail: 'organizers', search: ['phone', 'email', 'website'] },
};

export interface LinkedArchiveQuery {
  kind: LinkedKind;
  statuses: readonly string[];
  /** Matched anywhere in the title (either language), content or the searchable detail fields. */
  search?: string;
  /** Linked to this event (its existence is the caller's to check). */
  eventId?: number;
  /** Linked to at least one (true) or no (false) live event. */
  hasEvents?: boolean;
  /** Linked to a published event ending at or after this UTC time. */
  upcomingFromUtc?: string;
  limit: number;
  offset: number;
}

/** A page of a venue or organizer archive, newest first as WordPress's post query orders (post date, then ID). */
export async function linkedArchive(db: Db, q: LinkedArchiveQuery): Promise<{ ids: number[]; total: number }> {
  const { table, col, detail, search } = ARCHIVE[q.kind];
  const where = ['p.type = ?', sqlFor(db.engine, inJson('p.status', 'text'))];
  const params: unknown[] = [q.kind, JSON.stringify(q.statuses)];
  if (q.search) {
    const like = likeContains(q.search);
    const cols = ['p.title', 'p.content', 'p.title_et', ...search.map((c) => `d.${c}`)];
    const op = sqlFor(db.engine, LIKE_NOCASE);
    where.push(`(${cols.map((c) => `${c} ${op} ? ESCAPE '\\'`).join(' OR ')})`);
    params.push(...cols.map(() => like));
  }
  if (q.eventId !== undefined) {
    where.push(`p.id IN (SELECT ${col} FROM ${table} WHERE event_id = ?)`);
    params.push(q.eventId);
  }
  const live = `SELECT 1 FROM ${table} l JOIN posts ep ON ep.id = l.event_id WHERE l.${col} = p.id AND ep.status <> 'trash'`;
  if (q.hasEvents !== undefined) where.push(`${q.hasEvents ? '' : 'NOT '}EXISTS (${live})`);
  if (q.upcomingFromUtc !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM ${table} l JOIN events e ON e.post_id = l.event_id JOIN posts ep ON ep.id = l.event_id WHERE l.${col} = p.id AND ep.status = 'publish' AND e.end_utc >= ?)`,
    );
    params.push(q.upcomingFromUtc);
  }
  const from = `FROM posts p JOIN ${detail} d ON d.post_id = p.id WHERE ${where.join(' AND ')}`;
  const total = ((await statement(db, `SELECT COUNT(*) AS n ${from}`).get(...params)) as { n: number }).n;
  const ids = (
    (await statement(db, `SELECT p.id ${from} ORDER BY p.date DESC, p.id DESC LIMIT ? OFFSET ?`).all(...params, q.limit, q.offset)) as {
      id: number;
    }[]
  ).map((r) => r.id);
  return { ids, total };
}
