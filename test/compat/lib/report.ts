import type { Diff } from './types.ts';
import type { Comparison } from './run.ts';
import { diffKey } from './compare.ts';

/** The area a difference belongs to, so fixers can take them one area at a time. */
export function groupOf(d: Diff): string {
  const r = d.req;
  if (r.startsWith('core.oembed')) return 'oembed';
  if (/^core\.(batch|envelope|fields|jsonp|pretty)/.test(r)) return 'batch/envelope/_fields';
  if (/^core\.(discovery|body|index)/.test(r)) return 'discovery/index/bodies';
  if (r.startsWith('core.')) return 'core (methods, OPTIONS/HEAD, URL forms)';
  if (/^(tickets|attendees|qr|cart|fixture\.(ticket|attendee))/.test(r))
    return /\.list\./.test(r) ? 'tickets/attendees archives' : 'tickets/attendees';
  if (/\.list(\.|$)/.test(r)) return 'events archives/filters';
  if (/^(events|venues|organizers|categories|tags)\.(ns_index|doc)/.test(r)) return 'namespace index/doc';
  if (/write/.test(r) || r.startsWith('fixture.')) return 'events writes';
  return 'events presentation';
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');

export function report(cmp: Comparison, against: string, known: string[]): string {
  const lines: string[] = [];
  lines.push(`Compatibility with the original (${against}), Doorstep fresh`);
  lines.push('');
  lines.push('namespace   compared  status+code       full shape        full aside departures  with departures  open diffs');
  for (const ns of ['events', 'tickets', 'core', 'total'] as const) {
    const f = cmp.figures[ns];
    lines.push(
      `${ns.padEnd(11)} ${String(f.compared).padStart(8)}  ${`${f.statusCode} (${pct(f.statusCode, f.compared)})`.padEnd(16)}  ${`${f.full} (${pct(f.full, f.compared)})`.padEnd(16)}  ${`${f.fullAsideDepartures} (${pct(f.fullAsideDepartures, f.compared)})`.padEnd(22)} ${String(f.departures).padStart(15)}  ${String(f.open).padStart(10)}`,
    );
  }
  if (cmp.missingGolden.length)
    lines.push(
      `\n${cmp.missingGolden.length} requests have no golden answer yet (run npm run compat:record): ${cmp.missingGolden.slice(0, 5).join(', ')}...`,
    );
  const byDep = new Map<string, number>();
  for (const e of cmp.excused) byDep.set(e.departure, (byDep.get(e.departure) ?? 0) + 1);
  lines.push('');
  lines.push(`Departures excused: ${[...byDep].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
  const groups = new Map<string, { reqs: Set<string>; diffs: Diff[] }>();
  for (const d of cmp.open) {
    const g = groupOf(d);
    if (!groups.has(g)) groups.set(g, { reqs: new Set(), diffs: [] });
    groups.get(g)!.reqs.add(d.req);
    groups.get(g)!.diffs.push(d);
  }
  lines.push('');
  lines.push('Open differences by area (requests affected, differences):');
  for (const [g, v] of [...groups].sort((a, b) => b[1].reqs.size - a[1].reqs.size)) {
    lines.push(`  ${g.padEnd(40)} ${String(v.reqs.size).padStart(4)} requests ${String(v.diffs.length).padStart(5)} diffs`);
  }
  const knownSet = new Set(known);
  const current = new Set(cmp.open.map(diffKey));
  const fresh = [...current].filter((k) => !knownSet.has(k)).length;
  const gone = known.filter((k) => !current.has(k)).length;
  lines.push('');
  lines.push(`known-differences.json: ${known.length} listed, ${fresh} new (not listed), ${gone} listed but gone`);
  return lines.join('\n');
}
