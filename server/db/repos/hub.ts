import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, sql } from '../engine/sql.ts';
import type { CheckinRow } from './checkins.ts';
import { insertAttendeeRows } from './attendees.ts';

/**
 * The venue hub's mirror of one event of the site (server/hub/, CONTRACT section 9). The hub keeps the site's IDs
 * for the event, its tickets, orders and attendees, so a QR code made by the site scans at the hub as it is, and a
 * check-in pushed back names the attendee the site knows. A hub's database is a SQLite file (config.ts refuses a
 * PostgreSQL one); the statements are written so that either engine reads them all the same.
 */

export type HubState = Record<string, unknown>;

export async function readHubState(db: Db): Promise<HubState> {
  const rows = (await statement(db, 'SELECT name, value FROM hub_state').all()) as { name: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, JSON.parse(r.value) as unknown]));
}

export async function writeHubState(db: Db, values: HubState): Promise<void> {
  const s = statement(db, 'INSERT INTO hub_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
  for (const [name, value] of Object.entries(values)) await s.run(name, JSON.stringify(value ?? null));
}

/** Posts of any kind other than those the mirror wrote: a database that is a site's, not this hub's. */
export async function countPosts(db: Db): Promise<number> {
  return Number(((await statement(db, 'SELECT COUNT(*) AS n FROM posts').get()) as { n: number }).n);
}

export interface MirrorPost {
  id: number;
  type: 'event' | 'ticket' | 'order' | 'attendee';
  status: string;
  title: string;
  parent?: number;
  /** Site-local and UTC `YYYY-MM-DD HH:MM:SS` of the mirror's write (the site's own dates are not sent to doors). */
  date: string;
  dateGmt: string;
}

/** Inserts or updates posts with the site's IDs; a row whose status and title are unchanged is not written. Answers how many were. */
export async function upsertPosts(db: Db, posts: readonly MirrorPost[]): Promise<number> {
  if (!posts.length) return 0;
  const existing = new Map(
    (
      (await statement(db, sql`SELECT id, type, status, title FROM posts WHERE ${inJson('id', 'id')}`).all(
        JSON.stringify(posts.map((p) => p.id)),
      )) as { id: number; type: string; status: string; title: string }[]
    ).map((r) => [r.id, r]),
  );
  const insert = statement(
    db,
    'INSERT INTO posts (id, type, status, title, parent, date, date_gmt, modified, modified_gmt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const update = statement(db, 'UPDATE posts SET status = ?, title = ?, modified = ?, modified_gmt = ? WHERE id = ?');
  let written = 0;
  for (const p of posts) {
    const old = existing.get(p.id);
    if (old && old.type !== p.type) throw new Error(`the site's ${p.type} ${p.id} is a ${old.type} in this hub's database`);
    if (!old) await insert.run(p.id, p.type, p.status, p.title, p.parent ?? 0, p.date, p.dateGmt, p.date, p.dateGmt);
    else if (old.status !== p.status || old.title !== p.title) await update.run(p.status, p.title, p.date, p.dateGmt, p.id);
    else continue;
    written++;
  }
  return written;
}

export interface MirrorEvent {
  id: number;
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
  timezone: string;
  allDay: boolean;
}

/** The event's dates as the site has them; `true` when that changed anything (a pull most often changes nothing). */
export async function upsertEventCols(db: Db, e: MirrorEvent): Promise<boolean> {
  const r = await statement(
    db,
    `INSERT INTO events (post_id, start_local, end_local, start_utc, end_utc, timezone, all_day) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (post_id) DO UPDATE SET start_local = excluded.start_local, end_local = excluded.end_local, start_utc = excluded.start_utc,
       end_utc = excluded.end_utc, timezone = excluded.timezone, all_day = excluded.all_day
     WHERE events.start_local <> excluded.start_local OR events.end_local <> excluded.end_local OR events.start_utc <> excluded.start_utc
       OR events.end_utc <> excluded.end_utc OR events.timezone <> excluded.timezone OR events.all_day <> excluded.all_day`,
  ).run(e.id, e.startLocal, e.endLocal, e.startUtc, e.endUtc, e.timezone, e.allDay ? 1 : 0);
  return r.changes > 0;
}

export interface MirrorTicket {
  id: number;
  eventId: number;
  provider: 'rsvp' | 'tc';
}

export async function upsertTicketCols(db: Db, tickets: readonly MirrorTicket[]): Promise<void> {
  const s = statement(
    db,
    `INSERT INTO tickets (post_id, event_id, provider) VALUES (?, ?, ?)
     ON CONFLICT (post_id) DO UPDATE SET event_id = excluded.event_id, provider = excluded.provider
     WHERE tickets.event_id <> excluded.event_id OR tickets.provider <> excluded.provider`,
  );
  for (const t of tickets) await s.run(t.id, t.eventId, t.provider);
}

export interface MirrorOrder {
  id: number;
  provider: 'rsvp' | 'tc';
  status: string;
  name: string;
  email: string;
  createdUtc: string;
}

/** Orders as far as the door needs them: their status (whether their attendees may enter). */
export async function upsertOrderCols(db: Db, orders: readonly MirrorOrder[]): Promise<void> {
  const s = statement(
    db,
    `INSERT INTO orders (post_id, provider, status, purchaser_name, purchaser_email, created_utc) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (post_id) DO UPDATE SET status = excluded.status WHERE orders.status <> excluded.status`,
  );
  for (const o of orders) await s.run(o.id, o.provider, o.status, o.name, o.email, o.createdUtc);
}

export interface MirrorAttendee {
  id: number;
  ticketId: number;
  eventId: number;
  orderId: number | null;
  provider: 'rsvp' | 'tc';
  fullName: string;
  email: string;
  securityCode: string;
  rsvpStatus: 'yes' | 'no' | null;
}

/**
 * Inserts or updates the attendees' rows; an unchanged row is not written (each write moves the attendee past the
 * kiosks' cursors, and a pull sees every attendee of the event once).
 */
export async function upsertAttendeeCols(db: Db, rows: readonly MirrorAttendee[]): Promise<void> {
  if (!rows.length) return;
  type Old = {
    post_id: number;
    ticket_id: number;
    order_id: number | null;
    full_name: string;
    email: string;
    security_code: string;
    rsvp_status: string | null;
  };
  const existing = new Map(
    (
      (await statement(
        db,
        sql`SELECT post_id, ticket_id, order_id, full_name, email, security_code, rsvp_status FROM attendees WHERE ${inJson('post_id', 'id')}`,
      ).all(JSON.stringify(rows.map((r) => r.id)))) as Old[]
    ).map((r) => [r.post_id, r]),
  );
  const update = statement(
    db,
    'UPDATE attendees SET ticket_id = ?, order_id = ?, full_name = ?, email = ?, security_code = ?, rsvp_status = ? WHERE post_id = ?',
  );
  // New ones in one statement, as the site's own sales write them.
  await insertAttendeeRows(
    db,
    rows.filter((a) => !existing.has(a.id)).map((a) => ({ ...a, postId: a.id, priceMinor: 0 })),
  );
  for (const a of rows) {
    const old = existing.get(a.id);
    if (!old) continue;
    const same =
      old.ticket_id === a.ticketId &&
      old.order_id === a.orderId &&
      old.full_name === a.fullName &&
      old.email === a.email &&
      old.security_code === a.securityCode &&
      old.rsvp_status === a.rsvpStatus;
    if (!same) await update.run(a.ticketId, a.orderId, a.fullName, a.email, a.securityCode, a.rsvpStatus, a.id);
  }
}

/** An attendee's standing check-in as the hub holds it: the row and what became of it at the site. */
export interface HubStanding {
  attendeeId: number;
  checkedIn: boolean;
  checkin: (CheckinRow & { upstream: string | null }) | null;
  /** This hub's scans of the attendee the site has not answered yet. */
  pending: number;
}

export async function standingOf(db: Db, attendeeIds: readonly number[]): Promise<Map<number, HubStanding>> {
  if (!attendeeIds.length) return new Map();
  const rows = (await statement(
    db,
    sql`SELECT a.post_id AS hub_attendee, a.checked_in AS hub_checked_in, c.*,
       (SELECT COUNT(*) FROM checkins p WHERE p.attendee_id = a.post_id AND p.upstream IS NULL AND p.result IN ('accepted', 'checked_out')) AS hub_pending
     FROM attendees a LEFT JOIN checkins c ON c.id = a.checkin_id
     WHERE ${inJson('a.post_id', 'id')}`,
  ).all(JSON.stringify(attendeeIds))) as (CheckinRow & {
    hub_attendee: number;
    hub_checked_in: number;
    hub_pending: number;
    upstream: string | null;
  })[];
  return new Map(
    rows.map(({ hub_attendee, hub_checked_in, hub_pending, ...c }) => [
      hub_attendee,
      { attendeeId: hub_attendee, checkedIn: hub_checked_in === 1, checkin: c.id === null ? null : c, pending: Number(hub_pending) },
    ]),
  );
}

/**
 * Only the scans still waiting, and those the site refused, are looked up (the push in order; `/health`, which any
 * caller may ask as often as it likes, counts both): partial indexes keep that to those few rows at any log size.
 * Made by the hub at start-up, not by a migration: a site's log has none of either, and should not carry them.
 */
export async function ensurePendingIndex(db: Db): Promise<void> {
  await db.exec(
    `CREATE INDEX IF NOT EXISTS checkins_upstream_pending ON checkins(id) WHERE upstream IS NULL AND result IN ('accepted', 'checked_out');
     CREATE INDEX IF NOT EXISTS checkins_upstream_refused ON checkins(upstream) WHERE upstream IN ('conflict', 'rejected')`,
  );
}

/** This hub's check-ins and check-outs the site has not answered yet, oldest first. */
export async function pendingPushes(db: Db, limit: number): Promise<CheckinRow[]> {
  return (await statement(
    db,
    `SELECT * FROM checkins WHERE upstream IS NULL AND result IN ('accepted', 'checked_out') AND attendee_id IS NOT NULL ORDER BY id LIMIT ?`,
  ).all(limit)) as CheckinRow[];
}

export async function countPendingPushes(db: Db): Promise<number> {
  return Number(
    (
      (await statement(
        db,
        `SELECT COUNT(*) AS n FROM checkins WHERE upstream IS NULL AND result IN ('accepted', 'checked_out') AND attendee_id IS NOT NULL`,
      ).get()) as { n: number }
    ).n,
  );
}

/** The hub's scans the site refused: a check-in stood there first ('conflict'), or the ticket was not valid there. */
export async function countUpstreamRefusals(db: Db): Promise<{ conflict: number; rejected: number }> {
  const rows = (await statement(
    db,
    `SELECT upstream, COUNT(*) AS n FROM checkins WHERE upstream IN ('conflict', 'rejected') GROUP BY upstream`,
  ).all()) as {
    upstream: string;
    n: number;
  }[];
  const n = (k: string) => Number(rows.find((r) => r.upstream === k)?.n ?? 0);
  return { conflict: n('conflict'), rejected: n('rejected') };
}

/** What the site answered to a pushed scan; a refused one stops counting as this hub's accepted scan. */
export async function markPushed(db: Db, id: number, upstream: 'sent' | 'conflict' | 'rejected', reason?: string): Promise<void> {
  if (upstream === 'sent') await statement(db, 'UPDATE checkins SET upstream = ? WHERE id = ?').run(upstream, id);
  else await statement(db, 'UPDATE checkins SET upstream = ?, result = ?, reason = ? WHERE id = ?').run(upstream, upstream, reason ?? null, id);
}

export interface MirrorCheckin {
  attendeeId: number;
  eventId: number;
  result: 'accepted' | 'checked_out';
  scannedAt: string;
  receivedAt: string;
  deviceId: string | null;
  deviceLabel: string | null;
  source: string;
  userId: number;
  replacesId: number | null;
}

/** A check-in or check-out the site made, copied into the log ('mirror': never pushed back). */
export async function insertMirrorCheckin(db: Db, c: MirrorCheckin): Promise<number> {
  const r = await statement(
    db,
    `INSERT INTO checkins (attendee_id, event_id, result, reason, scanned_at, received_at, device_id, nonce, source, user_id, api_key_id, upstream, device_label, replaces_id)
     VALUES (?, ?, ?, NULL, ?, ?, ?, NULL, ?, ?, NULL, 'mirror', ?, ?) RETURNING id`,
  ).run(c.attendeeId, c.eventId, c.result, c.scannedAt, c.receivedAt, c.deviceId, c.source, c.userId, c.deviceLabel, c.replacesId);
  return Number(r.lastInsertRowid);
}

export interface RefusedPush {
  id: number;
  attendee_id: number;
  full_name: string;
  upstream: 'conflict' | 'rejected';
  reason: string | null;
  scanned_at: string;
  device_id: string | null;
  label: string | null;
}

/** The hub's scans the site refused, newest first (what `cli hub status` lists for the organizer). */
export async function upstreamRefusals(db: Db, limit: number): Promise<RefusedPush[]> {
  return (await statement(
    db,
    `SELECT c.id, c.attendee_id, COALESCE(a.full_name, '') AS full_name, c.upstream, c.reason, c.scanned_at, c.device_id, k.label
     FROM checkins c LEFT JOIN attendees a ON a.post_id = c.attendee_id LEFT JOIN api_keys k ON k.id = c.api_key_id
     WHERE c.upstream IN ('conflict', 'rejected') ORDER BY c.id DESC LIMIT ?`,
  ).all(limit)) as RefusedPush[];
}

/**
 * The site's public signing keys of the event (CONTRACT section 8), so kiosks paired with the hub pin the site's key
 * and verify the site's signed tickets offline. Kept without a private key (`private_box` empty: the hub signs
 * nothing); `current` is the key that signs new tickets at the site, the others stay valid, a key the site no longer
 * lists is revoked.
 */
export async function mirrorSigningKeys(
  db: Db,
  eventId: number,
  keys: readonly { kid: string; key: string }[],
  current: string,
  nowMs: number,
): Promise<boolean> {
  let changed = false;
  const have = (await statement(db, 'SELECT kid, public_key, retired_ms, revoked_ms FROM evt_signing_keys WHERE event_id = ?').all(eventId)) as {
    kid: string;
    public_key: string;
    retired_ms: number | null;
    revoked_ms: number | null;
  }[];
  const listed = new Set(keys.map((k) => k.kid));
  for (const h of have) {
    if (!listed.has(h.kid) && h.revoked_ms === null)
      await statement(db, 'UPDATE evt_signing_keys SET revoked_ms = ?, retired_ms = COALESCE(retired_ms, ?) WHERE kid = ?').run(nowMs, nowMs, h.kid);
    else if (listed.has(h.kid) && h.kid !== current && h.retired_ms === null)
      await statement(db, 'UPDATE evt_signing_keys SET retired_ms = ? WHERE kid = ?').run(nowMs, h.kid);
    else continue;
    changed = true;
  }
  const known = new Set(have.map((h) => h.kid));
  // The current one last, once every other key of the event is retired (one current key an event).
  for (const k of [...keys].sort((a, b) => Number(a.kid === current) - Number(b.kid === current))) {
    if (known.has(k.kid)) continue;
    changed = true;
    await statement(
      db,
      "INSERT INTO evt_signing_keys (event_id, kid, public_key, private_box, created_ms, retired_ms, revoked_ms) VALUES (?, ?, ?, '', ?, ?, NULL)",
    ).run(eventId, k.kid, k.key, nowMs, k.kid === current ? null : nowMs);
  }
  return changed;
}
