import { test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../../server/db/connection.ts';
import { explainTicketQueries } from '../../../server/db/repos/tickets.ts';

test('ticket counts, event providers and attendance read through their indexes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-plan-'));
  const db = await openDatabase(path.join(dir, 'evt.sqlite'));
  try {
    const plans = await explainTicketQueries(db);
    const uses = (lines: string[], index: string) =>
      lines.some((l) => l.includes(`USING INDEX ${index} `) || l.includes(`USING COVERING INDEX ${index} `));
    assert.ok(uses(plans.stats, 'attendees_ticket'), plans.stats.join('\n'));
    assert.ok(uses(plans.providers, 'tickets_event'), plans.providers.join('\n'));
    assert.ok(
      plans.attendance.some((l) => /^SEARCH a USING (COVERING )?INDEX \w+ \(event_id=\?/.test(l)),
      plans.attendance.join('\n'),
    );
    for (const lines of Object.values(plans)) assert.ok(!lines.some((l) => /^SCAN (a|t|attendees|tickets)\b/.test(l)), lines.join('\n'));
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
