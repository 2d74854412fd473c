import { test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../../server/db/connection.ts';
import { explainListQueries } from '../../../server/db/repos/checkin-lists.ts';

test("an attendee's passes through a list and an event's lists read through their indexes", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-plan-'));
  const db = await openDatabase(path.join(dir, 'evt.sqlite'));
  try {
    const plans = await explainListQueries(db);
    assert.ok(
      plans.passes.some((l) => /^SEARCH checkins USING INDEX checkins_list \(list_id=\? AND attendee_id=\?\)/.test(l)),
      plans.passes.join('\n'),
    );
    assert.ok(
      plans.lists.some((l) => /^SEARCH checkin_lists USING (COVERING )?INDEX checkin_lists_event \(event_id=\?\)/.test(l)),
      plans.lists.join('\n'),
    );
    for (const lines of Object.values(plans)) assert.ok(!lines.some((l) => /^SCAN /.test(l)), lines.join('\n'));
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
