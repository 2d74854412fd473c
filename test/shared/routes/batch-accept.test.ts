import { test } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { z } from 'zod';
import { acceptBatchRequests, BatchItem, MAX_BATCH } from '../../../shared/routes/core.ts';
import { SLOW } from '../../../shared/http/params.ts';

const schema = z.array(BatchItem).max(MAX_BATCH);

test('the quick check of batch requests answers exactly as the schema on every batch it takes', () => {
  const json = fc.jsonValue({ maxDepth: 2 });
  const item = fc.record(
    {
      method: fc.oneof(fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'patch', ''), fc.integer()),
      path: fc.oneof(fc.constantFrom('/evt/tickets/v1/attendees/5', '/x?y=1'), fc.string({ maxLength: 10 }), fc.integer()),
      body: fc.oneof(fc.dictionary(fc.constantFrom('check_in', 'nonce', 'a', 'constructor', '__proto__'), json, { maxKeys: 4 }), json),
      headers: fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
      extra: json,
    },
    { requiredKeys: [] },
  );
  let quick = 0;
  fc.assert(
    fc.property(fc.oneof(fc.array(item, { maxLength: 27 }), json), (raw) => {
      // Through JSON, as a request body arrives.
      const v = JSON.parse(JSON.stringify(raw ?? null)) as unknown;
      const q = acceptBatchRequests(v);
      if (q === SLOW) return;
      quick++;
      const full = schema.safeParse(v);
      assert.ok(full.success, `schema refused ${JSON.stringify(v)}`);
      assert.deepStrictEqual(q, full.data);
    }),
    { numRuns: 3000 },
  );
  assert.ok(quick > 50, `only ${quick} batches took the quick path`);
  const kiosk = [{ method: 'PATCH', path: '/evt/tickets/v1/attendees/5', body: { check_in: true, nonce: 'n'.repeat(16) } }];
  assert.deepStrictEqual(acceptBatchRequests(kiosk), kiosk);
});
