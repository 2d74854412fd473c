import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { checkinBatchItem } from '../../../shared/checkin/wire.ts';
import { rng } from '../../../shared/random.ts';

/**
 * The set-based batch path (server/routes/tickets/checkin-run.ts) against the handler: the same random scans,
 * sent as batches to one server and one request at a time through the attendee route to another seeded alike,
 * must give the same answers and leave the same check-in log and attendee state. The scans mix what a run must
 * get right: one attendee scanned twice in a batch, check-outs, nonces sent twice and reused for another
 * attendee, another event's attendee with an event-bound key, missing IDs, bad dates, a refunded order, and
 * field edits between check-ins (which split a batch into several runs).
 */

interface Site {
  s: TestServer;
  main: TicketsFixture;
  refunded: TicketsFixture;
  other: TicketsFixture;
  keys: string[];
}

async function site(): Promise<Site> {
  const s = await startTestServer();
  const main = await seedTicketsFixture(s.db, { attendees: 8 });
  const refunded = await seedTicketsFixture(s.db, { attendees: 2, orderStatus: 'refunded' });
  const other = await seedTicketsFixture(s.db, { attendees: 2 });
  // Two door keys bound to the main event (they can name each other's doors), and a manager-wide one.
  const keys = [(await s.apiKey('Door 1', main.eventId)).key, (await s.apiKey('Door 2', main.eventId)).key, (await s.apiKey('All doors')).key];
  return { s, main, refunded, other, keys };
}

let A: Site;
let B: Site;

beforeAll(async () => {
  A = await site();
  B = await site();
});
afterAll(async () => {
  await A?.s.close();
  await B?.s.close();
});

type Item = { method: string; path: string; body: Record<string, unknown> };

function scenario(seed: number, site: Site): { key: number; items: Item[] }[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  const ids = [...site.main.attendeeIds, ...site.refunded.attendeeIds, site.other.attendeeIds[0] as number, 999_999];
  const used: string[] = [];
  const batches: { key: number; items: Item[] }[] = [];
  let n = 0;
  for (let b = 0; b < 6; b++) {
    const items: Item[] = [];
    const size = 1 + Math.floor(r() * 12);
    for (let k = 0; k < size; k++) {
      const id = pick(ids);
      const roll = r();
      let nonce = `set-${seed}-${++n}-nonce-xxxxxxxx`;
      if (used.length && roll < 0.12) nonce = pick(used);
      used.push(nonce);
      const minute = String(10 + Math.floor(r() * 40)).padStart(2, '0');
      const body: Record<string, unknown> = {
        check_in: r() < 0.75,
        check_in_date: roll > 0.95 ? 'yesterday at noon' : `2026-11-22T19:${minute}:00+02:00`,
        device_id: pick(['dev-a', 'dev-b']),
        nonce,
      };
      if (roll > 0.9 && roll <= 0.95) body.full_name = `Renamed ${n}`;
      items.push(checkinBatchItem(id, body as never) as Item);
    }
    batches.push({ key: Math.floor(r() * 3), items });
  }
  return batches;
}

/**
 * An answer with what differs between two servers seeded alike taken out: their addresses, the random security
 * codes, the moments the fixtures were seeded (the post's and the order's dates). A check-in's own date stays.
 */
function normal(x: unknown, site: Site, parent = ''): unknown {
  if (typeof x === 'string')
    return x
      .split(site.s.base)
      .join('BASE')
      .replace(/^127\.0\.0\.1:\d+/, 'HOST');
  if (Array.isArray(x)) return x.map((v) => normal(v, site, parent));
  if (x === null || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) {
    if (parent !== 'checkin_details' && ['date', 'date_utc', 'modified', 'modified_utc', 'date_details', 'security_code'].includes(k)) continue;
    out[k] = normal(v, site, k);
  }
  return out;
}

const state = async (site: Site) => ({
  log: await site.s.db
    .prepare('SELECT attendee_id, event_id, result, reason, scanned_at, device_id, nonce, source, user_id, api_key_id FROM checkins ORDER BY id')
    .all(),
  attendees: await site.s.db
    .prepare('SELECT a.post_id, a.checked_in, c.nonce FROM attendees a LEFT JOIN checkins c ON c.id = a.checkin_id ORDER BY a.post_id')
    .all(),
});

describe('set-based batch check-ins answer as the handler does', () => {
  test('random scans: the same answers, log and attendee state as one request at a time', async () => {
    let items = 0;
    for (let seed = 1; seed <= 12; seed++) {
      for (const { key, items: list } of scenario(seed, A)) {
        items += list.length;
        const batch = await call(`${A.s.root}batch/v1`, { method: 'POST', auth: `Bearer ${A.keys[key]}`, body: { requests: list } });
        assert.equal(batch.status, 207);
        const one: { status: number; body: unknown }[] = [];
        for (const item of list) {
          const r = await call(`${B.s.root}${item.path.replace(/^\//, '')}`, { method: item.method, auth: `Bearer ${B.keys[key]}`, body: item.body });
          one.push({ status: r.status, body: normal(r.body, B) });
        }
        const got = (batch.body.responses as { status: number; body: unknown }[]).map((x) => ({ status: x.status, body: normal(x.body, A) }));
        assert.deepEqual(got, one, `seed ${seed}: ${JSON.stringify(list.map((i) => [i.path, i.body]))}`);
      }
    }
    assert.ok(items > 300, `${items} scans compared`);
    assert.deepEqual(await state(A), await state(B));
  });
});
