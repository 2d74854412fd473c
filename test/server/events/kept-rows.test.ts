import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { writeAsAnotherProcess } from '../../helpers/other-process.ts';
import { openDatabase } from '../../../server/db/connection.ts';
import { isPostgresSpec } from '../../../server/db/engine/types.ts';
import { PRESENT_REVALIDATE_MS } from '../../../server/routes/events/present-cache.ts';

/**
 * Event rows and presentations kept between reads (server/routes/events/present-cache.ts, issue 14): with the response
 * cache off, every read runs the route, and what it shows must follow every write, ours or another process's.
 */
let s: TestServer;
let ev: string;
beforeAll(async () => {
  s = await startTestServer({ EVT_CACHE: 'off' });
  ev = `${s.root}evt/events/v1/events`;
});
afterAll(() => s.close());

const window = '?start_date=2031-01-01&end_date=2031-12-31';

describe('kept event rows', () => {
  test("another process's change of an event's row shows in the next single and archive read", async () => {
    const c = await call(ev, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'Kept', status: 'publish', start_date: '2031-05-01 19:00', end_date: '2031-05-01 22:00' },
    });
    assert.equal(c.status, 201);
    // Read twice: the second read is answered from the kept row and presentation.
    for (let i = 0; i < 2; i++) {
      assert.equal((await call(`${ev}/${c.body.id}`)).body.title, 'Kept');
      assert.equal((await call(`${ev}${window}`)).body.events[0].title, 'Kept');
    }
    await writeAsAnotherProcess(s, async (other) => {
      await other.prepare("UPDATE posts SET title = 'Changed', password = 'secret' WHERE id = ?").run(c.body.id);
      await other.prepare("UPDATE events SET start_local = '2031-05-02 19:00:00' WHERE post_id = ?").run(c.body.id);
    });
    const single = await call(`${ev}/${c.body.id}`);
    assert.equal(single.status, 403);
    assert.equal(single.body.code, 'event-password-protected');
    const unlocked = await call(`${ev}/${c.body.id}?password=secret`);
    assert.equal(unlocked.body.title, 'Changed');
    assert.equal(unlocked.body.start_date, '2031-05-02 19:00:00');
    const archive = await call(`${ev}${window}`);
    assert.equal(archive.body.events[0].title, 'Changed');
    assert.equal(archive.body.events[0].description, '', 'blanked: the archive was not sent the password');
  });

  test('a change recorded nowhere (psql on PostgreSQL) shows at the latest after PRESENT_REVALIDATE_MS', async () => {
    const c = await call(ev, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'Quiet', status: 'publish', start_date: '2031-08-01 19:00', end_date: '2031-08-01 22:00' },
    });
    assert.equal(c.status, 201);
    const august = '?start_date=2031-08-01&end_date=2031-08-02';
    const seen = async () => [(await call(`${ev}/${c.body.id}`)).body.title, (await call(`${ev}${august}`)).body.events[0].title];
    assert.deepEqual(await seen(), ['Quiet', 'Quiet']);
    assert.deepEqual(await seen(), ['Quiet', 'Quiet']);
    // A raw write on another connection that appends nothing to the change log (as psql would).
    const other = await openDatabase(s.dbSpec);
    try {
      await other.prepare("UPDATE posts SET title = 'Changed in psql' WHERE id = ?").run(c.body.id);
    } finally {
      await other.close();
    }
    if (isPostgresSpec(s.dbSpec)) {
      assert.deepEqual(await seen(), ['Quiet', 'Quiet'], 'nothing told the server yet: the kept presentation answers');
      s.app.state.services.clock = () => Date.now() + PRESENT_REVALIDATE_MS + 1000;
    }
    try {
      assert.deepEqual(await seen(), ['Changed in psql', 'Changed in psql']);
    } finally {
      delete s.app.state.services.clock;
    }
  });

  test('a write through the API shows in the next single read', async () => {
    const c = await call(ev, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'Before', status: 'publish', start_date: '2031-06-01 19:00', end_date: '2031-06-01 22:00' },
    });
    assert.equal((await call(`${ev}/${c.body.id}`)).body.title, 'Before');
    await call(`${ev}/${c.body.id}`, { method: 'DELETE', auth: s.admin });
    const trashed = await call(`${ev}/${c.body.id}`);
    assert.equal(trashed.status, 403);
    assert.equal(trashed.body.code, 'event-no-longer-available');
  });
  test("a manager's read leaves nothing of its own in what the next anonymous read is answered from", async () => {
    const c = await call(ev, {
      method: 'POST',
      auth: s.admin,
      body: { title: 'Shared', status: 'publish', start_date: '2031-07-01 19:00', end_date: '2031-07-01 22:00' },
    });
    const june = '?start_date=2031-07-01&end_date=2031-07-02';
    // The administrator's reads present and keep the event, with the manager's `attendance` and nonces added.
    const adminSingle = await call(`${ev}/${c.body.id}`, { auth: s.admin });
    assert.ok('attendance' in adminSingle.body);
    assert.ok('nonces' in adminSingle.body);
    assert.ok('attendance' in (await call(`${ev}${june}`, { auth: s.admin })).body.events[0]);
    const single = await call(`${ev}/${c.body.id}`);
    assert.equal(single.body.title, 'Shared');
    assert.ok(!('attendance' in single.body) && !('nonces' in single.body));
    const archived = (await call(`${ev}${june}`)).body.events[0];
    assert.equal(archived.title, 'Shared');
    assert.ok(!('attendance' in archived));
  });
});
