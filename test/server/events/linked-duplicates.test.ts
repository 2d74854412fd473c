import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

/** TEC avoids duplicates on venue and organizer creates (issue 11): the same title and fields answer the existing post. */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

test('a create repeating a published venue (title and every given field) answers it; any differing field makes a new one', async () => {
  const venues = `${s.root}evt/events/v1/venues`;
  const first = await call(venues, {
    method: 'POST',
    auth: s.admin,
    body: { venue: 'Dup Hall', city: 'Tartu', address: '2 Side St', description: 'desc' },
  });
  assert.equal(first.status, 201);
  const again = await call(venues, { method: 'POST', auth: s.admin, body: { venue: 'Dup Hall' } });
  assert.equal(again.status, 201);
  assert.equal(again.body.id, first.body.id);
  assert.equal(again.body.city, 'Tartu');
  const sameCity = await call(venues, { method: 'POST', auth: s.admin, body: { venue: 'Dup Hall', city: 'Tartu' } });
  assert.equal(sameCity.body.id, first.body.id);
  const otherCity = await call(venues, { method: 'POST', auth: s.admin, body: { venue: 'Dup Hall', city: 'Tallinn' } });
  assert.notEqual(otherCity.body.id, first.body.id);
  assert.equal(otherCity.body.city, 'Tallinn');
  // A draft is not reused (nor shown to another caller).
  const draft = await call(venues, { method: 'POST', auth: s.admin, body: { venue: 'Draft Hall', status: 'draft' } });
  const afterDraft = await call(venues, { method: 'POST', auth: s.admin, body: { venue: 'Draft Hall' } });
  assert.notEqual(afterDraft.body.id, draft.body.id);
});

test('organizers too', async () => {
  const orgs = `${s.root}evt/events/v1/organizers`;
  const first = await call(orgs, { method: 'POST', auth: s.admin, body: { organizer: 'Dup Org', email: 'org@example.com' } });
  const again = await call(orgs, { method: 'POST', auth: s.admin, body: { organizer: 'Dup Org' } });
  assert.equal(again.body.id, first.body.id);
  const other = await call(orgs, { method: 'POST', auth: s.admin, body: { organizer: 'Dup Org', email: 'other@example.com' } });
  assert.notEqual(other.body.id, first.body.id);
});

test("an organizer's e-mail is kept as given, as the original (no format check)", async () => {
  const odd = await call(`${s.root}evt/events/v1/organizers`, {
    method: 'POST',
    auth: s.admin,
    body: { organizer: 'Odd mail', email: 'not-an-email' },
  });
  assert.equal(odd.status, 201);
  assert.equal(odd.body.email, 'not-an-email');
});
