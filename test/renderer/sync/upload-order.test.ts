import { test } from 'vitest';
import assert from 'node:assert/strict';
import { FakeDoorServer } from '../fake-door-server.ts';
import { makeDevice } from '../kiosk-fixture.ts';
import { uploadOutbox } from '../../../renderer/sync/upload.ts';
import { createApiClient } from '../../../renderer/sync/api-client.ts';

/**
 * The outbox goes up several batches at a time (upload.ts). One attendee's scans must still reach the server in
 * the order they were made: here each attendee is checked in, out and in again, the three scans spread over
 * different batches, and every request is held up by a random delay, so a later batch often overtakes an earlier
 * one. Without the rule that no attendee is in two batches that are out at once, an attendee's check-out arrives
 * before its check-in (seen failing: the server answered the early check-out, then a check-in and a conflict).
 */
test('batches out at once never reorder one attendee’s scans, and more than one is out at a time', async () => {
  const server = new FakeDoorServer();
  const people = server.seed(40);
  const d = await makeDevice(server);
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const inner = server.fetch();
  let out = 0;
  let mostOut = 0;
  const slow = async (input: string, init?: RequestInit): Promise<Response> => {
    out++;
    mostOut = Math.max(mostOut, out);
    try {
      await new Promise((r) => setTimeout(r, Math.floor(random() * 15)));
      return await inner(input, init);
    } finally {
      out--;
    }
  };
  // Check in, out and in again, 40 attendees: scans of one attendee 40 rows apart, so in different batches of 25.
  let n = 0;
  for (const checkIn of [true, false, true])
    for (const p of people) {
      n++;
      await d.db.outbox.add({
        nonce: `order-${n}`.padEnd(20, 'x'),
        attendeeId: p.id,
        checkIn,
        scanAt: 1_000 + n,
        scanIso: new Date(1_000 + n).toISOString(),
        deviceId: d.deviceId,
        attempts: 0,
      });
    }
  const api = createApiClient(d.settings, slow);
  const result = await uploadOutbox(api, d.db, () => d.clock.now);
  assert.equal(result.stop, null);
  assert.equal(result.uploaded, 120);
  assert.equal(await d.db.outbox.count(), 0);
  assert.ok(mostOut >= 2, `batches went one at a time (${mostOut} out at most)`);
  for (const p of people) {
    const seen = server.log.filter((e) => e.attendeeId === p.id).map((e) => e.result);
    assert.deepEqual(seen, ['accepted', 'checked_out', 'accepted'], `attendee ${p.id}: ${seen.join(', ')}`);
  }
  assert.deepEqual(result.failures, []);
  await d.close();
});
