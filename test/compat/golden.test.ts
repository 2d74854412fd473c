/**
 * Doorstep against the original's recorded answers (test/compat/golden/, recorded with `npm run compat:record`).
 * Runs every scenario request against a fresh Doorstep, compares with the goldens, excuses declared departures
 * (departures.json) and checks the rest against known-differences.json, which may only shrink: a difference not
 * listed fails, and so does a listed difference that is gone (remove it with `npm run compat -- --goldens --update-known`).
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { startDoorstep } from './lib/doorstep.ts';
import { compareAll, diffKey, readGoldens, readKnown, runSide } from './lib/run.ts';

test('Doorstep answers as the recorded original, except declared departures and listed known differences', async () => {
  const goldens = readGoldens();
  const { server, side } = await startDoorstep();
  let ours;
  try {
    ours = await runSide(side);
  } finally {
    await server.close();
  }
  const cmp = compareAll(goldens, ours);
  assert.deepEqual(cmp.missingGolden, [], 'requests without a recorded answer: record them with `npm run compat:record` against the original');
  const known = readKnown();
  const knownSet = new Set(known);
  const current = new Set(cmp.open.map(diffKey));
  const fresh = cmp.open.filter((d) => !knownSet.has(diffKey(d)));
  const gone = known.filter((k) => !current.has(k));
  const problems: string[] = [];
  if (fresh.length)
    problems.push(
      `${fresh.length} new differences from the original (fix them, or declare a departure in departures.json):\n` +
        fresh
          .slice(0, 40)
          .map((d) => `  ${diffKey(d)}  original=${JSON.stringify(d.original)} doorstep=${JSON.stringify(d.doorstep)}`)
          .join('\n'),
    );
  if (gone.length)
    problems.push(
      `${gone.length} listed differences are gone: remove them with \`npm run compat -- --goldens --update-known\`:\n` +
        gone
          .slice(0, 40)
          .map((k) => `  ${k}`)
          .join('\n'),
    );
  assert.equal(problems.length, 0, problems.join('\n'));
  assert.ok(cmp.figures.total.compared >= 600, `only ${cmp.figures.total.compared} requests compared`);
});
