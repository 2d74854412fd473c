import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { openKioskDb } from '../../../renderer/store/db.ts';
import { getSettings } from '../../../renderer/store/meta.ts';
import { recordLocalScan } from '../../../renderer/store/outbox.ts';
import {
  PairingFlow,
  applyPairing,
  describeServer,
  probeEvent,
  type PairingAnswer,
  type PairingFlowOptions,
  type PairingPlan,
} from '../../../renderer/sync/pairing.ts';
import { pairingLink, parsePairing, readPairing, toBase64Url, type PairingPayload } from '../../../shared/checkin/pairing.ts';
import { FakeDoorServer, type FakeRequest } from '../fake-door-server.ts';
import { makeDevice, type Device } from '../kiosk-fixture.ts';

/**
 * Issue 10 item 9: a pairing QR code or link (from anyone) never silently re-points a kiosk. Every pairing is
 * shown (target server and event, what it replaces, the queue) and waits for staff; Cancel changes nothing;
 * queued check-ins never go to another pairing; hostile payloads are refused before anything is shown.
 */

const TARGET_BASE = 'http://192.168.1.50:9000';
const TARGET: PairingPayload = { url: `${TARGET_BASE}/en/wp-json/`, api_key: 'other-key', event_id: 77 };

interface Setup {
  old: FakeDoorServer;
  target: FakeDoorServer;
  device: Device;
  /** Every request that reached the target server. */
  targetRequests: FakeRequest[];
  /** Routes by origin, as the browser would. */
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
}

async function pairedKiosk(): Promise<Setup> {
  const old = new FakeDoorServer(10);
  old.seed(3);
  const target = new FakeDoorServer(77, 78, TARGET_BASE);
  target.keys = new Set(['other-key']);
  target.eventTitle = 'Hostile gala';
  const device = await makeDevice(old);
  await device.engine.syncNow({ refreshEvent: true });
  assert.equal(await device.db.event.count(), 1, 'the current event is cached');
  const targetRequests: FakeRequest[] = [];
  const toTarget = target.fetch((req) => {
    targetRequests.push(req);
    return 'ok';
  });
  const toOld = old.fetch();
  const fetch = (input: string, init?: RequestInit) => (input.startsWith(TARGET_BASE) ? toTarget(input, init) : toOld(input, init));
  return { old, target, device, targetRequests, fetch };
}

/** A flow whose staff answer from `answers` in turn, recording every question. */
function scriptedFlow(
  s: Pick<Setup, 'fetch'> & { device: Pick<Device, 'db' | 'engine'> },
  answers: Array<PairingAnswer | ((plan: PairingPlan) => Promise<PairingAnswer> | PairingAnswer)>,
  extra: Partial<PairingFlowOptions> = {},
) {
  const plans: PairingPlan[] = [];
  const paired: PairingPayload[] = [];
  const invalid: string[] = [];
  const flow = new PairingFlow({
    db: s.device.db,
    fetch: s.fetch,
    probeTimeoutMs: 2000,
    ask: async (plan) => {
      plans.push(plan);
      const next = answers.shift();
      assert.ok(next, `an unexpected question: ${JSON.stringify({ kind: plan.kind, pending: plan.pending, blocked: plan.blocked })}`);
      return typeof next === 'function' ? next(plan) : next;
    },
    invalid: (reason) => invalid.push(reason),
    upload: () => s.device.engine.syncNow(),
    idle: () => s.device.engine.idle(),
    paired: (next) => void paired.push(next),
    ...extra,
  });
  return { flow, plans, paired, invalid };
}

async function snapshotOf(device: Device) {
  return {
    settings: await getSettings(device.db),
    event: await device.db.event.toArray(),
    outbox: await device.db.outbox.count(),
    rejected: await device.db.rejected.count(),
    sync: (await device.db.meta.get('sync'))?.value,
  };
}

describe('pairing asks first (issue 10 item 9)', () => {
  test('a pairing link into a paired kiosk shows the target server and event and what it replaces; Cancel keeps the old pairing', async () => {
    const s = await pairedKiosk();
    try {
      const before = await snapshotOf(s.device);
      const { flow, plans, paired } = scriptedFlow(s, ['cancel']);
      const link = pairingLink('https://anyone.example', TARGET);
      assert.equal(await flow.fromText(new URL(link).hash), 'cancelled');

      assert.equal(plans.length, 1, 'staff were asked exactly once');
      const [plan] = plans;
      assert.equal(plan.kind, 'replace');
      assert.equal(plan.server.host, '192.168.1.50:9000');
      assert.equal(plan.server.origin, TARGET_BASE);
      assert.equal(plan.server.secure, false);
      assert.equal(plan.event.id, 77);
      assert.equal(plan.event.title, 'Hostile gala', 'the event as the target server names it');
      assert.equal(plan.event.startDate, '2026-11-22 18:00:00');
      assert.equal(plan.event.problem, null);
      assert.equal(plan.current?.server.host, '127.0.0.1:8080');
      assert.equal(plan.current?.event.id, 10);
      assert.equal(plan.current?.event.title, 'Door test event');
      assert.equal(plan.pending, 0);
      assert.equal(plan.blocked, false);

      assert.deepEqual(paired, []);
      assert.deepEqual(await snapshotOf(s.device), before, 'Cancel leaves pairing, cache, queue and sync state untouched');
      assert.equal((await s.device.db.attendees.count()) + (await s.device.db.snapshot.count()) > 0, true);
      // The target was only asked for its event, with the key from the payload: the current key never leaves.
      assert.deepEqual(
        s.targetRequests.map((r) => [r.method, r.path, r.authorization]),
        [['GET', 'evt/events/v1/events/77', 'Bearer other-key']],
      );
    } finally {
      await s.device.close();
    }
  });

  test('confirm replaces the pairing and starts a fresh cache', async () => {
    const s = await pairedKiosk();
    try {
      const { flow, plans, paired } = scriptedFlow(s, ['confirm']);
      assert.equal(await flow.fromText(pairingLink('https://anyone.example', TARGET)), 'paired');
      assert.equal(plans.length, 1);
      assert.deepEqual(paired, [TARGET]);
      assert.deepEqual(await getSettings(s.device.db), TARGET);
      assert.equal(await s.device.db.event.count(), 0, 'the old event is gone from the cache');
      assert.equal(await s.device.db.attendees.count(), 0);
      assert.equal(await s.device.db.snapshot.count(), 0);
      assert.equal(await s.device.db.rejected.count(), 0, 'nothing set aside: the queue was empty');
    } finally {
      await s.device.close();
    }
  });

  test('a first pairing asks too, and Cancel leaves the device unpaired', async () => {
    const db = openKioskDb(`pairing-first-${process.pid}`);
    const target = new FakeDoorServer(77, 78, TARGET_BASE);
    target.keys = new Set(['other-key']);
    try {
      const device = { db, engine: { syncNow: async () => {}, idle: async () => {} } as unknown as Device['engine'] };
      const { flow, plans } = scriptedFlow({ device, fetch: target.fetch() }, ['cancel']);
      assert.equal(await flow.request(TARGET), 'cancelled');
      assert.equal(plans[0].kind, 'first');
      assert.equal(plans[0].current, null);
      assert.equal(plans[0].event.title, 'Door test event');
      assert.equal(await getSettings(db), null);
    } finally {
      db.close();
      await db.delete();
    }
  });

  test('the same pairing code seen again while its question is open does not ask twice', async () => {
    const s = await pairedKiosk();
    try {
      let release!: (a: PairingAnswer) => void;
      const { flow, plans } = scriptedFlow(s, [
        () =>
          new Promise<PairingAnswer>((r) => {
            release = r;
          }),
      ]);
      const first = flow.request(TARGET);
      while (plans.length === 0) await new Promise((r) => setTimeout(r, 5));
      assert.equal(await flow.request(TARGET), 'cancelled');
      release('cancel');
      assert.equal(await first, 'cancelled');
      assert.equal(plans.length, 1);
      assert.equal((await getSettings(s.device.db))?.event_id, 10);
    } finally {
      await s.device.close();
    }
  });

  test('the event ID is shown when the target cannot be reached or refuses the key', async () => {
    const s = await pairedKiosk();
    try {
      const { flow, plans } = scriptedFlow(
        {
          ...s,
          fetch: async () => {
            throw new TypeError('Failed to fetch');
          },
        },
        ['cancel'],
      );
      assert.equal(await flow.request(TARGET), 'cancelled');
      assert.deepEqual([plans[0].event.id, plans[0].event.title, plans[0].event.problem?.kind], [77, null, 'network']);

      const refused = await probeEvent({ ...TARGET, api_key: 'wrong' }, s.fetch);
      assert.deepEqual([refused.title, refused.problem?.kind], [null, 'refused']);
      const missing = await probeEvent({ ...TARGET, event_id: 5 }, s.fetch);
      assert.deepEqual([missing.title, missing.problem?.kind], [null, 'not-found']);
    } finally {
      await s.device.close();
    }
  });

  test('a hostile event title cannot disguise itself: control and bidi characters dropped, length capped, answer size bounded', async () => {
    const answer = (body: string) => async () => new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
    const spoof = await probeEvent(
      TARGET,
      answer(JSON.stringify({ id: 77, title: `Gala\u202e\u0000 ${'x'.repeat(500)}`, start_date: '2026-11-22 18:00:00' })),
    );
    assert.equal(spoof.title?.includes('\u202e'), false);
    assert.equal(spoof.title?.includes('\u0000'), false);
    assert.ok((spoof.title?.length ?? 0) <= 200);
    const huge = await probeEvent(TARGET, answer(JSON.stringify({ id: 77, title: 'y'.repeat(1_000_000) })));
    assert.equal(huge.title, null);
    assert.ok(huge.problem);
    const otherId = await probeEvent(TARGET, answer(JSON.stringify({ id: 10, title: 'Door test event' })));
    assert.deepEqual([otherId.title, otherId.problem?.kind], [null, 'bad-answer']);
  });

  test('plain http is flagged only for addresses outside the local network', () => {
    const flag = (url: string) => describeServer(url).insecureRemote;
    assert.equal(flag('http://203.0.113.5:8080/en/wp-json/'), true);
    assert.equal(flag('http://tickets.example.org/wp-json/'), true);
    assert.equal(flag('http://[2001:db8::1]:8080/wp-json/'), true);
    for (const local of [
      'http://127.0.0.1:8080/en/wp-json/',
      'http://localhost:8080/wp-json/',
      'http://192.168.1.20:8080/wp-json/',
      'http://10.0.0.5/wp-json/',
      'http://172.20.1.1/wp-json/',
      'http://door.local/wp-json/',
      'http://[::1]:8080/wp-json/',
      'http://[fd12:3456::1]/wp-json/',
      'https://tickets.example.org/wp-json/',
    ]) {
      assert.equal(flag(local), false, local);
    }
    assert.equal(describeServer('https://tickets.example.org/wp-json/').host, 'tickets.example.org');
    assert.equal(describeServer('http://192.168.1.20:8080/wp-json/').host, '192.168.1.20:8080');
  });
});

describe('queued check-ins stay with the pairing they were made for', () => {
  async function queueOfflineScan(s: Setup): Promise<number> {
    const [attendee] = [...s.old.attendees.values()];
    s.device.online = false;
    const result = await s.device.service.scan(s.old.ticketUrl(attendee));
    assert.equal(result.verdict.kind, 'admitted');
    assert.equal(result.mode, 'offline');
    assert.equal(await s.device.db.outbox.count(), 1);
    return attendee.id;
  }

  test('replacing is refused while scans wait for the old server; uploading them there first unblocks it', async () => {
    const s = await pairedKiosk();
    try {
      const attendeeId = await queueOfflineScan(s);
      const { flow, plans, paired } = scriptedFlow(s, [
        'confirm', // blocked: not applied, asked again
        'upload', // still offline: nothing leaves, still blocked
        (): PairingAnswer => {
          s.device.online = true;
          return 'upload';
        },
        'confirm',
      ]);
      assert.equal(await flow.request(TARGET), 'paired');
      assert.deepEqual(
        plans.map((p) => [p.kind, p.pending, p.blocked]),
        [
          ['replace', 1, true],
          ['replace', 1, true],
          ['replace', 1, true],
          ['replace', 0, false],
        ],
      );
      assert.deepEqual(paired, [TARGET]);
      // The scan went to the server it was made for, and nothing was set aside or sent to the new one.
      assert.equal(s.old.attendees.get(attendeeId)?.checkin?.deviceId, s.device.deviceId);
      assert.equal(await s.device.db.rejected.count(), 0);
      assert.equal(s.target.log.length, 0);
      assert.deepEqual(
        s.targetRequests.filter((r) => r.method !== 'GET'),
        [],
      );
    } finally {
      await s.device.close();
    }
  });

  test('Cancel on a blocked replacement keeps the pairing and the queue', async () => {
    const s = await pairedKiosk();
    try {
      await queueOfflineScan(s);
      const before = await snapshotOf(s.device);
      const { flow, plans } = scriptedFlow(s, ['cancel']);
      assert.equal(await flow.request(TARGET), 'cancelled');
      assert.equal(plans[0].blocked, true);
      assert.deepEqual(await snapshotOf(s.device), before);
      assert.equal(before.outbox, 1);
    } finally {
      await s.device.close();
    }
  });

  test('a scan queued while staff read the question blocks the confirmation, which is asked again', async () => {
    const s = await pairedKiosk();
    try {
      const [attendee] = [...s.old.attendees.values()];
      const { flow, plans } = scriptedFlow(s, [
        async (): Promise<PairingAnswer> => {
          await recordLocalScan(
            s.device.db,
            {
              nonce: 'late-scan-nonce-0001',
              attendeeId: attendee.id,
              checkIn: true,
              scanAt: 1,
              scanIso: '2026-11-22T20:00:00.000+02:00',
              deviceId: s.device.deviceId,
            },
            'admitted',
          );
          return 'confirm';
        },
        'cancel',
      ]);
      assert.equal(await flow.request(TARGET), 'cancelled');
      assert.deepEqual(
        plans.map((p) => [p.pending, p.blocked]),
        [
          [0, false],
          [1, true],
        ],
      );
      assert.equal((await getSettings(s.device.db))?.event_id, 10);
      assert.equal(await s.device.db.outbox.count(), 1);
      assert.equal(await s.device.db.rejected.count(), 0);
    } finally {
      await s.device.close();
    }
  });

  test('a new key for the same server and event keeps the queue for that server', async () => {
    const s = await pairedKiosk();
    try {
      await queueOfflineScan(s);
      const rekeyed = { ...s.device.settings, api_key: 'door-key-2' };
      s.old.keys.add('door-key-2');
      const { flow, plans } = scriptedFlow(s, ['confirm']);
      assert.equal(await flow.request(rekeyed), 'paired');
      assert.deepEqual([plans[0].kind, plans[0].pending, plans[0].blocked], ['same', 1, false]);
      assert.equal(await s.device.db.outbox.count(), 1);
      assert.equal((await getSettings(s.device.db))?.api_key, 'door-key-2');
    } finally {
      await s.device.close();
    }
  });
});

describe('hostile pairing payloads are refused before anything is shown', () => {
  const good = { url: 'http://127.0.0.1:8080/en/wp-json/', api_key: 'dsk_1_abc', event_id: 7 };
  const hostile: Array<[string, unknown]> = [
    ['javascript: URL', { ...good, url: 'javascript:alert(1)//http://x/' }],
    ['JavaScript: mixed case', { ...good, url: 'JaVaScRiPt:alert(1)' }],
    ['data: URL', { ...good, url: 'data:text/html,<script>alert(1)</script>' }],
    ['ftp URL', { ...good, url: 'ftp://evil.example/' }],
    ['protocol-relative', { ...good, url: '//evil.example/wp-json/' }],
    ['user info hiding the real host', { ...good, url: 'https://trusted.example@evil.example/wp-json/' }],
    ['backslash trick', { ...good, url: 'http://evil.example\\@trusted.example/wp-json/' }],
    ['space inside the host', { ...good, url: 'http://trusted.example evil.example/wp-json/' }],
    ['control character', { ...good, url: 'http://trusted.example\u0000.evil.example/wp-json/' }],
    ['out-of-range port', { ...good, url: 'http://evil.example:99999/wp-json/' }],
    ['fragment', { ...good, url: 'http://evil.example/wp-json/#x' }],
    ['query', { ...good, url: 'http://evil.example/wp-json/?x=1' }],
    ['oversized URL', { ...good, url: `http://evil.example/${'a'.repeat(3000)}/` }],
    ['header injection in the key', { ...good, api_key: 'abc\r\nX-Injected: 1' }],
    ['space in the key', { ...good, api_key: 'abc def' }],
    ['oversized key', { ...good, api_key: 'k'.repeat(300) }],
    ['empty key', { ...good, api_key: '' }],
    ['boolean event', { ...good, event_id: true }],
    ['exponent event', { ...good, event_id: '1e3' }],
    ['hex event', { ...good, event_id: '0x10' }],
    ['unsafe integer event', { ...good, event_id: 2 ** 60 }],
    ['negative event', { ...good, event_id: -1 }],
    ['fractional event', { ...good, event_id: 1.5 }],
    ['array', [good]],
    ['oversized payload', { ...good, padding: 'p'.repeat(20_000) }],
  ];

  test('each is refused by the schema, as JSON, as a link and as a scanned code', () => {
    for (const [name, value] of hostile) {
      const json = JSON.stringify(value);
      for (const raw of [json, `https://anyone.example/kiosk/#pair=${toBase64Url(json)}`, `#pair=${toBase64Url(json)}`]) {
        assert.equal(parsePairing(raw), null, `${name}: ${raw.slice(0, 80)}`);
        // Raw text that is not a JSON object (the array) is simply not a pairing code; links are always reported.
        if (raw !== json || !Array.isArray(value)) assert.equal(readPairing(raw).kind, 'invalid', `${name} is reported as an invalid pairing code`);
      }
    }
    assert.equal(readPairing('#pair=%%%not-base64').kind, 'invalid');
    // The good one passes, normalised; a ticket code is no pairing code at all.
    assert.deepEqual(parsePairing(JSON.stringify({ ...good, url: 'HTTP://Door.Example:8080/en/wp-json' })), {
      ...good,
      url: 'http://door.example:8080/en/wp-json/',
    });
    assert.equal(readPairing('http://h/?event_qr_code=1&ticket_id=1&event_id=2&security_code=abc').kind, 'none');
  });

  test('a hostile link into a paired kiosk changes nothing, asks nothing and contacts nobody', async () => {
    const s = await pairedKiosk();
    try {
      const before = await snapshotOf(s.device);
      let fetched = 0;
      const { flow, plans, invalid } = scriptedFlow({ ...s, fetch: async (input, init) => (fetched++, s.fetch(input, init)) }, []);
      for (const [name, value] of hostile) {
        assert.equal(await flow.fromText(`#pair=${toBase64Url(JSON.stringify(value))}`), 'invalid', name);
        // The size bound is on the text; a parsed object's extra keys are dropped by the schema.
        if (name !== 'oversized payload') assert.equal(await flow.request(value), 'invalid', name);
      }
      assert.equal(plans.length, 0);
      assert.equal(invalid.length, 2 * hostile.length - 1);
      assert.equal(fetched, 0);
      assert.deepEqual(await snapshotOf(s.device), before);
      await assert.rejects(applyPairing(s.device.db, { ...good, url: 'javascript:alert(1)' } as PairingPayload, 1));
      assert.deepEqual(await snapshotOf(s.device), before);
    } finally {
      await s.device.close();
    }
  });
});
