import crypto from 'node:crypto';
import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { nowUtc } from '../clock.ts';

export interface AppPasswordRow {
  id: number;
  user_id: number;
  uuid: string;
  name: string;
  hash: string;
  created: string;
  last_used: string | null;
  last_ip: string | null;
}

export async function insertAppPassword(db: Db, userId: number, name: string, hash: string): Promise<AppPasswordRow> {
  const uuid = crypto.randomUUID();
  await statement(db, 'INSERT INTO app_passwords (user_id, uuid, name, hash, created) VALUES (?, ?, ?, ?, ?)').run(
    userId,
    uuid,
    name,
    hash,
    nowUtc(),
  );
  return (await statement(db, 'SELECT * FROM app_passwords WHERE uuid = ?').get(uuid)) as AppPasswordRow;
}

export async function appPasswordsOf(db: Db, userId: number): Promise<AppPasswordRow[]> {
  return (await statement(db, 'SELECT * FROM app_passwords WHERE user_id = ? ORDER BY id').all(userId)) as AppPasswordRow[];
}

export async function deleteAppPasswordsOf(db: Db, userId: number, name?: string): Promise<number> {
  return name === undefined
    ? (await statement(db, 'DELETE FROM app_passwords WHERE user_id = ?').run(userId)).changes
    : (await statement(db, 'DELETE FROM app_passwords WHERE user_id = ? AND name = ?').run(userId, name)).changes;
}

/** Replaces a password's stored hash (an old slow hash of a generated password becomes its fast one on first use). */
export async function setAppPasswordHash(db: Db, id: number, hash: string): Promise<void> {
  await statement(db, 'UPDATE app_passwords SET hash = ? WHERE id = ?').run(hash, id);
}

export async function touchAppPassword(db: Db, id: number, ip: string): Promise<void> {
  await statement(db, 'UPDATE app_passwords SET last_used = ?, last_ip = ? WHERE id = ?').run(nowUtc(), ip, id);
}

/** Deletes one application password of one user (revocation); returns the deleted row, if there was one. */
export async function deleteAppPassword(db: Db, userId: number, id: number): Promise<AppPasswordRow | undefined> {
  return (await statement(db, 'DELETE FROM app_passwords WHERE id = ? AND user_id = ? RETURNING *').get(id, userId)) as AppPasswordRow | undefined;
}

export async function appPasswordExists(db: Db, id: number): Promise<boolean> {
  return (await statement(db, 'SELECT 1 FROM app_passwords WHERE id = ?').get(id)) !== undefined;
}

/** Every application password with its user's login, by ID (the security scan's idle check). */
export async function appPasswordsWithLogins(db: Db): Promise<(Pick<AppPasswordRow, 'id' | 'name' | 'created' | 'last_used'> & { login: string })[]> {
  return (await statement(
    db,
    'SELECT a.id, a.name, a.created, a.last_used, u.login FROM app_passwords a JOIN users u ON u.id = a.user_id ORDER BY a.id',
  ).all()) as (Pick<AppPasswordRow, 'id' | 'name' | 'created' | 'last_used'> & { login: string })[];
}
