import 'fake-indexeddb/auto';
import { openKioskDb, type KioskDb } from '../../renderer/store/db.ts';
import { putSettings } from '../../renderer/store/meta.ts';
import { snapshotRows } from '../../renderer/store/snapshot.ts';
import { SyncEngine } from '../../renderer/sync/engine.ts';
import { CheckinService } from '../../renderer/checkin/checkin-service.ts';
import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import type { FakeDoorServer, FakeRequest, InterceptMode } from './fake-door-server.ts';

let dbCounter = 0;

/** Every attendee ID the device has cached, from the first download's snapshot and later rows alike. */
export async function cachedIds(db: KioskDb): Promise<Set<number>> {
  const ids = new Set((await snapshotRows(db)).map((r) => r.id));
  for (const id of await db.attendees.toCollection().primaryKeys()) ids.add(id);
  return ids;
}

export interface Device {
  db: KioskDb;
  engine: SyncEngine;
  service: CheckinService;
  deviceId: string;
  settings: PairingPayload;
  /** When false, every request fails as if the network were cut. */
  online: boolean;
  clock: { now: number };
  close(): Promise<void>;
}

/** A paired door device over fake-indexeddb, talking to `server` through its fetch double. */
export async function makeDevice(
  server: FakeDoorServer,
  opts: { deviceId?: string; intercept?: (req: FakeRequest) => InterceptMode; now?: number; pairing?: Partial<PairingPayload> } = {},
): Promise<Device> {
  const db = openKioskDb(`kiosk-test-${process.pid}-${++dbCounter}`);
  const settings: PairingPayload = { url: 'http://127.0.0.1:8080/en/wp-json/', api_key: 'door-key', event_id: server.eventId, ...opts.pairing };
  await putSettings(db, settings);
  const clock = { now: opts.now ?? Date.parse('2026-11-22T18:00:00Z') };
  const device = {} as Device;
  const inner = server.fetch(opts.intercept);
  const fetchImpl = async (input: string, init?: RequestInit): Promise<Response> => {
    if (!device.online) throw new TypeError('Failed to fetch');
    return inner(input, init);
  };
  server.now ??= () => clock.now;
  const deviceId = opts.deviceId ?? `door-${dbCounter}`;
  const engine = new SyncEngine({ db, deviceId, settings: () => settings, fetch: fetchImpl, now: () => clock.now, timers: false, random: () => 0.5 });
  const service = new CheckinService({ db, engine, deviceId, settings: () => settings, now: () => clock.now });
  Object.assign(device, {
    db,
    engine,
    service,
    deviceId,
    settings,
    online: true,
    clock,
    async close() {
      engine.stop();
      db.close();
      await db.delete();
    },
  });
  return device;
}
