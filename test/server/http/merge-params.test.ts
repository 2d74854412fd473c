import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mergeParams, type RestRequest } from '../../../server/http/dispatch.ts';

const req = (over: Partial<RestRequest>): RestRequest => ({
  method: 'POST',
  route: '/x',
  query: {},
  body: {},
  json: null,
  jsonError: false,
  headers: {},
  ...over,
});

test('parameters merge in core precedence: JSON body, form body, query string, URL parameters', () => {
  const groups = /^\/a\/(?<id>\d+)\/(?<b>\w+)$/.exec('/a/7/path')!.groups!;
  const out = mergeParams(req({ query: { a: 'query', b: 'query', c: 'query' }, body: { a: 'form', b: 'form' }, json: { a: 'json' } }), groups);
  assert.deepEqual(out, { id: '7', b: 'form', a: 'json', c: 'query' });
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
});

test("a __proto__ key is data, never the merged object's prototype", () => {
  const json = JSON.parse('{"__proto__": {"polluted": true}, "id": 3}') as Record<string, unknown>;
  const out = mergeParams(req({ json }), {});
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal((out as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(Object.keys(out), ['__proto__', 'id']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
});
