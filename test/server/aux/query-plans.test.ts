import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../../server/db/connection.ts';

/** The auxiliary tables' hot queries use their indexes (migration 008). */
describe('migration 008 query plans', () => {
  test('private links by file and issues by scan use their indexes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-plan-'));
    const db = await openDatabase(path.join(dir, 'evt.sqlite'));
    try {
      const plan = async (sql: string) =>
        ((await db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all()) as { detail: string }[]).map((r) => r.detail).join(' | ');
      assert.match(await plan('SELECT * FROM private_links WHERE post_id = 1 AND revoked = 0 ORDER BY id'), /USING INDEX private_links_post/);
      assert.match(
        await plan("SELECT * FROM security_issues WHERE scan_id = 1 AND (0 = 0 OR status = 'new') ORDER BY severity DESC, id LIMIT 10"),
        /USING INDEX security_issues_scan/,
      );
      assert.match(await plan('SELECT * FROM seo_meta WHERE post_id = 1'), /USING INTEGER PRIMARY KEY|USING PRIMARY KEY/);
    } finally {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
