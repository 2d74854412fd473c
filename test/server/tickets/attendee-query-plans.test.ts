import { test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../../server/db/connection.ts';
import { explainAttendeeQuery, type AttendeeQuery } from '../../../server/db/repos/attendee-query.ts';

const kiosk: AttendeeQuery = {
  eventIds: [1],
  statuses: ['publish', 'future', 'draft', 'pending', 'private'],
  eventStatuses: null,
  orderStatuses: null,
  publicOnly: false,
  orderby: 'id',
  order: 'ASC',
  limit: 100,
  offset: 500,
};

test("the kiosk's attendee pages, deltas and the check-in log read through their indexes", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-plan-'));
  const db = await openDatabase(path.join(dir, 'evt.sqlite'));
  try {
    const full = await explainAttendeeQuery(db, kiosk);
    // Full download: one covering index gives the event's attendees in ID order with their status, no sort.
    for (const lines of [full.count, full.page]) assert.deepEqual(lines, ['SEARCH a USING COVERING INDEX attendees_event_status (event_id=?)']);
    const delta = await explainAttendeeQuery(db, { ...kiosk, statuses: null, changedSince: 10, offset: 0 });
    // Delta: only the changed entries of the event are read (then sorted by ID, a handful).
    for (const lines of [delta.count, delta.page])
      assert.equal(lines[0], 'SEARCH a USING COVERING INDEX attendees_change (event_id=? AND change_seq>?)');
    const plan = async (sql: string, ...p: unknown[]) =>
      ((await db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...p)) as { detail: string }[]).map((r) => r.detail);
    assert.match((await plan('SELECT * FROM checkins WHERE nonce = ?', 'x')).join(), /USING INDEX checkins_nonce/);
    assert.match(
      (await plan('SELECT * FROM checkins WHERE event_id IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT 10', '[1]')).join(),
      /USING INDEX checkins_event/,
    );
    assert.match((await plan('SELECT * FROM checkins WHERE device_id = ? ORDER BY id LIMIT 10', 'd')).join(), /USING INDEX checkins_device/);
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
