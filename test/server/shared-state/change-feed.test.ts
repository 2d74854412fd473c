import { afterEach, beforeEach, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../../server/db/connection.ts';
import { freshTestDatabase, testDbWanted } from '../../helpers/pg-cluster.ts';
import { CHANGE_GAP_WAIT_MS, CHANGE_LOG_KEEP_MS, changeStamp, onChangedTags, openChangeFeed, recordChange } from '../../../server/db/change-feed.ts';

/** The change log read by a process (connection `reader`) while others (connection `writer`) append to it. */
let dir: string;
let pg: { url: string; drop: () => void } | null;
let writer: Db;
let reader: Db;
let now: number;
let dropped: string[][];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-feed-'));
  // Two connections to one database (with EVT_TEST_DB=postgres, a fresh PostgreSQL one).
  pg = testDbWanted() ? await freshTestDatabase() : null;
  const file = pg ? pg.url : path.join(dir, 'evt.sqlite');
  writer = await openDatabase(file);
  reader = await openDatabase(file);
  now = 1_000_000;
  await openChangeFeed(writer, 'database', () => now);
  await openChangeFeed(reader, 'database', () => now);
  dropped = [];
  onChangedTags(reader, (tags) => dropped.push([...tags]));
});
afterEach(async () => {
  await writer.close();
  await reader.close();
  pg?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A log row with a chosen sequence number, as a transaction that inserted earlier and commits later leaves it. */
const put = (seq: number, tags: string, at = now) =>
  writer.prepare("INSERT INTO evt_change_log (seq, tags, origin, at_ms) VALUES (?, ?, 'elsewhere', ?)").run(seq, tags, at);

describe('change feed (shared state in the database)', () => {
  test("another process's described change drops exactly its tags; an undescribed one moves the stamp; its own are not read back", async () => {
    const all0 = await changeStamp(reader);
    await recordChange(writer, ['tickets']);
    assert.equal(await changeStamp(reader), all0, 'a described change leaves the stamp');
    assert.deepEqual(dropped, [['tickets']]);
    await recordChange(writer, 'all');
    assert.equal(await changeStamp(reader), all0 + 1);
    await recordChange(reader, ['carts']);
    await recordChange(reader, 'all');
    assert.equal(await changeStamp(reader), all0 + 1, 'its own changes were applied when made');
    assert.deepEqual(dropped, [['tickets']]);
    assert.equal(await changeStamp(writer), 1, "the writer reads the reader's undescribed change");
  });

  // Protection: sharedRead's "next" read (change-feed.ts): a request that arrives while a read is in flight waits
  // for a read begun after it. Seen failing with sharedRead returning the read in flight (`return f.reading`
  // when one is): the second stamp came from the stale read and the change was not seen.
  test('concurrent stamps share reads, but a read begun before a change never answers a request made after it', async () => {
    const all0 = await changeStamp(reader);
    // The reader's next log read answers late: its snapshot is taken at once, its rows arrive 300 ms later.
    const prepare = reader.prepare.bind(reader);
    let slowed = 0;
    (reader as { prepare: Db['prepare'] }).prepare = (sql) => {
      const st = prepare(sql);
      if (!String(typeof sql === 'string' ? sql : sql.pg).includes('FROM evt_change_log WHERE seq >') || slowed++) return st;
      const all = st.all.bind(st);
      st.all = (async (...a: unknown[]) => {
        const rows = await all(...a);
        await new Promise((r) => setTimeout(r, 300));
        return rows;
      }) as typeof st.all;
      return st;
    };
    const first = changeStamp(reader);
    await new Promise((r) => setTimeout(r, 100));
    await recordChange(writer, 'all');
    const [a, b, c] = await Promise.all([first, changeStamp(reader), changeStamp(reader)]);
    assert.equal(a, all0, 'the slow read began before the change');
    assert.equal(b, all0 + 1, 'a stamp asked after the change sees it');
    assert.equal(c, all0 + 1);
  });

  test('a lower sequence number committed later is still applied; a gap older than the wait is given up', async () => {
    await put(1, '["a"]');
    await put(3, '["c"]');
    await changeStamp(reader);
    assert.deepEqual(dropped, [['a'], ['c']]);
    await put(2, '["b"]');
    await changeStamp(reader);
    assert.deepEqual(dropped, [['a'], ['c'], ['b']], 'seq 2 committed after 3 was read');
    await changeStamp(reader);
    assert.equal(dropped.length, 3, 'nothing is applied twice');
    await put(5, '["e"]');
    now += CHANGE_GAP_WAIT_MS + 1;
    await changeStamp(reader);
    await put(4, '["d"]');
    await changeStamp(reader);
    assert.deepEqual(dropped.slice(3), [['e']], 'the reader had passed the old gap');
  });

  test('a process that has not looked for longer than the log keeps changes drops everything', async () => {
    const all0 = await changeStamp(reader);
    now += CHANGE_LOG_KEEP_MS;
    assert.equal(await changeStamp(reader), all0 + 1);
  });

  test('old rows are pruned, the last one kept', async () => {
    for (let i = 0; i < 5; i++) await recordChange(writer, ['x']);
    await changeStamp(reader);
    now += CHANGE_LOG_KEEP_MS / 2 - 1;
    await changeStamp(reader);
    now += CHANGE_LOG_KEEP_MS / 2 + 2;
    await recordChange(writer, ['y']);
    now += 1;
    await changeStamp(reader);
    now += 60_000;
    await changeStamp(reader);
    const left = await reader.prepare('SELECT tags FROM evt_change_log').pluck().all();
    assert.deepEqual(left, ['["y"]']);
  });

  test.skipIf(testDbWanted())("process mode reads SQLite's data_version: another connection's commit moves it", async () => {
    await openChangeFeed(reader, 'process');
    const v = await changeStamp(reader);
    await writer.prepare("INSERT INTO options (name, value) VALUES ('x', 'y')").run();
    assert.notEqual(await changeStamp(reader), v);
  });
});
