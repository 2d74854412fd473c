import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { insertAttendees, insertTicket, seedTicketsFixture } from '../../helpers/tickets-fixture.ts';
import { createApiKey } from '../../../server/auth/credentials.ts';
import { decideListScan, type ListPass, type ListRules } from '../../../shared/checkin/decide.ts';
import { formatInZone, zonedToInstant } from '../../../shared/dates.ts';
import type { CheckinList } from '../../../shared/models/checkin-lists.ts';
import { rng } from '../../../shared/random.ts';

/**
 * Seeded property test of the check-in list rules (CONTRACT section 8; STYLE.md 12): random lists with random
 * rules, random histories of entry and exit scans at random times, one history per attendee. The server decides
 * every scan over HTTP (door keys bound to the lists, through /batch/v1, in each history's order); the shared
 * rule function replays each history as a kiosk would (from the list as the server answers it, its window
 * resolved in the site's time zone, the history made of the passes it admitted). The two must agree on every
 * scan. Then the same histories are replayed with one rule broken on the kiosk's side, rule by rule: each broken
 * replay must disagree with the server somewhere, so the comparison can fail for every rule.
 *
 * The site is in Europe/Tallinn and the scans span the end of March 2026, across the change to summer time, so
 * the window and the per-day count meet site-local days of 23 and 24 hours. CHECKIN_LISTS_SEED picks another run.
 */

const SEED = Number(process.env.CHECKIN_LISTS_SEED ?? 20261129);
/** At least 10,000 (the default); CHECKIN_LISTS_HISTORIES may ask for more, or fewer for a quick look. */
const HISTORIES = 2 * Math.ceil(Number(process.env.CHECKIN_LISTS_HISTORIES ?? 10_000) / 2);
const LISTS = 40;
const MAX_SCANS = 5;
const IN_FLIGHT = 4;
const TZ = 'Europe/Tallinn';
/** 2026-03-26 00:00 UTC: summer time starts in Tallinn on the 29th at 03:00 local. */
const BASE = Date.UTC(2026, 2, 26);
const HOUR = 3_600_000;

interface Scan {
  kind: 'entry' | 'exit';
  at: number;
}
interface History {
  attendeeId: number;
  ticketId: number;
  list: number;
  scans: Scan[];
}
/** What the server answered a scan: `admit`, or the refusal's error code. */
type Answer = 'admit' | string;

let s: TestServer;
let lists: CheckinList[];
let keys: string[];
let histories: History[];
/** The server's answers, by history, in scan order; `complete` once every scan was answered. */
let answers: Answer[][];
let complete = false;

/** The rules as a kiosk derives them from the list the server answered. */
function rulesOf(list: CheckinList): ListRules {
  return {
    ticketIds: list.ticket_ids,
    allowReentry: list.allow_reentry,
    allowMultipleEntries: list.allow_multiple_entries,
    windowStart: list.window_start === null ? null : zonedToInstant(list.window_start, TZ).getTime(),
    windowEnd: list.window_end === null ? null : zonedToInstant(list.window_end, TZ).getTime(),
    entriesPerDay: list.entries_per_day,
    timezone: TZ,
  };
}

/** Replays a history as the kiosk does: each scan decided against the passes admitted before it. */
function replay(rules: ListRules, h: History): Answer[] {
  const passes: ListPass[] = [];
  return h.scans.map((scan) => {
    const v = decideListScan(rules, h.ticketId, scan, passes);
    if (v.kind === 'refuse') return v.code;
    if (v.counts) passes.push(scan);
    return 'admit';
  });
}

/** Histories whose replay under `rules` differs from what the server answered. */
function disagreements(rulesFor: (list: CheckinList) => ListRules): number[] {
  const out: number[] = [];
  const rules = lists.map(rulesFor);
  histories.forEach((h, i) => {
    const mine = replay(rules[h.list]!, h);
    if (mine.some((a, j) => a !== answers[i]![j])) out.push(i);
  });
  return out;
}

beforeAll(async () => {
  s = await startTestServer({ EVT_TIMEZONE: TZ, EVT_SCAN_MAX_AGE_HOURS: String(21 * 24) });
  // Every scan arrives 20 days after BASE, after the last scan time and within the 21 days a device time is
  // believed before its arrival (lists.ts believedScanTime): each scan is decided at its own time.
  s.app.state.services.clock = () => BASE + 20 * 24 * HOUR;
  const rnd = rng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const f = await seedTicketsFixture(s.db, { attendees: HISTORIES / 2 });
  const t2 = await insertTicket(s.db, f.eventId, { title: 'VIP' });
  const second = await insertAttendees(s.db, t2, HISTORIES / 2);
  const attendees = [...f.attendeeIds.map((id) => ({ id, ticket: f.ticketId })), ...second.attendeeIds.map((id) => ({ id, ticket: t2 }))];
  const local = (ms: number) => formatInZone(new Date(ms), TZ);

  lists = [];
  keys = [];
  for (let i = 0; i < LISTS; i++) {
    // Windows start and end at a random hour of the week of scans, or are open on a side.
    const start = rnd() < 0.5 ? null : BASE + Math.floor(rnd() * 5 * 24) * HOUR;
    const end = rnd() < 0.5 ? null : (start ?? BASE) + Math.floor(rnd() * 4 * 24 + 1) * HOUR;
    const body = {
      event_id: f.eventId,
      name: `Gate ${i + 1}`,
      ticket_ids: pick([[], [], [f.ticketId], [t2], [f.ticketId, t2]]),
      allow_reentry: rnd() < 0.6,
      allow_multiple_entries: rnd() < 0.3,
      window_start: start === null ? null : local(start),
      window_end: end === null ? null : local(end),
      entries_per_day: pick([null, null, 1, 2, 3]),
    };
    const r = await call(`${s.root}evt/tickets/v1/checkin-lists`, { method: 'POST', auth: s.admin, body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    lists.push(r.body);
    keys.push(`Bearer ${(await createApiKey(s.db, `Gate ${i + 1}`, f.eventId, null, r.body.id)).key}`);
  }

  histories = attendees.map((a) => {
    let at = BASE + Math.floor(rnd() * 6 * 24 * 60) * 60_000;
    const scans: Scan[] = [];
    const n = 1 + Math.floor(rnd() * MAX_SCANS);
    for (let j = 0; j < n; j++) {
      scans.push({ kind: rnd() < 0.65 ? 'entry' : 'exit', at });
      // Mostly minutes to hours apart (several passes a day), sometimes a day or more (a new site-local day).
      at += (rnd() < 0.7 ? 1 + Math.floor(rnd() * 240) : 360 + Math.floor(rnd() * 36 * 60)) * 60_000;
    }
    return { attendeeId: a.id, ticketId: a.ticket, list: Math.floor(rnd() * LISTS), scans };
  });
}, 120_000);
afterAll(() => s?.close());

describe('check-in lists: the server and the shared rules agree on random histories', () => {
  test(`${HISTORIES} histories through ${LISTS} lists, decided over HTTP, replayed by the shared function`, { timeout: 300_000 }, async () => {
    answers = histories.map(() => []);
    let nonce = 0;
    // Round r sends the r-th scan of every history that has one: a history's scans reach the server in order.
    for (let r = 0; r < MAX_SCANS; r++) {
      const batches: { key: string; items: { h: number; scan: Scan }[] }[] = [];
      for (let l = 0; l < LISTS; l++) {
        const items = histories.flatMap((h, i) => (h.list === l && h.scans.length > r ? [{ h: i, scan: h.scans[r]! }] : []));
        for (let k = 0; k < items.length; k += 25) batches.push({ key: keys[l]!, items: items.slice(k, k + 25) });
      }
      // A few batches in flight (PostgreSQL answers them on several connections): they touch different
      // attendees, so their order does not matter.
      for (let b = 0; b < batches.length; b += IN_FLIGHT) {
        await Promise.all(
          batches.slice(b, b + IN_FLIGHT).map(async ({ key, items }) => {
            const res = await call(`${s.root}batch/v1`, {
              method: 'POST',
              auth: key,
              body: {
                requests: items.map(({ h, scan }) => ({
                  method: 'PATCH',
                  path: `/evt/tickets/v1/attendees/${histories[h]!.attendeeId}`,
                  body: {
                    check_in: scan.kind === 'entry',
                    check_in_date: new Date(scan.at).toISOString(),
                    nonce: `prop-${SEED}-${String(++nonce).padStart(8, '0')}`,
                  },
                })),
              },
            });
            assert.equal(res.status, 207, JSON.stringify(res.body));
            res.body.responses.forEach((sub: { status: number; body: { code?: string } }, k: number) => {
              const { h } = items[k]!;
              assert.ok(sub.status === 201 || sub.status === 400, `unexpected ${sub.status} ${JSON.stringify(sub.body)}`);
              answers[h]!.push(sub.status === 201 ? 'admit' : String(sub.body.code));
            });
          }),
        );
      }
    }

    assert.ok(
      answers.every((a, i) => a.length === histories[i]!.scans.length),
      'every scan answered',
    );
    complete = true;
    const wrong = disagreements(rulesOf);
    const shown = wrong.slice(0, 3).map((i) => ({
      seed: SEED,
      list: lists[histories[i]!.list],
      ticket: histories[i]!.ticketId,
      scans: histories[i]!.scans.map((x) => `${x.kind}@${new Date(x.at).toISOString()}`),
      server: answers[i],
      shared: replay(rulesOf(lists[histories[i]!.list]!), histories[i]!),
    }));
    assert.deepEqual(shown, [], `${wrong.length} of ${HISTORIES} histories disagree`);

    // Every answer occurs, often enough that each rule was put to the test many times.
    const counts = new Map<string, number>();
    for (const a of answers.flat()) counts.set(a, (counts.get(a) ?? 0) + 1);
    for (const code of [
      'admit',
      'checkin-list-ticket-not-admitted',
      'checkin-list-closed',
      'tec-et-attendee-already-checked-in',
      'checkin-list-no-reentry',
      'checkin-list-entries-exhausted',
    ]) {
      assert.ok((counts.get(code) ?? 0) >= Math.max(5, HISTORIES / 100), `${code}: ${counts.get(code) ?? 0} answers`);
    }
    assert.deepEqual(
      [...counts.keys()].filter((k) => !k.startsWith('checkin-list-') && k !== 'admit' && k !== 'tec-et-attendee-already-checked-in'),
      [],
    );
  });

  test('a rule broken on the kiosk side is caught: each broken replay disagrees with the server', () => {
    assert.ok(complete, 'the server answered every scan (the first test)');
    const broken: Record<string, (l: CheckinList) => ListRules> = {
      'ticket list ignored': (l) => ({ ...rulesOf(l), ticketIds: [] }),
      'window ignored': (l) => ({ ...rulesOf(l), windowStart: null, windowEnd: null }),
      'window read as UTC': (l) => ({
        ...rulesOf(l),
        windowStart: l.window_start === null ? null : zonedToInstant(l.window_start, 'UTC').getTime(),
        windowEnd: l.window_end === null ? null : zonedToInstant(l.window_end, 'UTC').getTime(),
      }),
      'multiple entries always allowed': (l) => ({ ...rulesOf(l), allowMultipleEntries: true }),
      're-entry always allowed': (l) => ({ ...rulesOf(l), allowReentry: true }),
      'no daily limit': (l) => ({ ...rulesOf(l), entriesPerDay: null }),
      'one more entry a day': (l) => ({ ...rulesOf(l), entriesPerDay: l.entries_per_day === null ? null : l.entries_per_day + 1 }),
      'days counted in UTC': (l) => ({ ...rulesOf(l), timezone: 'UTC' }),
    };
    for (const [name, rules] of Object.entries(broken)) {
      assert.ok(disagreements(rules).length > 0, `${name}: no history tells it from the server`);
    }
  });
});
