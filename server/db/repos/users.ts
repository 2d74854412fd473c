import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';
import { inJson, sql } from '../engine/sql.ts';
import type { Role } from '../../../shared/auth.ts';
import { nowUtc } from '../clock.ts';

export interface UserRow {
  id: number;
  login: string;
  email: string;
  display_name: string;
  role: Role;
  registered: string;
}

export async function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  return (await statement(db, 'SELECT * FROM users WHERE login = ?').get(login)) as UserRow | undefined;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return (await statement(db, 'SELECT * FROM users WHERE lower(email) = lower(?)').get(email)) as UserRow | undefined;
}

export async function getUser(db: Db, id: number): Promise<UserRow | undefined> {
  return (await statement(db, 'SELECT * FROM users WHERE id = ?').get(id)) as UserRow | undefined;
}

export async function insertUser(db: Db, u: { login: string; email: string; displayName?: string; role: Role }): Promise<UserRow> {
  const info = await statement(db, 'INSERT INTO users (login, email, display_name, role, registered) VALUES (?, ?, ?, ?, ?) RETURNING id').run(
    u.login,
    u.email,
    u.displayName ?? u.login,
    u.role,
    nowUtc(),
  );
  return (await getUser(db, Number(info.lastInsertRowid)))!;
}

export async function setUserRole(db: Db, id: number, role: Role): Promise<void> {
  await statement(db, 'UPDATE users SET role = ? WHERE id = ?').run(role, id);
}

/** A user's login and display name (a system context's caller). */
export async function userNames(db: Db, id: number): Promise<Pick<UserRow, 'login' | 'display_name'> | undefined> {
  return (await statement(db, 'SELECT login, display_name FROM users WHERE id = ?').get(id)) as Pick<UserRow, 'login' | 'display_name'> | undefined;
}

/** Every user, by ID (the CLI's `user list`). */
export async function listUsers(db: Db): Promise<UserRow[]> {
  return (await statement(db, 'SELECT id, login, role, email, registered FROM users ORDER BY id').all()) as UserRow[];
}

/** Administrators whose login, lower-cased, is one of `logins` (lower case), by ID. */
export async function administratorsWithLogins(db: Db, logins: readonly string[]): Promise<Pick<UserRow, 'id' | 'login'>[]> {
  return (await statement(db, sql`SELECT id, login FROM users WHERE role = 'administrator' AND ${inJson('lower(login)', 'text')} ORDER BY id`).all(
    JSON.stringify(logins),
  )) as Pick<UserRow, 'id' | 'login'>[];
}

/** The logins of all administrators, by ID. */
export async function administratorLogins(db: Db): Promise<string[]> {
  return ((await statement(db, "SELECT login FROM users WHERE role = 'administrator' ORDER BY id").all()) as { login: string }[]).map((r) => r.login);
}
