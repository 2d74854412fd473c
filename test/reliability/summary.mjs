// The reliability suite's final summary, printed by test/run-tests.mjs from the figures each test appended
// (test/reliability/profile.ts `report`). Plain JS: the runner imports it without tsx.

const ROWS = [
  [
    'crash-server',
    'server SIGKILLs survived',
    (f) =>
      `${f.kills} (${f.kills_mid_batch} mid-batch), ${f.scans} scans from ${f.kiosks} kiosks, lost ${f.lost_checkins}, half-applied ${f.half_applied}, integrity ${f.integrity}`,
  ],
  [
    'hub-kills',
    'venue hub and site SIGKILLs',
    (f) =>
      `hub ${f.hub_kills}x mid-push, site ${f.site_kills}x mid-batch, ${f.accepted_at_hub} check-ins accepted at the hub, lost ${f.lost}, doubled ${f.doubled}, phantom ${f.phantom}`,
  ],
  ['crash-kiosk', 'kiosk browser SIGKILLs', (f) => `${f.kills_during_sync} during a sync, ${f.queued_scans} queued scans, lost ${f.lost_checkins}`],
  [
    'concurrency',
    'concurrency',
    (f) =>
      `${f.kiosks} kiosks, ${f.scans} scans, ${f.accepted} accepted, conflicts ${f.conflicts_server} on the server / ${f.conflicts_kiosks} on kiosks, lost ${f.lost_checkins}`,
  ],
  [
    'fuzz',
    'requests fuzzed',
    (f) =>
      `${f.requests_fuzzed} over ${f.operations} operations, 5xx ${f['5xx']}, connection resets retried ${f.connection_resets_retried}, seed ${f.seed}, integrity ${f.integrity}`,
  ],
  [
    'access',
    'access table',
    (f) => `${f.route_methods} route-methods x ${f.callers} callers = ${f.answers} answers, violations ${f.violations}, leaks ${f.leaks}`,
  ],
  [
    'multiprocess',
    'several processes (PG)',
    (f) =>
      `${f.processes} processes, ${f.kills} kills (${f.kills_mid_batch} mid-batch), ${f.checkins_sent} check-ins sent, ${f.accepted} accepted, lost ${f.lost}, doubled ${f.doubled}; ${f.checkouts} checkouts for ${f.places} places: sold ${f.checkouts_sold}, refused ${f.checkouts_refused}, 5xx ${f.checkouts_5xx}`,
  ],
  ['electron', 'electron review', (f) => `HIGH ${f.high}, MEDIUM ${f.medium}, LOW ${f.low}, audit exit ${f.audit_exit}`],
  [
    'soak',
    'soak',
    (f) =>
      `${f.connections} connections x ${f.seconds} s: ${f.requests} requests (${f.rps}/s), p99 ${f.p99_ms} ms, errors ${f.errors}, non-2xx ${f.non2xx}, 5xx ${f['5xx']}; RSS start ${f.rss_start_mib} / peak ${f.rss_peak_mib} / end ${f.rss_end_mib} MiB (last-half slope ${f.rss_last_half_slope_mib_per_min} MiB/min), of which anonymous ${f.anon_start_mib} / ${f.anon_peak_mib} / ${f.anon_end_mib} MiB (slope ${f.anon_last_half_slope_mib_per_min} MiB/min) and mapped files ${f.file_end_mib} MiB at the end (database ${f.db_end_mib} MiB); live JS heap after GC ${f.heap_live_start_mib} -> ${f.heap_live_end_mib} MiB (slope ${f.heap_live_last_half_slope_mib_per_min} MiB/min)`,
  ],
];

export function summary(jsonl) {
  const byTest = new Map();
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    try {
      const f = JSON.parse(line);
      byTest.set(f.test, f);
    } catch {
      // a torn line from a killed run: skip it
    }
  }
  if (!byTest.size) return '';
  const profile = [...byTest.values()][0].profile;
  const lost =
    ['crash-server', 'crash-kiosk', 'concurrency'].reduce((s, t) => s + Number(byTest.get(t)?.lost_checkins ?? 0), 0) +
    Number(byTest.get('multiprocess')?.lost ?? 0);
  const out = [`Reliability summary (${profile} profile)`];
  for (const [test, label, fmt] of ROWS)
    out.push(`  ${label.padEnd(26)} ${byTest.has(test) ? fmt(byTest.get(test)) : 'no figures (not run, or failed before reporting)'}`);
  out.push(`  ${'lost check-ins (total)'.padEnd(26)} ${lost}`);
  return `${out.join('\n')}\n`;
}
