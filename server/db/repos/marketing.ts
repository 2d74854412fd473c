import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';

export interface AudienceRow {
  email: string;
  full_name: string;
  attendee_id: number;
  status: 'subscribed' | 'unsubscribed';
  synced: string;
}

export async function putOptIn(db: Db, attendeeId: number, consent: boolean, source: string, time: string): Promise<void> {
  await statement(
    db,
    'INSERT INTO marketing_optins (attendee_id, consent, source, time) VALUES (?, ?, ?, ?) ON CONFLICT(attendee_id) DO UPDATE SET consent = excluded.consent, source = excluded.source, time = excluded.time',
  ).run(attendeeId, consent ? 1 : 0, source, time);
}

export interface ConsentRow {
  email: string;
  full_name: string;
  attendee_id: number;
  consent: number;
}

/** Per address, the latest consent given by any of its (not trashed) attendees. */
export async function latestConsents(db: Db): Promise<ConsentRow[]> {
  return (await statement(
    db,
    `SELECT email, full_name, attendee_id, consent FROM (
       SELECT lower(a.email) AS email, a.full_name, a.post_id AS attendee_id, o.consent,
              row_number() OVER (PARTITION BY lower(a.email) ORDER BY o.time DESC, o.attendee_id DESC) AS rn
       FROM marketing_optins o JOIN attendees a ON a.post_id = o.attendee_id JOIN posts p ON p.id = a.post_id
       WHERE p.status <> 'trash' AND a.email <> ''
     ) AS latest WHERE rn = 1 ORDER BY email`,
  ).all()) as ConsentRow[];
}

export async function countOptedIn(db: Db): Promise<number> {
  return (await latestConsents(db)).filter((c) => c.consent === 1).length;
}

export async function putMember(db: Db, m: AudienceRow): Promise<void> {
  await statement(
    db,
    'INSERT INTO marketing_audience (email, full_name, attendee_id, status, synced) VALUES (?, ?, ?, ?, ?) ON CONFLICT(email) DO UPDATE SET full_name = excluded.full_name, attendee_id = excluded.attendee_id, status = excluded.status, synced = excluded.synced',
  ).run(m.email, m.full_name, m.attendee_id, m.status, m.synced);
}

export async function allMembers(db: Db): Promise<AudienceRow[]> {
  return (await statement(db, 'SELECT * FROM marketing_audience ORDER BY email').all()) as AudienceRow[];
}

export async function listMembers(db: Db, status: string, limit: number, offset: number): Promise<{ rows: AudienceRow[]; total: number }> {
  const any = status === 'any' ? 1 : 0;
  const rows = (await statement(db, 'SELECT * FROM marketing_audience WHERE (? = 1 OR status = ?) ORDER BY email LIMIT ? OFFSET ?').all(
    any,
    status,
    limit,
    offset,
  )) as AudienceRow[];
  const total = ((await statement(db, 'SELECT COUNT(*) AS n FROM marketing_audience WHERE (? = 1 OR status = ?)').get(any, status)) as { n: number })
    .n;
  return { rows, total };
}

/** A live (not trashed) attendee's e-mail and event, for an opt-in. */
export async function optInAttendee(db: Db, attendeeId: number): Promise<{ post_id: number; email: string; event_id: number } | undefined> {
  return (await statement(
    db,
    "SELECT a.post_id, a.email, a.event_id FROM attendees a JOIN posts p ON p.id = a.post_id WHERE a.post_id = ? AND p.status <> 'trash'",
  ).get(attendeeId)) as { post_id: number; email: string; event_id: number } | undefined;
}
