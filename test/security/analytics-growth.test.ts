import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import { flushHits, MAX_ROWS_PER_DAY, recordHit } from '../../server/routes/analytics/record.ts';
import { insertHits } from '../../server/db/repos/analytics.ts';
import { formatInZone } from '../../shared/dates.ts';
import { createEvent } from '../server/site/fixtures.ts';

/**
 * Issue 21, finding 5 (CONTRACT section 3): analytics are counted per page and day, never stored per request.
 * On main 738fe83 (checked with the server changes stashed) each of the 300 reads below added a row; now the
 * table holds one row per day, page, referrer and visitor, and the views are counted in it.
 * `npx tsx test/bench/issue21-measure.ts` measures 20,000 reads.
 */

let s: TestServer;
let ev: { id: number; url: string };
const rows = async () => ((await s.db.prepare('SELECT COUNT(*) AS n FROM analytics_hits').get()) as { n: number }).n;

beforeAll(async () => {
  s = await startTestServer();
  ev = await createEvent(s, { title: 'Counted' });
});
afterAll(() => s.close());

describe('finding 5: anonymous reads do not grow the analytics table', () => {
  test('300 reads of one event and of the archive add one row each, counting 300 views', async () => {
    await flushHits(s.app.state);
    const before = await rows();
    for (let i = 0; i < 150; i++) {
      assert.equal((await call(`${s.root}evt/events/v1/events/${ev.id}`)).status, 200);
      assert.equal((await call(`${s.root}evt/events/v1/events`)).status, 200);
    }
    await flushHits(s.app.state);
    assert.equal((await rows()) - before, 2);
    const totals = await call(`${s.root}analytics/v1/totals`, { auth: s.admin });
    assert.equal(totals.body.api_reads, 300);
    assert.equal(totals.body.visitors, 1);
    const realtime = await call(`${s.root}analytics/v1/realtime`, { auth: s.admin });
    assert.equal(realtime.body.api_reads, 300);
  });

  test('past its bound a day takes new visitors and referrers in one row per page, and one flush counts them all', async () => {
    const now = new Date();
    const day = formatInZone(now, s.app.state.config.timezone).slice(0, 10);
    const path = '/evt/events/v1/events/424242';
    const filler = await rows();
    const today = async () => ((await s.db.prepare('SELECT COUNT(*) AS n FROM analytics_hits WHERE day = ?').get(day)) as { n: number }).n;
    // The day filled up to its bound (one statement, however many rows).
    const fill = MAX_ROWS_PER_DAY - (await today());
    await insertHits(
      s.db,
      Array.from({ length: fill }, (_, i) => ({
        ts: `${day} 00:00:00`,
        day,
        kind: 'page' as const,
        path: `/filler/${i}/`,
        post_id: 0,
        referrer_host: '',
        visitor: `f${i}`,
      })),
    );
    assert.equal(await today(), MAX_ROWS_PER_DAY);
    assert.equal((await rows()) - filler, fill);
    // Five strangers with their own user agents and referrers read one page: one row for them all, five views.
    for (let i = 0; i < 5; i++)
      await recordHit(
        s.app.state,
        { kind: 'api', path, postId: 424242, ip: `203.0.113.${i}`, userAgent: `agent ${i}`, referrer: `https://ref${i}.example/` },
        now,
      );
    await flushHits(s.app.state);
    assert.equal(await today(), MAX_ROWS_PER_DAY + 1);
    const row = (await s.db.prepare('SELECT visitor, referrer_host, views FROM analytics_hits WHERE day = ? AND path = ?').all(day, path)) as {
      visitor: string;
      referrer_host: string;
      views: number;
    }[];
    assert.deepEqual(row, [{ visitor: '*', referrer_host: '', views: 5 }]);
  });
});
