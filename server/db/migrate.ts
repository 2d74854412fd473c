import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './engine/types.ts';
import type { PgDb } from './engine/postgres.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(here, 'migrations');
const pgDir = path.join(here, 'migrations-pg');

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** PostgreSQL only: the file is written for PostgreSQL (an override in migrations-pg/), run as it is. */
  native?: boolean;
  /** PostgreSQL only, on the first migration when it is translated: `migrations-pg/000-prelude.sql`, run as it is before it. */
  prelude?: string;
}

const NAME = /^\d{3}-[\w-]+\.sql$/;

/**
 * Numbered `NNN-name.sql` files, in order. On PostgreSQL the same files, translated by the dialect seam, except
 * where `migrations-pg/` holds a file of the same number (written for PostgreSQL where the DDL differs too much);
 * `migrations-pg/000-prelude.sql` (extensions and the SQL functions SQLite's connection registers in JS) runs
 * before the first.
 */
export function listMigrations(engine: 'sqlite' | 'postgres' = 'sqlite'): Migration[] {
  const list = fs
    .readdirSync(dir)
    .filter((f) => NAME.test(f))
    .sort()
    .map((f): Migration => ({ version: Number(f.slice(0, 3)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
  if (engine === 'sqlite') return list;
  const overrides = new Map(
    fs
      .readdirSync(pgDir)
      .filter((f) => NAME.test(f))
      .map((f) => [Number(f.slice(0, 3)), { name: f, sql: fs.readFileSync(path.join(pgDir, f), 'utf8') }] as const),
  );
  return list.map((m) => {
    const o = overrides.get(m.version);
    const prelude = m.version === (list[0] as Migration).version ? (overrides.get(0)?.sql ?? '') : '';
    return o ? { version: m.version, name: o.name, sql: prelude + o.sql, native: true } : { ...m, native: false, prelude };
  });
}

/** Applies every migration newer than `PRAGMA user_version` (PostgreSQL: the evt_schema row), each in its own transaction. */
export async function migrate(db: Db): Promise<number> {
  const engine = db.engine;
  const current = await db.userVersion();
  const pending = listMigrations(engine).filter((m) => m.version > current);
  for (const m of pending) {
    await db.transaction(async () => {
      if (engine === 'postgres') {
        const pg = db as PgDb;
        if (m.prelude) await pg.native(m.prelude);
        if (m.native) await pg.native(m.sql);
        else await pg.exec(m.sql);
      } else await db.exec(m.sql);
      await db.setUserVersion(m.version);
    });
  }
  return pending.length;
}
