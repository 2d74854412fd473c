import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';

let s: TestServer;
beforeAll(async () => {
  // SQLite's WAL checkpointer: on SQLite whatever EVT_TEST_DB says (PostgreSQL has none; it needs none).
  const engine = process.env.EVT_TEST_DB;
  process.env.EVT_TEST_DB = 'sqlite';
  try {
    s = await startTestServer();
  } finally {
    if (engine === undefined) delete process.env.EVT_TEST_DB;
    else process.env.EVT_TEST_DB = engine;
  }
});
afterAll(() => s.close());

/** What a power cut would leave: the database file alone, without its WAL. */
function fileAlone(): Database.Database {
  const copy = path.join(s.dir, `alone-${Date.now()}.sqlite`);
  fs.copyFileSync(path.join(s.dir, 'evt.sqlite'), copy);
  return new Database(copy);
}

test('an accepted check-in reaches the database file itself within a moment, with no request waiting for it', async () => {
  const f = await seedTicketsFixture(s.db, { attendees: 3 });
  const door = await s.apiKey('Door');
  const id = f.attendeeIds[0];
  const r = await fetch(`${s.root}evt/tickets/v1/attendees/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${door.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ check_in: true, nonce: 'checkpoint-test-nonce-1' }),
  });
  assert.equal(r.status, 201);
  const cp = s.app.state.services.checkpointer!;
  const deadline = Date.now() + 10_000;
  let found = false;
  while (!found && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 100));
    const db = fileAlone();
    try {
      found =
        (db.prepare("SELECT COUNT(*) AS n FROM checkins WHERE nonce = 'checkpoint-test-nonce-1' AND result = 'accepted'").get() as { n: number })
          .n === 1;
    } catch {
      // A copy taken in the middle of a checkpoint can be torn; the next one will not be.
    } finally {
      db.close();
    }
  }
  assert.ok(found, 'the check-in never reached the database file');
  // The thread reports what it copied by message, which this thread hears on a later turn than the file shows it.
  while (cp.copied() === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
  assert.ok(cp.copied() > 0, 'the checkpoint thread copied the pages');
});
