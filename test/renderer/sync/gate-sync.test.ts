import 'fake-indexeddb/auto';
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { gateHistory, loadGate, recordGatePass, saveGate } from '../../../renderer/checkin/gate.ts';
import { countAttendees, getAttendee } from '../../../renderer/store/attendees.ts';
import type { AttendeeRow } from '../../../renderer/store/db.ts';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { ApiError, type ApiClient, type ApiResponse } from '../../../renderer/sync/api-client.ts';
import { gatePaths, syncGate } from '../../../renderer/sync/gate-sync.ts';

/**
 * The kiosk learns its check-in list at sync (renderer/sync/gate-sync.ts) from the server's answers: which list
 * the key is bound to (X-EVT-Key-List), the site's time zone (once), the list's status and its passes in the log.
 */

const LIST = {
  id: 7,
  event_id: 10,
  name: 'VIP',
  ticket_ids: [12],
  allow_reentry: true,
  allow_multiple_entries: false,
  window_start: null,
  window_end: null,
  entries_per_day: null,
  direction: 'entry' as const,
};
const STATUS = { checked_in: 1, inside: 1, expected: 3, event: { checked_in: 2, inside: 2, expected: 6 } };

let dbs = 0;

/** An API double answering by path; records the paths asked. */
function api(routes: Record<string, (query: Record<string, string | number>) => ApiResponse>): ApiClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async get(path, query = {}) {
      asked.push(path);
      const route = routes[path];
      if (!route) throw new ApiError({ kind: 'http', status: 404, code: 'rest_no_route', message: 'No route', body: null });
      return route(query);
    },
    async post() {
      throw new Error('not used');
    },
  } as ApiClient & { asked: string[] };
}

const ok = (body: unknown, headers: Record<string, string> = {}): ApiResponse => ({ status: 200, headers: new Headers(headers), body });

function boundServer(log: unknown[][]) {
  return api({
    [gatePaths.lists()]: () => ok({ rest_url: '', total: 1, total_pages: 1, checkin_lists: [LIST] }, { 'X-EVT-Key-List': '7' }),
    '': () => ok({ timezone_string: 'Europe/Tallinn' }),
    [gatePaths.status(7)]: () => ok(STATUS),
    [gatePaths.checkins()]: (q) => ok({ total_pages: log.length, checkins: log[Number(q.page) - 1] ?? [] }),
  });
}

describe('syncGate', () => {
  test('a list-bound key: the list, the zone (asked once), the status and every page of the list’s passes', async () => {
    const db = openKioskDb(`gate-sync-${process.pid}-${++dbs}`);
    const pass = (id: number, attendee: number, result: string, at: string, reason: string | null = null) => ({
      id,
      attendee_id: attendee,
      result,
      reason,
      scanned_at: at,
      nonce: `nonce-${id}-0123456789`,
    });
    const server = boundServer([
      [pass(1, 200, 'accepted', '2026-11-22T18:00:00.000Z'), pass(2, 201, 'checked_out', '2026-11-22T18:01:00.000Z', 'not_checked_in')],
      [pass(3, 200, 'checked_out', '2026-11-22T18:05:00.000Z')],
    ]);
    const gate = await syncGate(server, db, 10);
    assert.deepEqual(gate?.list, LIST);
    assert.equal(gate?.timezone, 'Europe/Tallinn');
    assert.deepEqual(gate?.status, STATUS);
    assert.deepEqual(await loadGate(db), gate);
    // An exit that let nobody out (reason not_checked_in) is no pass.
    assert.deepEqual(await gateHistory(db, 7, 200), [
      { kind: 'entry', at: Date.parse('2026-11-22T18:00:00Z') },
      { kind: 'exit', at: Date.parse('2026-11-22T18:05:00Z') },
    ]);
    assert.deepEqual(await gateHistory(db, 7, 201), []);
    // A pass of this kiosk's whose scan was uploaded but is not in the log was refused: it leaves the history.
    await recordGatePass(db, { nonce: 'mine-refused-0123456789', listId: 7, attendeeId: 202, kind: 'entry', at: Date.parse('2026-11-22T18:06:00Z') });
    await syncGate(server, db, 10);
    assert.deepEqual(await gateHistory(db, 7, 202), []);
    assert.equal(server.asked.filter((p) => p === '').length, 1, 'the site’s zone is asked once');
    db.close();
  });

  test('a key bound to an event: no list, asked once per pairing; a server without lists: no list', async () => {
    const db = openKioskDb(`gate-sync-${process.pid}-${++dbs}`);
    const server = api({ [gatePaths.lists()]: () => ok({ rest_url: '', total: 1, total_pages: 1, checkin_lists: [LIST] }) });
    assert.equal(await syncGate(server, db, 10), null, 'one list read by an event key is not the kiosk’s list');
    assert.equal(await syncGate(server, db, 10), null);
    assert.deepEqual(server.asked, [gatePaths.lists()]);
    assert.equal(await loadGate(db), null);
    const older = api({});
    const db2 = openKioskDb(`gate-sync-${process.pid}-${++dbs}`);
    assert.equal(await syncGate(older, db2, 10), null);
    db.close();
    db2.close();
  });

  test('the list no longer admits a ticket: its cached attendees leave the cache (trashed); the others stay', async () => {
    const db = openKioskDb(`gate-sync-${process.pid}-${++dbs}`);
    const row = (id: number, ticketId: number): AttendeeRow => ({
      id,
      eventId: 10,
      ticketId,
      status: 'publish',
      orderStatus: 'completed',
      codeHash: null,
      checkedIn: 0,
      checkinDate: null,
      checkinAt: null,
      checkinDevice: null,
      name: `Guest ${id}`,
      email: '',
      ticketTitle: null,
      words: [],
    });
    // Synced while the list admitted tickets 11 and 12: attendees of both cached.
    await saveGate(db, { list: { ...LIST, ticket_ids: [11, 12] }, timezone: 'Europe/Tallinn', status: null, statusAt: null });
    await db.attendees.bulkPut([row(300, 11), row(301, 12)]);
    await syncGate(boundServer([[]]), db, 10);
    assert.equal((await getAttendee(db, 300))?.status, 'trash', 'ticket 11 is no longer admitted');
    assert.equal((await getAttendee(db, 301))?.status, 'publish');
    assert.equal((await countAttendees(db, 'vip-1', Date.now())).total, 1);
    db.close();
  });

  test('the list’s passes are read from the log’s cursor: each sync asks only for what arrived since, and keeps the rest', async () => {
    const db = openKioskDb(`gate-sync-${process.pid}-${++dbs}`);
    const pass = (id: number, attendee: number, at: string) => ({
      id,
      attendee_id: attendee,
      result: 'accepted',
      reason: null,
      scanned_at: at,
      nonce: `nonce-${id}-0123456789`,
    });
    const log = [pass(1, 200, '2026-11-22T18:00:00.000Z'), pass(2, 201, '2026-11-22T18:01:00.000Z')];
    const asked: unknown[] = [];
    const server = api({
      [gatePaths.lists()]: () => ok({ rest_url: '', total: 1, total_pages: 1, checkin_lists: [LIST] }, { 'X-EVT-Key-List': '7' }),
      '': () => ok({ timezone_string: 'Europe/Tallinn' }),
      [gatePaths.status(7)]: () => ok(STATUS),
      [gatePaths.checkins()]: (q) => {
        asked.push(q.after_id);
        const rows = log.filter((r) => r.id > Number(q.after_id ?? 0));
        return ok({ total_pages: 1, checkins: rows }, { 'X-EVT-Cursor': String(Math.max(0, ...log.map((r) => r.id))) });
      },
    });
    await syncGate(server, db, 10);
    // A pass uploaded late by another kiosk: an old scan time, a new place in the log.
    log.push(pass(3, 202, '2026-11-22T17:00:00.000Z'));
    await syncGate(server, db, 10);
    assert.deepEqual(asked, [0, 2], 'the second sync asks from the cursor the first one got');
    assert.equal((await loadGate(db))?.passCursor, 3);
    for (const id of [200, 201, 202]) assert.equal((await gateHistory(db, 7, id)).length, 1, `attendee ${id}'s pass is kept`);
    db.close();
  });

  test('offline: the stored list stays, and the error reaches the engine', async () => {
    const db = openKioskDb(`gate-sync-${process.pid}-${++dbs}`);
    await syncGate(boundServer([[]]), db, 10);
    const down = api({
      [gatePaths.lists()]: () => {
        throw new ApiError({ kind: 'network', message: 'Failed to fetch' });
      },
    });
    await assert.rejects(syncGate(down, db, 10), ApiError);
    assert.equal((await loadGate(db))?.list.name, 'VIP');
    db.close();
  });
});
