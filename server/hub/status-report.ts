import type { Db } from '../db/connection.ts';
import { countPendingPushes, countUpstreamRefusals, readHubState, upstreamRefusals } from '../db/repos/hub.ts';

/**
 * `cli hub status`: how the venue hub stands with the site, from its database (it reads what the running hub wrote
 * at its last round, so it works beside the server, or after it stopped). Ends with what to do at the end of the
 * night: stop the hub only when nothing is waiting.
 */
export async function hubStatusReport(db: Db, now: Date = new Date()): Promise<{ lines: string[]; pending: number; isHub: boolean }> {
  const st = await readHubState(db);
  if (st.upstream === undefined)
    return { lines: ['This database is not a venue hub (start one with EVT_UPSTREAM and EVT_UPSTREAM_KEY).'], pending: 0, isHub: false };
  const [pending, refused, recent] = await Promise.all([countPendingPushes(db), countUpstreamRefusals(db), upstreamRefusals(db, 20)]);
  const ago = (iso: unknown): string => {
    if (typeof iso !== 'string') return 'never';
    const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
    const span = s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
    return `${iso.replace('T', ' ').slice(0, 19)} UTC (${span} ago)`;
  };
  const lines = [`Venue hub of ${String(st.upstream)}${typeof st.event_id === 'number' ? `, event ${st.event_id}` : ' (event not learnt yet)'}`];
  const reachable = st.reachable === true;
  lines.push(
    `Site:              ${reachable ? 'reachable' : `NOT REACHABLE${typeof st.offline_since === 'string' ? ` since ${ago(st.offline_since)}` : ''}`}`,
    `Last contact:      ${ago(st.last_contact)}`,
    `Last pull:         ${ago(st.last_pull)}`,
    `Upstream key:      ${st.key_refused === true ? 'REFUSED by the site: make a new door key there for this event and restart with it (EVT_UPSTREAM_KEY)' : 'accepted'}`,
    `Pending uploads:   ${pending} check-in${pending === 1 ? '' : 's'} not yet on the site`,
    `Conflicts:         ${refused.conflict} (the site had another check-in of the same attendee first)`,
    `Refused by site:   ${refused.rejected} (the ticket was not valid there, e.g. refunded before the scan reached it)`,
  );
  if (typeof st.last_error === 'string' && st.last_error) lines.push(`Last error:        ${st.last_error}`);
  if (recent.length) {
    lines.push('', 'Scans the site refused (newest first):');
    for (const r of recent)
      lines.push(
        `  ${r.scanned_at.replace('T', ' ').slice(0, 19)} UTC  attendee ${r.attendee_id} ${r.full_name ? `(${r.full_name}) ` : ''}at ${r.label ?? r.device_id ?? 'the hub'}: ${r.upstream}${r.reason ? `, ${r.reason}` : ''}`,
      );
  }
  lines.push(
    '',
    pending === 0
      ? 'Every check-in made at this hub is on the site: it is safe to stop the hub.'
      : `Do not stop the hub for good yet: ${pending} check-in${pending === 1 ? '' : 's'} would stay here until it runs again with the site reachable.`,
  );
  return { lines, pending, isHub: true };
}
