import type { SqliteDb } from '../../server/db/engine/sqlite.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engineOf, openDatabase, type Db } from '../../server/db/connection.ts';
import { createApiKey, createAppPassword } from '../../server/auth/credentials.ts';
import { revokeApiKey } from '../../server/db/repos/api-keys.ts';
import { insertUser } from '../../server/db/repos/users.ts';
import type { Role } from '../../shared/auth.ts';
import { seedTicketsFixture, type TicketsFixture } from '../helpers/tickets-fixture.ts';

export interface Credentials {
  /** `Authorization` header values. */
  admin: string;
  organizer: string;
  doorUser: string;
  doorKey: string;
  revokedKey: string;
}

export interface SeededSite extends TicketsFixture {
  dir: string;
  dbFile: string;
  auth: Credentials;
}

async function basicFor(db: Db, role: Role, login: string): Promise<string> {
  const u = await insertUser(db, { login, email: `${login}@example.test`, role });
  const { password } = await createAppPassword(db, u.id, 'reliability');
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

/**
 * A fresh SQLite file (migrated by openDatabase) with an event, a ticket and `attendees` attendees, users of
 * each role and two door keys (one revoked), written before the server process opens it.
 */
export async function seedSite(attendees: number): Promise<SeededSite> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-reliability-'));
  const dbFile = path.join(dir, 'evt.sqlite');
  const db = await openDatabase(dbFile);
  try {
    const fixture = await seedTicketsFixture(db, { attendees, provider: 'rsvp' });
    const doorKey = (await createApiKey(db, 'Door reliability', null, null)).key;
    const revoked = await createApiKey(db, 'Door revoked', null, null);
    await revokeApiKey(db, revoked.row.id);
    const auth: Credentials = {
      admin: await basicFor(db, 'administrator', 'rel-admin'),
      organizer: await basicFor(db, 'organizer', 'rel-organizer'),
      doorUser: await basicFor(db, 'door', 'rel-door'),
      doorKey: `Bearer ${doorKey}`,
      revokedKey: `Bearer ${revoked.key}`,
    };
    return { ...fixture, dir, dbFile, auth };
  } finally {
    await db.close();
  }
}

/** Opens the database file for checks after the server stopped (or beside it: WAL readers do not block). */
export async function openForCheck(dbFile: string): Promise<Db> {
  return await openDatabase(dbFile);
}

/**
 * 'ok' when the database is sound, else what is wrong. SQLite: `PRAGMA integrity_check`. PostgreSQL has no such
 * pragma (it answered nothing, so the check read ''): every constraint is validated, and amcheck's
 * `bt_index_check` (with `heapallindexed`) finds every B-tree index of the schema consistent with its table.
 */
export async function integrityCheck(db: Db): Promise<string> {
  if (engineOf(db) !== 'postgres')
    return ((db as SqliteDb).raw.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  const problems: string[] = [];
  for (const c of (await db.prepare("SELECT conname FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND NOT convalidated").all()) as {
    conname: string;
  }[])
    problems.push(`constraint ${c.conname} not validated`);
  await db.exec('CREATE EXTENSION IF NOT EXISTS amcheck');
  const indexes = (await db
    .prepare(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
        WHERE am.amname = 'btree' AND c.relnamespace = 'public'::regnamespace ORDER BY c.relname`,
    )
    .all()) as { name: string }[];
  for (const { name } of indexes) {
    try {
      await db
        .prepare("SELECT bt_index_check(c.oid, true) FROM pg_class c WHERE c.relname = ? AND c.relnamespace = 'public'::regnamespace")
        .all(name);
    } catch (e) {
      problems.push(`index ${name}: ${(e as Error).message}`);
    }
  }
  if (!indexes.length) problems.push('no indexes found');
  return problems.length ? problems.join('; ') : 'ok';
}

export function removeSite(site: { dir: string }): void {
  fs.rmSync(site.dir, { recursive: true, force: true });
}
