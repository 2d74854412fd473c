import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import path from 'node:path';
import { CliError } from '../../server/cli.ts';
import { call } from '../helpers/server.ts';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { insertCheckinList } from '../../server/db/repos/checkin-lists.ts';
import { cliSandbox } from '../helpers/cli.ts';
import { insertAttendees, insertTicket, seedTicketsFixture } from '../helpers/tickets-fixture.ts';

const cli = cliSandbox('doorstep-cli-lists-', (dir) => ({
  EVT_DB: path.join(dir, 'evt.sqlite'),
  EVT_LOG: 'off',
  EVT_PUBLIC_URL: 'http://door.example:8080',
}));

describe('operator CLI: api-key create --list', () => {
  test("a key bound to a check-in list: the list's event, that list only, the attendees it admits", async () => {
    await cli.run('user', 'add', 'admin', '--role', 'administrator');
    let db = await openDatabase(cli.env.EVT_DB);
    const f = await seedTicketsFixture(db, { attendees: 2 });
    const vip = await insertTicket(db, f.eventId, { title: 'VIP' });
    const vipIds = (await insertAttendees(db, vip, 2)).attendeeIds;
    const base = {
      allow_reentry: 1,
      allow_multiple_entries: 0,
      window_start: null,
      window_end: null,
      entries_per_day: null,
      direction: 'entry' as const,
    };
    const listId = await insertCheckinList(db, { ...base, event_id: f.eventId, name: 'VIP gate', ticket_ids: JSON.stringify([vip]) });
    const otherId = await insertCheckinList(db, { ...base, event_id: f.eventId, name: 'Main gate', ticket_ids: '[]' });
    await db.close();

    await assert.rejects(cli.run('api-key', 'create', '--label', 'X', '--list', '999999'), /not a check-in list/);
    await assert.rejects(cli.run('api-key', 'create', '--label', 'X', '--list', 'two'), /--list must be a whole number/);
    await assert.rejects(cli.run('api-key', 'create', '--label', 'X', '--list', String(listId), '--event', String(f.eventId)), CliError);
    const out = await cli.run('api-key', 'create', '--label', 'VIP door', '--list', String(listId));
    assert.match(out[0], new RegExp(`for check-in list ${listId} of event ${f.eventId}`));
    const key = out[out.length - 1]!;
    assert.match(key, /^dsk_\d+_[A-Za-z0-9]{32}$/);
    const listed = await cli.run('api-key', 'list');
    assert.match(listed[listed.length - 1]!, new RegExp(`VIP door\\s+${f.eventId} list ${listId}\\s`));

    db = await openDatabase(cli.env.EVT_DB);
    const app = await createApp({ config: loadConfig({ ...cli.env, PORT: '0' }), db });
    const srv = app.express.listen(0, '127.0.0.1');
    try {
      await new Promise((r) => srv.once('listening', r));
      const root = `http://127.0.0.1:${(srv.address() as { port: number }).port}/wp-json/evt/tickets/v1`;
      const auth = `Bearer ${key}`;
      const lists = await call(`${root}/checkin-lists`, { auth });
      assert.deepEqual(
        lists.body.checkin_lists.map((l: { id: number }) => l.id),
        [listId],
      );
      assert.equal((await call(`${root}/checkin-lists/${otherId}`, { auth })).status, 404);
      const attendees = await call(`${root}/attendees?per_page=100`, { auth });
      assert.deepEqual(attendees.body.attendees.map((a: { id: number }) => a.id).sort(), [...vipIds].sort());
      const refused = await call(`${root}/attendees/${f.attendeeIds[0]}`, { method: 'PATCH', auth, body: { check_in: true } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'checkin-list-ticket-not-admitted');
      assert.equal((await call(`${root}/attendees/${vipIds[0]}`, { method: 'PATCH', auth, body: { check_in: true } })).status, 201);
    } finally {
      await new Promise((r) => srv.close(r));
      await app.close();
    }
  });
});
