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
