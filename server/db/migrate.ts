import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './engine/types.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(here, 'migrations');
const pgDir = path.join(here, 'migrations-pg');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const NAME = /^\d{3}-[\w-]+\.sql$/;

function readDir(d: string): Migration[] {
  return fs
    .readdirSync(d)
    .filter((f) => NAME.test(f))
    .sort()
    .map((f): Migration => ({ version: Number(f.slice(0, 3)), name: f, sql: fs.readFileSync(path.join(d, f), 'utf8') }));
}

/**
 * Numbered `NNN-name.sql` files, in order, written per engine: `migrations/` for SQLite, `migrations-pg/` for
 * PostgreSQL (the same numbers and names; a test holds that), each run as it is. On PostgreSQL,
 * `migrations-pg/000-prelude.sql` (extensions and the SQL functions SQLite's connection registers in JS) runs in
 * the first migration's transaction, before it: a database's recorded version stays the number of the last file.
 */
export function listMigrations(engine: 'sqlite' | 'postgres' = 'sqlite'): Migration[] {
  if (engine === 'sqlite') return readDir(dir);
  const list = readDir(pgDir);
  const prelude = list.find((m) => m.version === 0);
  const rest = list.filter((m) => m.version !== 0);
  if (prelude && rest[0]) rest[0] = { ...rest[0], sql: `${prelude.sql}\n${rest[0].sql}` };
  return rest;
}

/** Applies every migration newer than `PRAGMA user_version` (PostgreSQL: the evt_schema row), each in its own transaction. */
export async function migrate(db: Db): Promise<number> {
  const current = await db.userVersion();
  const pending = listMigrations(db.engine).filter((m) => m.version > current);
  for (const m of pending) {
    await db.transaction(async () => {
      await db.exec(m.sql);
      await db.setUserVersion(m.version);
    });
  }
  return pending.length;
}
