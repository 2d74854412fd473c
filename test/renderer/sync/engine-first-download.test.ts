import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApiKey } from '../../../server/auth/credentials.ts';
import { revokeApiKey } from '../../../server/db/repos/api-keys.ts';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { getSyncState, putSettings } from '../../../renderer/store/meta.ts';
import { SyncEngine } from '../../../renderer/sync/engine.ts';
import type { SyncEvent } from '../../../renderer/sync/events.ts';
import type { PairingPayload } from '../../../shared/checkin/pairing.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture } from '../../helpers/tickets-fixture.ts';
import { cachedIds } from '../kiosk-fixture.ts';
import { probeEvent } from '../../../renderer/sync/pairing.ts';
import { signingKeysOfEvent } from '../../../renderer/store/signing-keys.ts';

/**
 * A kiosk's first download against the real server: its first door snapshot slices are asked for while the sync
 * run checks the key against the event (and uploads), and nothing is written to the cache until those checks pass.
 */

let srv: TestServer;
let event: { eventId: number; attendeeIds: number[] };
let other: number;
let key: string;
let otherKey: string;

beforeAll(async () => {
  srv = await startTestServer();
  event = await seedTicketsFixture(srv.db, { attendees: 30 });
  other = (await seedTicketsFixture(srv.db, { attendees: 3, eventTitle: 'Another event' })).eventId;
  key = (await createApiKey(srv.db, 'Door', event.eventId, null)).key;
  otherKey = (await createApiKey(srv.db, 'Another door', other, null)).key;
}, 60_000);
afterAll(() => srv?.close());

let dbs = 0;

async function kiosk(apiKey: string, fetchImpl: typeof fetch, now?: () => number) {
  const db = openKioskDb(`engine-first-${process.pid}-${++dbs}`);
  const settings: PairingPayload = { url: srv.root, api_key: apiKey, event_id: event.eventId };
  await putSettings(db, settings);
  const engine = new SyncEngine({ db, deviceId: 'door-1', settings: () => settings, fetch: fetchImpl, timers: false, now });
  const events: SyncEvent[] = [];
  engine.events.on((e) => events.push(e));
  return {
    db,
    engine,
    events,
    async close() {
      engine.stop();
      db.close();
      await db.delete();
    },
  };
}

const isEvent = (url: string) => /\/events\/v1\/events\/\d+/.test(url);
const isSlice = (url: string) => url.includes('/attendees/door-snapshot');

describe('the first download starts while the sync run checks the key', () => {
  test('the first slice is asked for before the event read answers; nothing is stored until it has', async () => {
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // A kiosk that asks for nothing before the event's answer would wait for ever: it gets the answer after a while
    // instead, and the order below fails.
    const fallback = setTimeout(() => release(), 5000);
    let storedWhileHeld = -1;
    let k: Awaited<ReturnType<typeof kiosk>>;
    const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      if (isEvent(url)) {
        log.push('event asked');
        const res = await fetch(input, init);
        // The access check's answer is held until a slice has come and the kiosk has had turns to write it.
        await held;
        log.push('event answered');
        return res;
      }
      if (isSlice(url)) log.push('slice asked');
      const res = await fetch(input, init);
      if (isSlice(url) && storedWhileHeld < 0) {
        const body = await res.clone().text();
        // Several turns of the kiosk's own work after the slice's body is there.
        for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
        storedWhileHeld = (await k.db.snapshot.count()) + Number((await getSyncState(k.db)).full !== null);
        release();
        return new Response(body, { status: res.status, headers: res.headers });
      }
      return res;
    };
    k = await kiosk(key, fetchImpl as typeof fetch);
    await k.engine.syncNow({ refreshEvent: true });
    clearTimeout(fallback);
    assert.ok(log.indexOf('slice asked') < log.indexOf('event answered'), log.join(', '));
    assert.equal(storedWhileHeld, 0, 'nothing was written before the key was checked');
    assert.equal((await cachedIds(k.db)).size, event.attendeeIds.length);
    assert.equal(k.engine.status.ready, true);
    assert.deepEqual(k.engine.status.problems, []);
    assert.equal((await k.db.event.toArray())[0]?.id, event.eventId);
    await k.close();
  });

  test('a key for another event: its (empty) slices are never stored and the cache is not marked complete', async () => {
    const k = await kiosk(otherKey, fetch);
    await k.engine.syncNow({ refreshEvent: true });
    assert.deepEqual(
      k.engine.status.problems.map((p) => p.kind),
      ['wrong_event'],
    );
    const state = await getSyncState(k.db);
    assert.equal(state.complete, false);
    assert.equal(state.full, null);
    assert.equal(state.cursor, null);
    assert.equal(await k.db.snapshot.count(), 0);
    assert.equal(await k.db.event.count(), 0);
    assert.equal(await k.db.tickets.count(), 0);
    assert.equal(k.engine.status.ready, false);
    // One device problem raised, no network failure counted for the download stopped meanwhile.
    assert.equal(k.events.filter((e) => e.type === 'failure' && e.failure.kind === 'network').length, 0);
    assert.equal(k.engine.status.online, true);
    await k.close();
  });

  test("the pairing question's read of the event is the first run's check of the key while it is fresh", async () => {
    const reads: string[] = [];
    const counting = async (input: string | URL | Request, init?: RequestInit) => {
      if (isEvent(String(input))) reads.push(new Headers(init?.headers).get('Authorization') ?? '');
      return await fetch(input, init);
    };
    const settings: PairingPayload = { url: srv.root, api_key: key, event_id: event.eventId };
    let clock = Date.now();
    // As the question reads it (pairing.ts probeEvent), then handed over as staff confirm (app.ts paired).
    const view = await probeEvent(settings, counting as typeof fetch, 5000, () => clock);
    assert.ok(view.read, 'a key that reads the event gives its answer');
    const k = await kiosk(key, counting as typeof fetch, () => clock);
    k.engine.resetAuth(view.read);
    await k.engine.syncNow({ refreshEvent: true });
    assert.equal(reads.length, 1, 'the event was read once, by the question');
    assert.equal((await cachedIds(k.db)).size, event.attendeeIds.length);
    assert.equal(k.engine.status.ready, true);
    assert.deepEqual(k.engine.status.problems, []);
    // Its signing keys stored from that answer, as the run's own read stores them.
    const kids = signingKeysOfEvent(view.read.body)?.keys.map((x) => x.kid);
    assert.ok(kids?.length);
    const stored = (await k.db.meta.get('signing_keys'))?.value as { keys: { kid: string }[] } | undefined;
    assert.deepEqual(
      stored?.keys.map((x) => x.kid),
      kids,
    );
    // Taken once: the key is checked again by reading the event once HEALTH_EVERY_MS (60 s) have passed.
    clock += 61_000;
    await k.engine.syncNow();
    assert.equal(reads.length, 2);
    await k.close();

    // An answer as old as HEALTH_EVERY_MS, or read with another key, is not taken: the run reads the event itself.
    reads.length = 0;
    const stale = await kiosk(key, counting as typeof fetch, () => clock + 60_000);
    stale.engine.resetAuth({ ...view.read, at: clock });
    await stale.engine.syncNow({ refreshEvent: true });
    assert.equal(reads.length, 1, 'the stale answer was read again');
    assert.equal(stale.engine.status.ready, true);
    await stale.close();
    reads.length = 0;
    const other = await kiosk(otherKey, counting as typeof fetch, () => clock);
    other.engine.resetAuth({ ...view.read, at: clock });
    await other.engine.syncNow({ refreshEvent: true });
    assert.ok(reads.length >= 1, 'read with its own key');
    assert.deepEqual(
      other.engine.status.problems.map((p) => p.kind),
      ['wrong_event'],
      "another key's answer does not stand for this key",
    );
    assert.equal(await other.db.snapshot.count(), 0);
    await other.close();
  });

  test('a revoked key: nothing stored, the key shown as refused', async () => {
    const made = await createApiKey(srv.db, 'Revoked door', event.eventId, null);
    await revokeApiKey(srv.db, made.row.id);
    const revoked = made.key;
    const k = await kiosk(revoked, fetch);
    await k.engine.syncNow();
    assert.equal(k.engine.status.unauthorized, true);
    assert.equal((await getSyncState(k.db)).complete, false);
    assert.equal(await k.db.snapshot.count(), 0);
    await k.close();
  });
});
