import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, rowReader, statement, type Db } from '../../server/db/connection.ts';

/**
 * The prepared-statement caches are bounded (issue 10, item 5): some SQL texts are built from the shape of a
 * request (which filters it sets, which columns an update names), so the number of distinct texts is not
 * fixed. The caches keep the most recently used statements; one unused for 2,000 other texts is dropped
 * (and prepared again when next asked for), while one in steady use stays prepared.
 */

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-stmt-'));
  db = await openDatabase(path.join(dir, 'evt.sqlite'));
});
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('statement cache', () => {
  test('statement() keeps the recently used statements and drops one left unused for 2,000 other texts', async () => {
    const cold = statement(db, 'SELECT 1 AS cold');
    const hot = statement(db, 'SELECT 1 AS hot');
    for (let i = 0; i < 2_000; i++) {
      // Each text differs, as `WHERE` clauses built from filters do.
      assert.equal(((await statement(db, `SELECT ${i} AS n WHERE ${i} >= 0`).get()) as { n: number }).n, i);
      if (i % 50 === 0) assert.equal(statement(db, 'SELECT 1 AS hot'), hot, 'a statement in use stays cached');
    }
    assert.equal(statement(db, 'SELECT 1 AS hot'), hot);
    const again = statement(db, 'SELECT 1 AS cold');
    assert.notEqual(again, cold, 'the cold statement was dropped from the cache');
    assert.deepEqual(await again.get(), { cold: 1 });
  });

  test('rowReader is bounded the same way', async () => {
    const cold = rowReader(db, 'SELECT 1 AS cold');
    const hot = rowReader(db, 'SELECT 2 AS hot');
    for (let i = 0; i < 2_000; i++) {
      assert.deepEqual(await rowReader<{ n: number }>(db, `SELECT ${i} AS n`).get(), { n: i });
      if (i % 50 === 0) assert.equal(rowReader(db, 'SELECT 2 AS hot'), hot);
    }
    assert.equal(rowReader(db, 'SELECT 2 AS hot'), hot);
    assert.notEqual(rowReader(db, 'SELECT 1 AS cold'), cold);
  });

  test('at most 500 statements are held, whatever the number of texts', async () => {
    // Imported here so the behaviour tests above also run against a tree without it.
    const { statementCacheSize, STATEMENT_CACHE_MAX } = await import('../../server/db/connection.ts');
    assert.equal(STATEMENT_CACHE_MAX, 500);
    const fresh = await openDatabase(path.join(dir, 'size.sqlite'));
    try {
      for (let i = 0; i < 3_000; i++) statement(fresh, `SELECT ${i} AS n`);
      for (let i = 0; i < 3_000; i++) rowReader(fresh, `SELECT ${i} AS m`);
      const held = statementCacheSize(fresh);
      assert.ok(held > 0 && held <= 2 * STATEMENT_CACHE_MAX, `${held} statements held (stmt and rowReader, 500 each at most)`);
    } finally {
      await fresh.close();
    }
  });
});
