import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';

export interface SoakPlan {
  base: string;
  eventId: number;
  attendeeIds: number[];
  doorKey: string;
  connections: number;
  seconds: number;
}

export interface SoakCounts {
  checkinsSent: number;
  /** Check-ins (batch items or single PATCHes) answered with anything but 201. */
  checkinFailures: number;
  failureSamples: string[];
}

/**
 * Mixed traffic per connection, in turn: the events archive, a single event, a page of attendees with the
 * door key, a single check-in PATCH, the archive again, a batch of 25 check-ins, with fresh nonces; every
 * check-in is meant to succeed, so any 4xx is a finding.
 */
export async function soak(plan: SoakPlan): Promise<{ result: autocannon.Result; counts: SoakCounts }> {
  const pages = Math.max(1, Math.floor(plan.attendeeIds.length / 50));
  // A fresh headers object per request: autocannon writes content-length into the one it is given, and a
  // GET sent with a previous POST's length would hang waiting for a body.
  const auth = { authorization: `Bearer ${plan.doorKey}`, 'content-type': 'application/json' };
  const counts: SoakCounts = { checkinsSent: 0, checkinFailures: 0, failureSamples: [] };
  // One counter over all attendees: item c checks attendee c mod N in on even passes, out on odd ones. At
  // most connections x 25 items are in flight, fewer than N, so an attendee's previous scan is always answered
  // before its next one is sent, and every scan is meant to be accepted.
  let counter = 0;
  const n = plan.attendeeIds.length;
  if (n <= plan.connections * 25) throw new Error('too few attendees for the connections');
  const next = () => {
    const c = counter++;
    return { id: plan.attendeeIds[c % n]!, checkIn: Math.floor(c / n) % 2 === 0, nonce: `soak-${c}-${randomBytes(6).toString('hex')}` };
  };
  const fail = (what: string) => {
    counts.checkinFailures++;
    if (counts.failureSamples.length < 5) counts.failureSamples.push(what.slice(0, 300));
  };
  const scanBody = (s: { checkIn: boolean; nonce: string }) => ({
    check_in: s.checkIn,
    nonce: s.nonce,
    device_id: 'soak',
    check_in_date: new Date().toISOString(),
  });
  // autocannon does not always hand a response to the onResponse of the request that caused it, so one
  // checker looks at every answer: a batch answer must hold 201 items only (other statuses show in non2xx).
  const onResponse = (_status: number, body: string) => {
    if (!body.startsWith('{"responses"')) return;
    const parsed = JSON.parse(body) as { responses: { status: number; body: unknown }[] };
    for (const r of parsed.responses) if (r.status !== 201) fail(`batch item ${r.status} ${JSON.stringify(r.body)}`);
  };
  const archive: autocannon.Request = {
    setupRequest: (req) => ({ ...req, method: 'GET', path: '/wp-json/evt/events/v1/events', headers: {}, body: undefined }),
    onResponse,
  };
  const requests: autocannon.Request[] = [
    archive,
    {
      setupRequest: (req) => ({ ...req, method: 'GET', path: `/wp-json/evt/events/v1/events/${plan.eventId}`, headers: {}, body: undefined }),
      onResponse,
    },
    {
      setupRequest: (req) => ({
        ...req,
        method: 'GET',
        headers: { ...auth },
        body: undefined,
        path: `/wp-json/evt/tickets/v1/attendees?post_id=${plan.eventId}&per_page=50&page=${1 + Math.floor(Math.random() * pages)}`,
      }),
      onResponse,
    },
    {
      setupRequest: (req) => {
        const s = next();
        counts.checkinsSent++;
        return {
          ...req,
          method: 'PATCH',
          path: `/wp-json/evt/tickets/v1/attendees/${s.id}`,
          headers: { ...auth },
          body: JSON.stringify(scanBody(s)),
        };
      },
      onResponse,
    },
    archive,
    {
      setupRequest: (req) => {
        const items = Array.from({ length: 25 }, () => next());
        counts.checkinsSent += items.length;
        const requests = items.map((s) => ({ method: 'PATCH', path: `/evt/tickets/v1/attendees/${s.id}`, body: scanBody(s) }));
        return { ...req, method: 'POST', path: '/wp-json/batch/v1', headers: { ...auth }, body: JSON.stringify({ validation: 'normal', requests }) };
      },
      onResponse,
    },
  ];
  const result = await autocannon({ url: plan.base, connections: plan.connections, duration: plan.seconds, timeout: 30, requests });
  return { result, counts };
}

/** Least-squares slope of (t seconds, value) samples, per second. */
export function slope(samples: { t: number; v: number }[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mt = samples.reduce((s, x) => s + x.t, 0) / n;
  const mv = samples.reduce((s, x) => s + x.v, 0) / n;
  const num = samples.reduce((s, x) => s + (x.t - mt) * (x.v - mv), 0);
  const den = samples.reduce((s, x) => s + (x.t - mt) ** 2, 0);
  return den === 0 ? 0 : num / den;
}
