import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Answer, Departure, Diff, Namespace, Req } from './types.ts';
import { send, type Side } from './side.ts';
import { Normaliser } from './normalise.ts';
import { compare, departureFor, diffKey } from './compare.ts';
import { fixtures } from '../scenarios/fixtures.ts';
import { events } from '../scenarios/events.ts';
import { tickets } from '../scenarios/tickets.ts';
import { core } from '../scenarios/core.ts';

export const COMPAT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const GOLDEN_DIR = path.join(COMPAT_DIR, 'golden');

/** Scenario modules in the order they run (later ones may use earlier fixtures). Each has its own golden file. */
export const MODULES: { name: string; ns: Namespace; reqs: () => Req[] }[] = [
  { name: 'fixtures', ns: 'events', reqs: fixtures },
  { name: 'events', ns: 'events', reqs: events },
  { name: 'tickets', ns: 'tickets', reqs: tickets },
  { name: 'core', ns: 'core', reqs: core },
];

/** Namespace a request is reported under: by its path. */
export function namespaceOf(r: Req, fallback: Namespace): Namespace {
  if (r.path.startsWith('{E}')) return 'events';
  if (r.path.startsWith('{T}')) return 'tickets';
  if (r.path.startsWith('batch') || r.path.startsWith('oembed') || r.path === '') return 'core';
  return fallback;
}

function get(o: unknown, p: string): unknown {
  return p.split('.').reduce<unknown>((x, k) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined), o);
}

/** Sends every scenario request to one side, in order, and returns the normalised answers by module and name. */
export async function runSide(side: Side, onProgress?: (n: number) => void): Promise<Record<string, Record<string, Answer>>> {
  const norm = new Normaliser(side);
  const out: Record<string, Record<string, Answer>> = {};
  let n = 0;
  const seen = new Set<string>();
  for (const m of MODULES) {
    out[m.name] = {};
    for (const r of m.reqs()) {
      if (seen.has(r.name)) throw new Error(`duplicate request name ${r.name}`);
      seen.add(r.name);
      let raw;
      try {
        raw = await send(side, r);
      } catch (e) {
        throw new Error(`${side.name}: ${r.name}: ${(e as Error).message}`);
      }
      if (r.save) {
        const saves = typeof r.save === 'string' ? { [r.save]: 'id' } : r.save;
        for (const [sym, p] of Object.entries(saves)) {
          const id = Number(get(raw.body, p));
          if (!Number.isInteger(id) || id <= 0)
            throw new Error(`${side.name}: ${r.name} gave no ${p} for ${sym} (status ${raw.status}): ${raw.text.slice(0, 300)}`);
          side.ids.set(sym, id);
          if (/^(cat|tag)_/.test(sym)) side.terms.add(sym);
          await side.afterSave?.(sym, r);
        }
      }
      if (!r.setupOnly) out[m.name][r.name] = norm.answer(raw);
      // The original orders several lists by post date (seconds) with ties in no fixed order: on it, things a
      // scenario creates are spaced a second apart so that list orders repeat from one recording to the next.
      if (side.name === 'original' && (m.name === 'fixtures' || r.save)) await new Promise((res) => setTimeout(res, 1050));
      onProgress?.(++n);
    }
  }
  return out;
}

export function allRequests(): { req: Req; module: string; ns: Namespace }[] {
  return MODULES.flatMap((m) =>
    m
      .reqs()
      .filter((r) => !r.setupOnly)
      .map((req) => ({ req, module: m.name, ns: namespaceOf(req, m.ns) })),
  );
}

export function readGoldens(): Record<string, Record<string, Answer>> {
  const out: Record<string, Record<string, Answer>> = {};
  for (const m of MODULES) {
    const f = path.join(GOLDEN_DIR, `${m.name}.json`);
    out[m.name] = fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : {};
  }
  return out;
}

export function writeGoldens(answers: Record<string, Record<string, Answer>>): void {
  fs.mkdirSync(GOLDEN_DIR, { recursive: true });
  for (const m of MODULES) fs.writeFileSync(path.join(GOLDEN_DIR, `${m.name}.json`), `${JSON.stringify(answers[m.name], null, 1)}\n`);
}

export function readDepartures(): Departure[] {
  return JSON.parse(fs.readFileSync(path.join(COMPAT_DIR, 'departures.json'), 'utf8')).departures;
}

export const KNOWN_FILE = path.join(COMPAT_DIR, 'known-differences.json');

export function readKnown(): string[] {
  return fs.existsSync(KNOWN_FILE) ? JSON.parse(fs.readFileSync(KNOWN_FILE, 'utf8')).differences : [];
}

export interface NsFigures {
  compared: number;
  statusCode: number;
  full: number;
  fullAsideDepartures: number;
  departures: number;
  open: number;
}

export interface Comparison {
  figures: Record<Namespace | 'total', NsFigures>;
  open: Diff[];
  excused: { diff: Diff; departure: string }[];
  missingGolden: string[];
}

/** Compares Doorstep's answers with the original's (live or golden), request by request. */
export function compareAll(orig: Record<string, Record<string, Answer>>, ours: Record<string, Record<string, Answer>>): Comparison {
  const departures = readDepartures();
  const zero = (): NsFigures => ({ compared: 0, statusCode: 0, full: 0, fullAsideDepartures: 0, departures: 0, open: 0 });
  const figures: Comparison['figures'] = { events: zero(), tickets: zero(), core: zero(), total: zero() };
  const open: Diff[] = [];
  const excused: Comparison['excused'] = [];
  const missingGolden: string[] = [];
  for (const { req, module, ns } of allRequests()) {
    const a = orig[module]?.[req.name];
    const b = ours[module]?.[req.name];
    if (!a) {
      missingGolden.push(req.name);
      continue;
    }
    if (!b) continue;
    const diffs = compare(req.name, a, b);
    const mine = diffs.filter((d) => {
      const dep = departureFor(d, departures);
      if (dep) excused.push({ diff: d, departure: dep.id });
      return !dep;
    });
    const sc = !mine.some((d) => d.kind === 'status' || d.kind === 'code');
    for (const f of [figures[ns], figures.total]) {
      f.compared++;
      if (sc) f.statusCode++;
      if (!diffs.length) f.full++;
      if (!mine.length) f.fullAsideDepartures++;
      if (mine.length !== diffs.length) f.departures++;
      f.open += mine.length;
    }
    open.push(...mine);
  }
  return { figures, open, excused, missingGolden };
}

export { diffKey };
