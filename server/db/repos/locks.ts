import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import type { PgDb } from '../engine/postgres.ts';
import { inJson } from '../engine/sql.ts';
import { findCart, type CartRow } from './carts.ts';
import { getTicketRows, type TicketRow } from './tickets.ts';

/**
 * What keeps each invariant exact when several writers run at once (PostgreSQL: many connections in each of
 * several processes). Each check-then-write takes the lock of the resource it checks, inside its transaction, as
 * late as it can and before it reads what it checks; the lock is released by COMMIT or ROLLBACK. A lock not
 * granted within 3 s (the connections' `lock_timeout`) fails the request with 503 and `Retry-After`, having
 * written nothing.
 *
 * The one lock order (no two transactions can wait for each other in a circle):
 *   checkout limit keys (sorted) -> order -> cart -> tickets (ascending IDs) -> attendees (ascending IDs) -> nonce
 * A batch takes the attendees of all its check-ins at once, in ascending order, before its first item
 * (http/batch-group.ts), so two batches that meet the same attendees in different orders queue instead of
 * deadlocking. Should a cycle still form (a nonce shared by two attendees), PostgreSQL ends one transaction and it
 * answers 503 with Retry-After, having written nothing.
 *
 * | invariant                                   | protection                                                      |
 * |---------------------------------------------|-----------------------------------------------------------------|
 * | ticket capacity, places held by orders      | `lockTickets` / `lockTicketRows`: the ticket rows, FOR NO KEY   |
 * |                                             | UPDATE, before counting                                         |
 * | one accepted check-in per attendee          | the attendee rows, FOR NO KEY UPDATE, then read in a statement  |
 * |                                             | of their own before deciding (attendees.ts `lockScanState`)     |
 * | one recorded scan per client nonce          | an advisory lock keyed by the nonce, after the attendees' locks |
 * |                                             | and before the lookup (`lockScanState`; checkins.ts             |
 * |                                             | `findCheckinByNonceLocked` for a refusal the door recorded),    |
 * |                                             | and the unique index on checkins.nonce                          |
 * | order status moves (pay, cancel, hold lapse)| `lockOrder`: the order row, before reading its status           |
 * | cart lines                                  | `lockCartOf`: the cart row, read as it is locked, before its    |
 * |                                             | lines are read                                                  |
 * | per-address / per-login limits (database)   | `lockLimitKey` (advisory, keyed by limiter and key) when a      |
 * |                                             | count and its record share a transaction (checkout)             |
 * | mail claims                                 | the claim is one UPDATE whose WHERE is re-checked under the row |
 * |                                             | lock it takes (READ COMMITTED), so one claimer gets the row     |
 * | the attendee change cursor (X-EVT-Cursor)   | the counter row, moved at COMMIT (migrations-pg/018)            |
 *
 * Row locks are FOR NO KEY UPDATE: two holders exclude each other as FOR UPDATE's would, but a foreign-key check
 * (FOR KEY SHARE) on the row does not wait for them. Under FOR UPDATE every cart write and every checkout's
 * inserts that name a ticket (cart lines, order items, attendees) waited for any checkout holding that ticket:
 * in bench:scale the cart writes' key checks on the tickets waited 13 ms each. No key of these rows is ever
 * changed, and a DELETE still waits for a holder.
 *
 * SQLite runs one write transaction at a time (a process's transactions take turns, engine/sqlite.ts, and
 * processes take SQLite's write lock), so there each function is a no-op: the whole database is the lock.
 */

/** Advisory lock spaces (the first key of `pg_advisory_xact_lock(int, int)`). */
export const NONCE_LOCK_SPACE = 0x4e4f;
export const LIMIT_LOCK_SPACE = 0x4c49;

function pg(db: Db): PgDb | null {
  return db.engine === 'postgres' ? (db as PgDb) : null;
}

export async function lockTickets(db: Db, ids: readonly number[]): Promise<void> {
  const p = pg(db);
  if (!p || !ids.length) return;
  await p.native('SELECT post_id FROM tickets WHERE post_id = ANY($1::bigint[]) ORDER BY post_id FOR NO KEY UPDATE', [
    `{${[...new Set(ids)].join(',')}}`,
  ]);
}

/**
 * The tickets' rows read under their locks, in one statement (PostgreSQL: `FOR NO KEY UPDATE OF` the tickets rows, in
 * ascending ID order, as lockTickets); SQLite: read. A statement that waited for a lock re-reads the locked
 * tickets row (capacity, price, sale window) but joins the ticket's post as it stood before the wait: its title
 * and status, which no invariant counts on (the places are counted by a statement of their own after the locks).
 * In the order of `ids`, missing ones skipped, as getTicketRows.
 */
export async function lockTicketRows(db: Db, ids: readonly number[]): Promise<TicketRow[]> {
  if (!pg(db) || !ids.length) return await getTicketRows(db, ids);
  const rows = (await statement(
    db,
    `SELECT p.*, d.* FROM posts p JOIN tickets d ON d.post_id = p.id WHERE ${inJson('d.post_id', 'id').pg} ORDER BY d.post_id FOR NO KEY UPDATE OF d`,
  ).all(JSON.stringify([...new Set(ids)]))) as TicketRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is TicketRow => r !== undefined);
}

/** The attendees' rows, in ascending ID order (a batch takes its items' attendees at once: http/batch-group.ts). */
export async function lockAttendees(db: Db, ids: readonly number[]): Promise<void> {
  const p = pg(db);
  if (!p || !ids.length) return;
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  await p.native('SELECT post_id FROM attendees WHERE post_id = ANY($1::bigint[]) ORDER BY post_id FOR NO KEY UPDATE', [`{${sorted.join(',')}}`]);
}

/** True when it locked (PostgreSQL): the order as read before it may be stale. */
export async function lockOrder(db: Db, id: number): Promise<boolean> {
  const p = pg(db);
  if (!p) return false;
  await p.native('SELECT post_id FROM orders WHERE post_id = $1 FOR NO KEY UPDATE', [String(id)]);
  return true;
}

/**
 * The cart of `owner`, locked and read in one statement (PostgreSQL: the carts row alone, so a statement that
 * waited re-reads all it returns); SQLite: read. Its lines are read after it, under the lock.
 */
export async function lockCartOf(db: Db, owner: string): Promise<CartRow | undefined> {
  if (!pg(db)) return await findCart(db, owner);
  return (await statement(db, 'SELECT * FROM carts WHERE owner = ? FOR NO KEY UPDATE').get(owner)) as CartRow | undefined;
}

export async function lockLimitKey(db: Db, limiter: string, key: string): Promise<void> {
  const p = pg(db);
  if (p) await p.native('SELECT pg_advisory_xact_lock($1, hashtext($2))', [String(LIMIT_LOCK_SPACE), `${limiter}:${key}`]);
}
