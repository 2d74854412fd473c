import type { RateLimiter } from '../../../server/security/window-limiter.ts';
import { afterEach, beforeEach, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../../server/db/connection.ts';
import { freshTestDatabase, testDbWanted } from '../../helpers/pg-cluster.ts';
import { DbWindowLimiter } from '../../../server/security/db-window-limiter.ts';
import { WindowLimiter } from '../../../server/security/window-limiter.ts';
import { rateEventCount } from '../../../server/db/repos/shared-state.ts';

let dir: string;
let pg: { url: string; drop: () => void } | null;
let a: Db;
let b: Db;
let now: number;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-limit-'));
  // Two connections to one database (with EVT_TEST_DB=postgres, a fresh PostgreSQL one).
  pg = testDbWanted() ? await freshTestDatabase() : null;
  const file = pg ? pg.url : path.join(dir, 'evt.sqlite');
  a = await openDatabase(file);
  b = await openDatabase(file);
  now = 1_000_000;
});
afterEach(async () => {
  await a.close();
  await b.close();
  pg?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const opts = (o: { maxKeys?: number } = {}) => ({ max: 3, windowMs: 10_000, now: () => now, ...o });

describe('database-backed window limiter', () => {
  test('take: checks and counts as retryAfter then record do (one statement on PostgreSQL); a refused take counts nothing', async () => {
    for (const max of [1, 3]) {
      const mem = new WindowLimiter({ ...opts(), max });
      const onA = new DbWindowLimiter(a, `take-${max}`, { ...opts(), max });
      const onB = new DbWindowLimiter(b, `take-${max}`, { ...opts(), max });
      const steps: [number, number][] = [];
      for (let i = 0; i < 12; i++) {
        const m = mem.retryAfter(['k']);
        if (m === 0) mem.record(['k']);
        steps.push([m, await (i % 2 ? onA : onB).take(['k'])]);
        now += 1500;
      }
      assert.deepEqual(
        steps.map(([m]) => m),
        steps.map(([, d]) => d),
        `max ${max}`,
      );
      assert.ok(
        steps.some(([m]) => m > 0),
        JSON.stringify(steps),
      );
      assert.ok((await rateEventCount(a, `take-${max}`)) <= max, 'at most max events kept');
    }
  });

  test('answers as the in-memory one, counted across connections', async () => {
    const mem = new WindowLimiter(opts());
    const onA = new DbWindowLimiter(a, 'test', opts());
    const onB = new DbWindowLimiter(b, 'test', opts());
    const steps: [number, number][] = [];
    for (let i = 0; i < 5; i++) {
      steps.push([mem.retryAfter(['k']), await onB.retryAfter(['k'])]);
      mem.record(['k']);
      await (i % 2 ? onA : onB).record(['k']);
      now += 1500;
    }
    now += 7000;
    steps.push([mem.retryAfter(['k']), await onA.retryAfter(['k'])]);
    now += 1600;
    steps.push([mem.retryAfter(['k']), await onA.retryAfter(['k'])]);
    assert.deepEqual(
      steps.map(([m]) => m),
      steps.map(([, d]) => d),
    );
    assert.ok(steps.some(([m]) => m > 0) && steps.at(-1)![0] === 0, JSON.stringify(steps));
    await onA.clear('k');
    assert.equal(await onB.retryAfter(['k']), 0, 'cleared for every process');
    assert.equal(await new DbWindowLimiter(a, 'other', opts()).retryAfter(['k']), 0, 'limiters are apart by name');
  });

  test('the checkout sequence (check, count only what was let through, 11th refused): same answers; clear() forgets on both', async () => {
    // checkout-bounds.test.ts: a limit of 10 per address; a refused attempt is not counted; the count of earlier
    // checkouts is forgotten through clear(), since dropping the limiter object forgets nothing in the database.
    const o = { max: 10, windowMs: 600_000, now: () => now };
    const mem = new WindowLimiter(o);
    const onA = new DbWindowLimiter(a, 'checkout', o);
    const onB = new DbWindowLimiter(b, 'checkout', o);
    const run = async (l: RateLimiter, m: RateLimiter) => {
      const answers: number[] = [];
      for (let i = 0; i < 13; i++) {
        const wait = await m.retryAfter(['127.0.0.1']);
        answers.push(wait);
        if (wait === 0) await l.record(['127.0.0.1']);
        now += 1000;
      }
      return answers;
    };
    const t0 = now;
    const memAnswers = await run(mem, mem);
    now = t0;
    const dbAnswers = await run(onA, onB);
    assert.deepEqual(dbAnswers, memAnswers);
    assert.deepEqual(
      memAnswers.map((w) => w > 0),
      [...Array(10).fill(false), true, true, true],
    );
    assert.ok((await new DbWindowLimiter(b, 'checkout', o).retryAfter(['127.0.0.1'])) > 0, 'a new limiter object on the database still counts');
    mem.clear('127.0.0.1');
    await onB.clear('127.0.0.1');
    assert.equal(mem.retryAfter(['127.0.0.1']), 0);
    assert.equal(await onA.retryAfter(['127.0.0.1']), 0);
  });

  test('bounded: a key keeps at most max events, long keys are hashed, old events are swept, a flood keeps maxKeys * max', async () => {
    const l = new DbWindowLimiter(a, 'test', opts({ maxKeys: 4 }));
    for (let i = 0; i < 10; i++) await l.record(['one']);
    assert.equal(await rateEventCount(a, 'test'), 3);
    await l.record(['x'.repeat(10_000)]);
    assert.ok(((await a.prepare('SELECT MAX(LENGTH(key)) FROM evt_rate_events').pluck().get()) as number) < 100);
    now += 60_000;
    for (let i = 0; i < 100; i++) await l.record([`flood ${i}`]);
    assert.ok((await rateEventCount(a, 'test')) <= 4 * 3 + 100, 'swept');
    now += 60_000;
    await l.record(['last']);
    assert.ok((await rateEventCount(a, 'test')) <= 4 * 3, `at most maxKeys * max, held ${await rateEventCount(a, 'test')}`);
  });
});
