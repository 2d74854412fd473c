import fc from 'fast-check';
import qs from 'qs';
import type { Operation, Schema } from './openapi-ops.ts';

/**
 * fast-check arbitraries for requests to one documented operation: valid values drawn from each parameter's
 * schema, and hostile ones (wrong types, huge numbers, unknown IDs, garbage bodies, missing required).
 */

export type Role = 'anonymous' | 'door' | 'admin';

export interface FuzzRequest {
  label: string;
  role: Role;
  kind: string;
  method: string;
  /** Path and query under the interface root, e.g. `evt/tickets/v1/attendees/12?x=1`. */
  url: string;
  contentType: string | null;
  body: string | null;
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '1e308',
  '9007199254740993',
  '99999999999999999999999999',
  "' OR 1=1 --",
  '"; DROP TABLE posts; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '\u0000',
  '\uFFFF',
  '__proto__',
  'constructor',
  '{{7*7}}',
  "=cmd|' /C calc'!A0",
  '2030-02-30 25:61:61',
  '0000-00-00 00:00:00',
  'tomorrow',
  '😀'.repeat(50),
  'a'.repeat(5000),
  ',,,',
  '1,2,abc',
  '[]',
  '{}',
  'true',
  'false',
  'dsk_1_0000',
  'en',
  'et',
  'xx',
];

export function hostileValue(ids: readonly number[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(0, -1, -2147483649, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, 0.5, Number.MAX_SAFE_INTEGER),
    fc.integer({ min: 100_000_000, max: 2 ** 40 }),
    fc.constantFrom(...ids),
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)), { maxLength: 5 }),
    fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'constructor', '0', 'id'), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), {
      maxKeys: 3,
    }),
    fc.jsonValue({ maxDepth: 3 }),
  );
}

const DATES = ['2030-01-01 18:00:00', '2030-01-01T18:00:00+02:00', '2026-11-22', 'now', 'tomorrow', '2029-12-31 23:59:59', '1999-01-01'];

function typeOf(s: Schema): string {
  return Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? 'string') : (s.type ?? '');
}

/** A value that satisfies `s` (as far as a schema says), with IDs from `ids` for ID-like names. */
export function validValue(s: Schema, name: string, ids: readonly number[], depth = 0): fc.Arbitrary<unknown> {
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  if (s.oneOf?.length || s.anyOf?.length) return fc.oneof(...(s.oneOf ?? s.anyOf)!.map((x) => validValue(x, name, ids, depth + 1)));
  const idLike = /(^|_)(id|ids|post_id|include|exclude|event|venue|organizer|ticket|attendee|order|form)s?$/.test(name);
  switch (typeOf(s)) {
    case 'integer':
      if (idLike) return fc.oneof(fc.constantFrom(...ids), fc.integer({ min: 1, max: 50 }));
      return fc.integer({ min: s.minimum ?? 0, max: Math.min(s.maximum ?? 200, (s.minimum ?? 0) + 200) });
    case 'number':
      return fc.double({ min: s.minimum ?? 0, max: s.maximum ?? 1000, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', '1', '0'));
    case 'array':
      if (idLike) return fc.array(fc.constantFrom(...ids), { maxLength: 4 });
      return depth > 2 ? fc.constant([]) : fc.array(validValue(s.items ?? {}, name, ids, depth + 1), { maxLength: 4 });
    case 'object': {
      if (depth > 2 || !s.properties) return fc.constant({});
      const props = Object.entries(s.properties).map(([k, v]) => [k, validValue(v, k, ids, depth + 1)] as const);
      return fc.record(Object.fromEntries(props), { requiredKeys: (s.required ?? []).filter((k) => k in s.properties!) });
    }
    case 'string':
      if (s.format === 'date-time' || s.format === 'date') return fc.constantFrom(...DATES);
      if (s.format === 'email') return fc.constantFrom('guest@example.test', 'x@y.z');
      if (s.format === 'uri') return fc.constantFrom('http://127.0.0.1/nothing', 'https://example.invalid/x');
      if (idLike) return fc.constantFrom(...ids.map(String));
      return fc.oneof(
        fc.constantFrom('Door', 'test', 'general admission', 'a,b', 'publish', 'draft'),
        fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? 40, 40)) }),
      );
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  }
}

const KINDS = ['valid', 'valid', 'invalid', 'invalid', 'missing', 'unknown-id', 'garbage-body', 'form'] as const;

/** Requests for one operation. */
export function requestArb(op: Operation, ids: readonly number[], unknownIds: readonly number[]): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const fields = [
    ...op.params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, required: p.required, schema: p.schema })),
    ...Object.entries(op.body?.properties ?? {}).map(([name, schema]) => ({ name, required: op.body!.required.includes(name), schema })),
  ];
  const values = fc.record(Object.fromEntries(fields.map((f) => [f.name, validValue(f.schema, f.name, ids)])), { requiredKeys: [] });
  const present = fc.record(Object.fromEntries(fields.map((f) => [f.name, f.required ? fc.constant(true) : fc.boolean()])));
  const hostile = fc.array(
    fc.tuple(fc.constantFrom(...(fields.length ? fields.map((f) => f.name) : ['foo']), 'foo', '__proto__'), hostileValue(ids)),
    { minLength: 1, maxLength: 3 },
  );
  return fc
    .record({
      role: fc.constantFrom<Role>('anonymous', 'door', 'admin'),
      kind: fc.constantFrom(...KINDS),
      values,
      present,
      hostile,
      pathIds: fc.array(fc.constantFrom(...ids), { minLength: pathParams.length, maxLength: pathParams.length }),
      badId: fc.constantFrom(...unknownIds),
      garbage: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.constantFrom('{', '{"a":', '[1,2', 'null', '"x"', '{"__proto__":{"x":1}}', '\u0000'),
      ),
    })
    .map(({ role, kind, values, present, hostile, pathIds, badId, garbage }) => {
      const params: Record<string, unknown> = {};
      for (const f of fields) if (present[f.name] && values[f.name] !== undefined) params[f.name] = values[f.name];
      if (kind === 'invalid') for (const [k, v] of hostile) params[k] = v;
      if (kind === 'missing') for (const f of fields) if (f.required) delete params[f.name];
      let path = op.path;
      pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, String(kind === 'unknown-id' ? badId : pathIds[i]));
      });
      const url = `${op.ns}${path === '/' ? '' : path}`;
      const hasBody = op.body !== null && op.method !== 'GET' && op.method !== 'DELETE';
      if (kind === 'garbage-body' && !hasBody && (op.method === 'GET' || op.method === 'DELETE')) {
        // No body on a read: the garbage goes into the query string instead (brackets, stray separators).
        return {
          label: op.label,
          role,
          kind,
          method: op.method,
          url: `${url}?${encodeURI(garbage.replace(/[\uD800-\uDFFF]/g, ''))}`,
          contentType: null,
          body: null,
        };
      }
      if (kind === 'garbage-body') {
        return { label: op.label, role, kind, method: op.method, url, contentType: 'application/json', body: garbage };
      }
      if (!hasBody) {
        const q = qs.stringify(params);
        return { label: op.label, role, kind, method: op.method, url: q ? `${url}?${q}` : url, contentType: null, body: null };
      }
      if (kind === 'form') {
        return { label: op.label, role, kind, method: op.method, url, contentType: 'application/x-www-form-urlencoded', body: qs.stringify(params) };
      }
      return { label: op.label, role, kind, method: op.method, url, contentType: 'application/json', body: JSON.stringify(params) };
    });
}

/** `POST /batch/v1` with items drawn from the other operations (sometimes more than the 25 allowed). */
export function batchArb(ops: Operation[], ids: readonly number[], unknownIds: readonly number[]): fc.Arbitrary<FuzzRequest> {
  const item = fc.constantFrom(...ops).chain((op) => requestArb(op, ids, unknownIds));
  return fc
    .record({
      role: fc.constantFrom<Role>('anonymous', 'door', 'admin'),
      items: fc.array(item, { minLength: 0, maxLength: 28 }),
      validation: fc.constantFrom('normal', 'require-all-validate', 'bogus', undefined),
    })
    .map(({ role, items, validation }) => {
      const requests = items.map((r) => {
        const [p, q] = r.url.split('?');
        let body: unknown;
        if (r.body !== null && r.contentType === 'application/json') {
          try {
            body = JSON.parse(r.body);
          } catch {
            body = r.body;
          }
        }
        return { method: r.method, path: `/${p}${q ? `?${q}` : ''}`, ...(body !== undefined ? { body } : {}) };
      });
      return {
        label: 'POST /batch/v1',
        role,
        kind: 'batch',
        method: 'POST',
        url: 'batch/v1',
        contentType: 'application/json',
        body: JSON.stringify({ ...(validation ? { validation } : {}), requests }),
      };
    });
}
