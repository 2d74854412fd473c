import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { getSettings } from '../../../renderer/store/meta.ts';
import { EARLY_PROBE_MS, PairingFlow, planPairing, probeEarly, type PairingAnswer, type PairingPlan } from '../../../renderer/sync/pairing.ts';
import { FakeDoorServer } from '../fake-door-server.ts';
import { makeDevice } from '../kiosk-fixture.ts';
import type { PairingPayload } from '../../../shared/checkin/pairing.ts';

/** Issue 12 item 4: the key is tried against the event before a pairing is accepted. */

const BASE = 'http://192.168.1.50:9000';
const next: PairingPayload = { url: `${BASE}/en/wp-json/`, api_key: 'k', event_id: 77 };

async function attempt(server: FakeDoorServer, answer: 'confirm' | 'cancel' = 'confirm') {
  const db = openKioskDb(`pairing-checks-${process.pid}-${Math.random()}`);
  const plans: PairingPlan[] = [];
  const flow = new PairingFlow({
    db,
    fetch: server.fetch(),
    probeTimeoutMs: 2000,
    ask: async (plan) => (plans.push(plan), answer),
    upload: async () => {},
    idle: async () => {},
    paired: () => {},
  });
  const outcome = await flow.request(next);
  const stored = await getSettings(db);
  db.close();
  await db.delete();
  return { outcome, plan: plans[0], stored };
}

function target(): FakeDoorServer {
  const server = new FakeDoorServer(77, 78, BASE);
  server.keys = new Set(['k']);
  server.eventTitle = 'Spring gala';
  return server;
}

describe('pairing checks the key against the event', () => {
  test('a key for this event pairs', async () => {
    const { outcome, plan, stored } = await attempt(target());
    assert.equal(outcome, 'paired');
    assert.equal(plan.refused, false);
    assert.equal(stored?.event_id, 77);
  });

  test('a key scoped to another event is refused with the reason, even when staff confirm', async () => {
    const server = target();
    server.keyScopes.set('k', 12);
    const { outcome, plan, stored } = await attempt(server);
    assert.equal(outcome, 'refused');
    assert.equal(plan.refused, true);
    assert.equal(plan.event.problem?.kind, 'wrong-event');
    assert.equal(plan.event.title, 'Spring gala', 'the event is still named, so staff see which one');
    assert.equal(stored, null, 'nothing stored');
  });

  test('a refused key and an address that is no Doorstep server are refused and say so', async () => {
    const revoked = target();
    revoked.keys.clear();
    const r = await attempt(revoked);
    assert.deepEqual([r.outcome, r.plan.event.problem?.kind, r.stored], ['refused', 'refused', null]);
    const portal = target();
    portal.rootKind = 'html';
    const p = await attempt(portal);
    assert.deepEqual([p.outcome, p.plan.event.problem?.kind, p.stored], ['refused', 'not-doorstep', null]);
  });

  test("the site's own address pairs with the interface root its Link header names; an unreachable server is asked again, never paired", async () => {
    const db = openKioskDb(`pairing-checks-${process.pid}-${Math.random()}`);
    const plans: PairingPlan[] = [];
    let reachable = false;
    const server = target();
    const inner = server.fetch();
    const answers: PairingAnswer[] = ['confirm', 'retry', 'confirm'];
    const flow = new PairingFlow({
      db,
      fetch: async (input, init) => {
        if (!reachable) throw new TypeError('Failed to fetch');
        return inner(input, init);
      },
      probeTimeoutMs: 2000,
      ask: async (plan) => {
        plans.push(plan);
        // Staff press the main button; the second time, the server is back.
        reachable = true;
        return answers.shift() ?? 'cancel';
      },
      upload: async () => {},
      idle: async () => {},
      paired: () => {},
    });
    assert.equal(await flow.request({ ...next, url: `${BASE}/` }), 'paired');
    assert.deepEqual(
      plans.map((p) => [p.event.problem?.kind ?? null, p.next.url]),
      [
        ['network', `${BASE}/`],
        [null, `${BASE}/en/wp-json/`],
        [null, `${BASE}/en/wp-json/`],
      ],
    );
    assert.equal((await getSettings(db))?.url, `${BASE}/en/wp-json/`);
    db.close();
    await db.delete();
  });

  test('after the first download the engine says "Paired with {event}: N attendees ready"', async () => {
    const server = new FakeDoorServer();
    server.seed(7);
    const d = await makeDevice(server);
    const ready: unknown[] = [];
    d.engine.events.on((e) => e.type === 'ready' && ready.push(e.info));
    await d.engine.syncNow({ refreshEvent: true });
    assert.deepEqual(d.engine.status.readyInfo, { eventTitle: 'Door test event', attendees: 7 });
    assert.deepEqual(ready, [{ eventTitle: 'Door test event', attendees: 7 }]);
    await d.close();
  });

  test('a probe begun as the page opened (probeEarly) is the question’s, once, for the same pairing only', async () => {
    const server = target();
    const inner = server.fetch();
    const reads: string[] = [];
    const fetchImpl = async (input: string, init?: RequestInit) => {
      const auth = new Headers(init?.headers).get('Authorization') ?? '';
      if (String(input).includes('/events/v1/events/')) reads.push(auth);
      return await inner(input, init);
    };
    const db = openKioskDb(`pairing-early-${process.pid}`);
    const plans: PairingPlan[] = [];
    const flow = new PairingFlow({
      db,
      fetch: fetchImpl,
      probeTimeoutMs: 2000,
      ask: async (plan) => (plans.push(plan), 'cancel'),
      upload: async () => {},
      idle: async () => {},
      paired: () => {},
    });
    probeEarly(next, fetchImpl);
    assert.equal(await flow.request(next), 'cancelled');
    assert.deepEqual(reads, ['Bearer k'], 'the event was read once, by the early probe');
    assert.equal(plans[0].event.title, 'Spring gala');
    assert.equal(plans[0].refused, false);
    // Taken once: the next question reads the event again.
    await planPairing(db, next, { fetch: fetchImpl });
    assert.equal(reads.length, 2);
    // Another key's early probe does not answer for this pairing: it is probed with its own key.
    server.keys.add('other');
    probeEarly({ ...next, api_key: 'other' }, fetchImpl);
    const own = await planPairing(db, next, { fetch: fetchImpl });
    assert.deepEqual(reads.slice(2).sort(), ['Bearer k', 'Bearer other']);
    assert.equal(own.refused, false);
    // Nor does one through another fetch, or one too old.
    probeEarly(next, inner);
    await planPairing(db, next, { fetch: fetchImpl });
    assert.equal(reads.length, 5);
    probeEarly(next, fetchImpl, () => 0);
    await planPairing(db, next, { fetch: fetchImpl, now: () => EARLY_PROBE_MS + 1 });
    assert.equal(reads.length, 7, 'the stale early probe and a fresh one');
    db.close();
    await db.delete();
  });
});
