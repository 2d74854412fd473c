import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';
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

export function getLinkedRows<K extends LinkedKind>(db: Db, kind: K, ids: readonly number[]): (K extends 'venue' ? VenueRow : OrganizerRow)[] {
  return getPostsWithDetail(db, TABLE[kind], ids) as never;
}

export function insertLinkedCols(db: Db, kind: LinkedKind, postId: number, cols: Record<string, unknown>): void {
  insertDetailCols(db, TABLE[kind], postId, cols, COLS[kind]);
}

export function updateLinkedCols(db: Db, kind: LinkedKind, postId: number, cols: Record<string, unknown>): void {
  updateDetailCols(db, TABLE[kind], postId, cols, COLS[kind]);
}

/** A live (not trashed) venue or organizer with exactly this title, for duplicate avoidance. */
export function findLinkedByTitle(db: Db, kind: LinkedKind, title: string): number | undefined {
  return (
    stmt(db, "SELECT id FROM posts WHERE type = ? AND title = ? AND status <> 'trash' ORDER BY id LIMIT 1").get(kind, title) as
      | { id: number }
      | undefined
  )?.id;
}
