/**
 * The differential harness's command line.
 *
 *   npm run compat                    live: the original (ORIG_CREDENTIALS, default /tmp/doorstep-original/credentials.env)
 *                                     against a fresh in-process Doorstep; prints the report
 *   npm run compat -- --goldens       the recorded goldens against a fresh Doorstep (no original needed)
 *   npm run compat:record             records the original's normalised answers under test/compat/golden/ (a fresh
 *                                     original is best: RESET=1 shared/original/setup.sh)
 *   --list                            also print every open difference
 *   --update-known                    rewrite known-differences.json with the current open differences; refuses to
 *                                     add new ones unless --allow-new is given too
 *   --json FILE                       write the comparison (figures and open differences) as JSON
 */
import fs from 'node:fs';
import { originalSide } from './lib/side.ts';
import { startDoorstep } from './lib/doorstep.ts';
import { compareAll, diffKey, KNOWN_FILE, readGoldens, readKnown, runSide, writeGoldens } from './lib/run.ts';
import { groupOf, report } from './lib/report.ts';

const args = process.argv.slice(2);
const has = (f: string) => args.includes(f);
const credentials = process.env.ORIG_CREDENTIALS ?? '/tmp/doorstep-original/credentials.env';

async function main() {
  if (has('--record')) {
    const side = originalSide(credentials);
    const t = Date.now();
    const answers = await runSide(side, (n) => n % 100 === 0 && process.stderr.write(`  ${n} requests\n`));
    writeGoldens(answers);
    const n = Object.values(answers).reduce((s, m) => s + Object.keys(m).length, 0);
    console.log(`recorded ${n} answers of the original (${side.base}) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    return;
  }
  const orig = has('--goldens') ? readGoldens() : await runSide(originalSide(credentials));
  const { server, side } = await startDoorstep();
  let ours;
  try {
    ours = await runSide(side);
  } finally {
    await server.close();
  }
  const cmp = compareAll(orig, ours);
  console.log(report(cmp, has('--goldens') ? 'goldens' : 'live original', readKnown()));
  if (has('--list'))
    for (const d of cmp.open)
      console.log(`  [${groupOf(d)}] ${diffKey(d)}  original=${JSON.stringify(d.original)} doorstep=${JSON.stringify(d.doorstep)}`);
  const jsonAt = args.indexOf('--json');
  if (jsonAt >= 0) fs.writeFileSync(args[jsonAt + 1], JSON.stringify(cmp, null, 1));
  if (has('--update-known')) {
    const known = new Set(readKnown());
    const now = [...new Set(cmp.open.map(diffKey))].sort();
    const added = now.filter((k) => !known.has(k));
    if (added.length && !has('--allow-new')) {
      console.error(`${added.length} differences are not in known-differences.json (fix them, declare a departure, or pass --allow-new):`);
      for (const k of added.slice(0, 50)) console.error(`  ${k}`);
      process.exitCode = 1;
      return;
    }
    fs.writeFileSync(
      KNOWN_FILE,
      `${JSON.stringify(
        {
          note: 'Open differences from the original. This list may only shrink: fix a difference, then run `npm run compat -- --goldens --update-known`.',
          differences: now,
        },
        null,
        1,
      )}\n`,
    );
    console.log(`known-differences.json: ${now.length} entries (${known.size - (now.length - added.length)} removed, ${added.length} added)`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
