import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { seedTicketsFixture, type TicketsFixture } from '../../helpers/tickets-fixture.ts';
import { checkinBatchItem, BatchResponse, classifyCheckinResponse } from '../../../shared/checkin/wire.ts';
import { revokeApiKey } from '../../../server/db/repos/api-keys.ts';
import { inJson, sql, sqlFor } from '../../../server/db/engine/sql.ts';

let s: TestServer;
let f: TicketsFixture;
let door: { key: string; id: number };
let B: string;
let n = 0;
const nonce = () => `batch-nonce-${String(++n).padStart(6, '0')}-${process.pid}`;
const bearer = (k: string) => `Bearer ${k}`;
const batch = (body: unknown, auth: string | null = bearer(door.key)) => call(B, { method: 'POST', auth: auth ?? undefined, body });
const count = async (sql: string, ...p: unknown[]) => ((await s.db.prepare(sql).get(...p)) as { n: number }).n;
const scan = (id: number, extra: Record<string, unknown> = {}) =>
  checkinBatchItem(id, { check_in: true, check_in_date: '2026-11-22T19:00:00+02:00', device_id: 'door-batch', nonce: nonce(), ...extra } as never);

beforeAll(async () => {
  s = await startTestServer();
  B = `${s.root}batch/v1`;
  f = await seedTicketsFixture(s.db, { attendees: 60 });
  door = await s.apiKey('Batch door');
});
afterAll(() => s.close());

describe('batch check-ins', () => {
  test('25 PATCH check-ins in one batch: 207, 25 envelopes of 201 attendees, 25 accepted scans', async () => {
    const items = f.attendeeIds.slice(0, 25).map((id) => scan(id));
    const r = await batch({ requests: items });
    assert.equal(r.status, 207);
    const body = BatchResponse.parse(r.body);
    assert.equal(body.responses.length, 25);
    body.responses.forEach((res, i) => {
      assert.ok(res);
      assert.equal(res.status, 201);
      assert.deepEqual(res.headers, { Allow: 'GET, POST, PUT, PATCH' });
      const o = classifyCheckinResponse(res.status, res.body);
      assert.equal(o.kind, 'accepted');
      assert.equal((res.body as { id: number }).id, f.attendeeIds[i]);
    });
    assert.equal(await count("SELECT COUNT(*) AS n FROM checkins WHERE result = 'accepted' AND device_id = 'door-batch'"), 25);
  });

  test('26 items: 400 rest_invalid_param (rest_too_many_items), nothing run', async () => {
    const before = await count('SELECT COUNT(*) AS n FROM checkins');
    const r = await batch({ requests: f.attendeeIds.slice(25, 51).map((id) => scan(id)) });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'rest_invalid_param');
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins'), before);
  });

  test('the same nonce twice inside one batch and again in a later batch: one check-in, three identical 201s', async () => {
    const id = f.attendeeIds[30];
    const item = scan(id);
    const r = await batch({ requests: [item, item] });
    assert.equal(r.status, 207);
    assert.equal(r.body.responses[0].status, 201);
    assert.equal(r.body.responses[1].status, 201);
    assert.deepEqual(r.body.responses[1].body, r.body.responses[0].body);
    const again = await batch({ requests: [item] });
    assert.deepEqual(again.body.responses[0], r.body.responses[0]);
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?', id), 1);
  });

  test('two devices in two batches: one accepted, the other a conflict item carrying the standing check-in', async () => {
    const id = f.attendeeIds[31];
    const d2 = await s.apiKey('Batch door 2');
    const [a, b] = await Promise.all([
      batch({ requests: [scan(id, { device_id: 'dev-A' })] }),
      batch({ requests: [scan(id, { device_id: 'dev-B' })] }, bearer(d2.key)),
    ]);
    const items = [a.body.responses[0], b.body.responses[0]];
    assert.deepEqual(items.map((x) => x.status).sort(), [201, 400]);
    const lose = items.find((x) => x.status === 400)!;
    const win = items.find((x) => x.status === 201)!;
    assert.equal(lose.body.code, 'tec-et-attendee-already-checked-in');
    // The standing check-in as the winner's answer showed it, plus the winning door's label (additive).
    const { device_label: winnerLabel, ...standing } = lose.body.data.checkin_details;
    assert.deepEqual(standing, win.body.checkin_details);
    assert.equal(winnerLabel, win === items[0] ? 'Batch door' : 'Batch door 2');
    const log = await call(`${s.root}evt/tickets/v1/checkins?attendee_id=${id}&result=conflict`, { auth: s.admin });
    assert.equal(log.body.total, 1);
  });

  test('each item is its own transaction: a failing item leaves the others applied', async () => {
    const pending = await seedTicketsFixture(s.db, { attendees: 1, orderStatus: 'pending' });
    const ok1 = f.attendeeIds[32];
    const ok2 = f.attendeeIds[33];
    const r = await batch({
      requests: [
        scan(ok1),
        scan(pending.attendeeIds[0]),
        { method: 'PATCH', path: '/evt/tickets/v1/attendees/999999', body: { check_in: true } },
        scan(ok2),
      ],
    });
    assert.equal(r.status, 207);
    assert.deepEqual(
      r.body.responses.map((x: { status: number }) => x.status),
      [201, 400, 404, 201],
    );
    assert.equal(r.body.responses[1].body.code, 'tec-et-attendee-invalid-check-in');
    assert.equal(await count('SELECT SUM(checked_in) AS n FROM attendees WHERE post_id IN (?, ?)', ok1, ok2), 2);
  });

  test('an item that fails after writing undoes its own writes only, keeping its scan log row', async () => {
    const id = f.attendeeIds[42];
    const other = f.attendeeIds[43];
    assert.equal((await batch({ requests: [scan(id)] })).body.responses[0].status, 201);
    const logBefore = await count('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?', id);
    // Renames are the administrator's (a door key changes check-in state only).
    const r = await batch(
      {
        requests: [
          scan(other),
          // Renames, then loses the scan: the rename is undone, the conflict is logged.
          {
            method: 'PATCH',
            path: `/evt/tickets/v1/attendees/${id}`,
            body: { full_name: 'Renamed In Batch', check_in: true, nonce: nonce(), device_id: 'late' },
          },
          { method: 'PATCH', path: `/evt/tickets/v1/attendees/${other}`, body: { full_name: 'Kept Rename' } },
        ],
      },
      s.admin,
    );
    assert.deepEqual(
      r.body.responses.map((x: { status: number }) => x.status),
      [201, 400, 201],
    );
    const name = async (x: number) => ((await s.db.prepare('SELECT full_name AS n FROM attendees WHERE post_id = ?').get(x)) as { n: string }).n;
    assert.equal(await name(id), 'Guest 43');
    assert.equal(await name(other), 'Kept Rename');
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins WHERE attendee_id = ?', id), logBefore + 1);
    assert.equal(s.db.inTransaction, false);
  });

  test('require-all-validate with one invalid item executes nothing', async () => {
    const ids = f.attendeeIds.slice(34, 37);
    const before = await count('SELECT COUNT(*) AS n FROM checkins');
    const r = await batch({
      validation: 'require-all-validate',
      requests: [scan(ids[0]), scan(ids[1], { nonce: 'short' }), scan(ids[2])],
    });
    assert.equal(r.status, 207);
    assert.equal(r.body.failed, 'validation');
    assert.equal(r.body.responses[0], null);
    assert.equal(r.body.responses[2], null);
    assert.equal(r.body.responses[1].status, 400);
    assert.equal(r.body.responses[1].body.code, 'rest_invalid_param');
    assert.equal(await count('SELECT COUNT(*) AS n FROM checkins'), before);
    assert.equal(
      await count(sqlFor(s.db.engine, sql`SELECT SUM(checked_in) AS n FROM attendees WHERE ${inJson('post_id', 'id')}`), JSON.stringify(ids)),
      0,
    );
    const normal = await batch({ requests: [scan(ids[0]), scan(ids[1], { nonce: 'short' }), scan(ids[2])] });
    assert.deepEqual(
      normal.body.responses.map((x: { status: number }) => x.status),
      [201, 400, 201],
    );
  });

  test('check-out and re-entry in one batch, in order', async () => {
    const id = f.attendeeIds[40];
    const r = await batch({ requests: [scan(id), scan(id, { check_in: false }), scan(id, { device_id: 'door-reentry' })] });
    assert.deepEqual(
      r.body.responses.map((x: { status: number }) => x.status),
      [201, 201, 201],
    );
    assert.equal(r.body.responses[1].body.checked_in, false);
    assert.equal(r.body.responses[2].body.checkin_details.device_id, 'door-reentry');
  });

  test('box-office creation is batchable; GET items are not allowed', async () => {
    const r = await batch({
      requests: [
        { method: 'POST', path: '/evt/tickets/v1/attendees', body: { ticket_id: f.ticketId, full_name: 'Batch Walk-in', email: 'bw@in.test' } },
        { method: 'GET', path: `/evt/tickets/v1/attendees/${f.attendeeIds[0]}` },
      ],
    });
    assert.equal(r.status, 400);
    const ok = await batch({
      requests: [
        { method: 'POST', path: '/evt/tickets/v1/attendees', body: { ticket_id: f.ticketId, full_name: 'Batch Walk-in', email: 'bw@in.test' } },
      ],
    });
    assert.equal(ok.body.responses[0].status, 201);
  });

  test('anonymous items are 401 inside the 207; a revoked key fails the whole request with 401', async () => {
    const id = f.attendeeIds[41];
    const anon = await batch({ requests: [scan(id)] }, null);
    assert.equal(anon.status, 207);
    assert.equal(anon.body.responses[0].status, 401);
    assert.equal(anon.body.responses[0].body.code, 'rest_forbidden');
    const k = await s.apiKey('Stolen');
    await revokeApiKey(s.db, k.id);
    const r = await batch({ requests: [scan(id)] }, bearer(k.key));
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'rest_forbidden');
    assert.equal(await count('SELECT checked_in AS n FROM attendees WHERE post_id = ?', id), 0);
  });
});
