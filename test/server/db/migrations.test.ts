import { SqliteDb } from '../../../server/db/engine/sqlite.ts';
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listMigrations, migrate } from '../../../server/db/migrate.ts';
import { openDatabase } from '../../../server/db/connection.ts';
import { explainEventQuery } from '../../../server/db/repos/event-query.ts';

describe('migrations', () => {
  test('numbered, applied once in order, tracked by user_version; tables are STRICT', async () => {
    const list = listMigrations();
    assert.deepEqual(
      list.map((m) => m.version),
      [...list.map((m) => m.version)].sort((a, b) => a - b),
    );
    assert.equal(new Set(list.map((m) => m.version)).size, list.length);
    const db = new SqliteDb(':memory:');
    assert.equal(await migrate(db), list.length);
    assert.equal(await db.userVersion(), list[list.length - 1].version);
    assert.equal(await migrate(db), 0);
    const tables = db.raw.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
      name: string;
      sql: string;
    }[];
    for (const t of tables) assert.match(t.sql, /\bSTRICT\b/, `${t.name} is STRICT`);
  });

  test('written once per engine: PostgreSQL has a file of the same number and name for each, run as it is', () => {
    // A database's recorded state is the number of its last migration (user_version, evt_schema), so both sets
    // keep the same numbers; PostgreSQL's prelude (000) runs with the first.
    const names = (l: { name: string }[]) => l.map((m) => m.name);
    assert.deepEqual(names(listMigrations('postgres')), names(listMigrations('sqlite')));
    const pg = listMigrations('postgres');
    assert.match(pg[0]?.sql ?? '', /CREATE EXTENSION IF NOT EXISTS citext/);
    for (const m of pg) assert.doesNotMatch(m.sql.replace(/--[^\n]*/g, ''), /\bSTRICT\s*;|\bAUTOINCREMENT\b|COLLATE\s+NOCASE/i, m.name);
  });

  test('a file database runs in WAL mode with foreign keys on', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-db-'));
    const db = await openDatabase(path.join(dir, 'x.sqlite'));
    assert.equal((db as SqliteDb).raw.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal((db as SqliteDb).raw.pragma('foreign_keys', { simple: true }), 1);
    await db.close();
    fs.rmSync(dir, { recursive: true });
  });

  test('the events archive query walks the start-date index, category filter included, reading no event rows', async () => {
    const db = await openDatabase(':memory:');
    const plan = (
      await explainEventQuery(db, {
        statuses: ['publish'],
        startsOnOrAfter: '2030-01-01 00:00:00',
        endsOnOrBefore: '2032-01-01 00:00:00',
        termIds: [[1, 2]],
        excludeHidden: true,
        extra: [],
        limit: 50,
        offset: 0,
      })
    ).join('\n');
    // The index holds the end date and listing flag too (011-event-list-index.sql): no event row is read.
    assert.match(plan, /SEARCH e USING COVERING INDEX events_list/);
    assert.match(plan, /SEARCH tr EXISTS USING PRIMARY KEY/);
    assert.doesNotMatch(plan, /SCAN (e|p)\b/);
    // The index also gives the order: no sort step.
    assert.doesNotMatch(plan, /TEMP B-TREE/);
  });
});
