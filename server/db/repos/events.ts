import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, sql } from '../engine/sql.ts';
import { getPostsWithDetail, insertDetailCols, updateDetailCols, type PostRow } from './posts.ts';

export interface EventCols {
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  timezone: string;
  all_day: number;
  cost: string;
  currency_symbol: string;
  currency_code: string;
  currency_position: string;
  website: string;
  show_map: number | null;
  show_map_link: number | null;
  hide_from_listings: number;
  featured: number;
}

export type EventRow = PostRow & EventCols & { post_id: number };

/** The columns of an event whose writer gave none of its details. */
export const EVENT_COL_DEFAULTS: Readonly<EventCols> = {
  start_local: '',
  end_local: '',
  start_utc: '',
  end_utc: '',
  timezone: '',
  all_day: 0,
  cost: '',
  currency_symbol: '',
  currency_code: '',
  currency_position: '',
  website: '',
  show_map: null,
  show_map_link: null,
  hide_from_listings: 0,
  featured: 0,
};

const EVENT_COLS: (keyof EventCols)[] = [
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'timezone',
  'all_day',
  'cost',
  'currency_symbol',
  'currency_code',
  'currency_position',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'featured',
];

/** Rows in the order of `ids` (missing ones skipped). One statement whatever the list length. */
export async function getEventRows(db: Db, ids: readonly number[]): Promise<EventRow[]> {
  return await getPostsWithDetail<EventRow>(db, 'events', ids);
}

export async function insertEventCols(db: Db, postId: number, cols: EventCols): Promise<void> {
  await insertDetailCols(db, 'events', postId, cols, EVENT_COLS);
}

export async function updateEventCols(db: Db, postId: number, cols: Partial<EventCols>): Promise<void> {
  await updateDetailCols(db, 'events', postId, cols, EVENT_COLS);
}

export interface LinkRow {
  event_id: number;
  linked_id: number;
}

export async function venueLinks(db: Db, eventIds: readonly number[]): Promise<LinkRow[]> {
  if (!eventIds.length) return [];
  return (await statement(
    db,
    sql`SELECT event_id, venue_id AS linked_id FROM event_venues WHERE ${inJson('event_id', 'id')} ORDER BY event_id, position`,
  ).all(JSON.stringify(eventIds))) as LinkRow[];
}

export async function organizerLinks(db: Db, eventIds: readonly number[]): Promise<LinkRow[]> {
  if (!eventIds.length) return [];
  return (await statement(
    db,
    sql`SELECT event_id, organizer_id AS linked_id FROM event_organizers WHERE ${inJson('event_id', 'id')} ORDER BY event_id, position`,
  ).all(JSON.stringify(eventIds))) as LinkRow[];
}

export async function setEventVenues(db: Db, eventId: number, venueIds: readonly number[]): Promise<void> {
  await statement(db, 'DELETE FROM event_venues WHERE event_id = ?').run(eventId);
  for (const [i, v] of venueIds.entries())
    await statement(db, 'INSERT INTO event_venues (event_id, venue_id, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(eventId, v, i);
}

export async function setEventOrganizers(db: Db, eventId: number, organizerIds: readonly number[]): Promise<void> {
  await statement(db, 'DELETE FROM event_organizers WHERE event_id = ?').run(eventId);
  for (const [i, o] of organizerIds.entries()) {
    await statement(db, 'INSERT INTO event_organizers (event_id, organizer_id, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(eventId, o, i);
  }
}
