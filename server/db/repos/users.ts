import type { Db } from '../connection.ts';
import { stmt } from '../connection.ts';
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

export function findUserByLogin(db: Db, login: string): UserRow | undefined {
  return stmt(db, 'SELECT * FROM users WHERE login = ?').get(login) as UserRow | undefined;
}

export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return stmt(db, 'SELECT * FROM users WHERE email = ? COLLATE NOCASE').get(email) as UserRow | undefined;
}

export function getUser(db: Db, id: number): UserRow | undefined {
  return stmt(db, 'SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
}

export function insertUser(db: Db, u: { login: string; email: string; displayName?: string; role: Role }): UserRow {
  const info = stmt(db, 'INSERT INTO users (login, email, display_name, role, registered) VALUES (?, ?, ?, ?, ?)').run(
    u.login,
    u.email,
    u.displayName ?? u.login,
    u.role,
    nowUtc(),
  );
  return getUser(db, Number(info.lastInsertRowid))!;
}

export function setUserRole(db: Db, id: number, role: Role): void {
  stmt(db, 'UPDATE users SET role = ? WHERE id = ?').run(role, id);
}

/** A user's login and display name (a system context's caller). */
export function userNames(db: Db, id: number): Pick<UserRow, 'login' | 'display_name'> | undefined {
  return stmt(db, 'SELECT login, display_name FROM users WHERE id = ?').get(id) as Pick<UserRow, 'login' | 'display_name'> | undefined;
}

/** Every user, by ID (the CLI's `user list`). */
export function listUsers(db: Db): UserRow[] {
  return stmt(db, 'SELECT id, login, role, email, registered FROM users ORDER BY id').all() as UserRow[];
}

/** Administrators whose login, lower-cased, is one of `logins` (lower case), by ID. */
export function administratorsWithLogins(db: Db, logins: readonly string[]): Pick<UserRow, 'id' | 'login'>[] {
  return stmt(db, "SELECT id, login FROM users WHERE role = 'administrator' AND lower(login) IN (SELECT value FROM json_each(?)) ORDER BY id").all(
    JSON.stringify(logins),
  ) as Pick<UserRow, 'id' | 'login'>[];
}

/** The logins of all administrators, by ID. */
export function administratorLogins(db: Db): string[] {
  return (stmt(db, "SELECT login FROM users WHERE role = 'administrator' ORDER BY id").all() as { login: string }[]).map((r) => r.login);
}
