import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { boolean, enumString, idList, integer, number, string, stringList, argJson, SLOW, type Param } from '../../../shared/http/params.ts';
import { validateArgs } from '../../../server/http/validate.ts';
import { HttpError } from '../../../server/kernel/errors.ts';

function fails(args: Parameters<typeof validateArgs>[0], params: Record<string, unknown>) {
  try {
    validateArgs(args, params);
  } catch (e) {
    assert.ok(e instanceof HttpError);
    return e.body();
  }
  assert.fail('expected a validation error');
}

describe('WordPress-style parameters', () => {
  test('coercion as rest_sanitize_value_from_schema does', () => {
    const out = validateArgs(
      { i: integer(), n: number(), b: boolean(), f: boolean(), l: idList(), s: stringList(), t: string(), e: enumString(['asc', 'desc']) },
      { i: '12', n: '1.5', b: 'true', f: '0', l: '3, 4,5', s: ['a', 2], t: 42, e: 'desc' },
    );
    assert.deepEqual(out, { i: 12, n: 1.5, b: true, f: false, l: [3, 4, 5], s: ['a', '2'], t: '42', e: 'desc' });
  });

  test('core messages and codes; every invalid parameter reported together', () => {
    const body = fails(
      { i: integer({ minimum: 1 }), b: boolean(), e: enumString(['a', 'b', 'c']), one: enumString(['x']) },
      { i: '0', b: 'yes', e: 'd', one: 'y' },
    );
    assert.equal(body.code, 'rest_invalid_param');
    assert.equal(body.message, 'Invalid parameter(s): i, b, e, one');
    assert.deepEqual(body.data.params, {
      i: 'i must be greater than or equal to 1',
      b: 'b is not of type boolean.',
      e: 'e is not one of a, b, and c.',
      one: 'one is not x.',
    });
    assert.equal((body.data.details as Record<string, { code: string }>).e.code, 'rest_not_in_enum');
  });

  test('missing required parameters come first, listed together; defaults fill the rest', () => {
    const body = fails({ a: string({ required: true }), b: integer({ required: true }), c: integer({ minimum: 5 }) }, { c: 1 });
    assert.deepEqual(body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): a, b', data: { status: 400, params: ['a', 'b'] } });
    assert.deepEqual(validateArgs({ p: integer({ default: 3 }), q: stringList({ default: ['publish'] }) }, {}), { p: 3, q: ['publish'] });
  });

  test('callback-style parameters read "Invalid parameter." with no details', () => {
    const body = fails({ page: integer({ minimum: 1, style: 'callback' }) }, { page: 'x' });
    assert.deepEqual(body.data, { status: 400, params: { page: 'Invalid parameter.' }, details: [] });
  });

  test('huge and fractional numbers are not integers', () => {
    for (const v of ['1.5', '99999999999999999999', 1e300, 'NaN', '']) {
      const body = fails({ id: integer() }, { id: v });
      assert.equal((body.data.params as Record<string, string>).id, 'id is not of type integer.', String(v));
    }
  });

  test('argJson shows only JSON-schema keywords plus required, without safe-integer bounds', () => {
    assert.deepEqual(argJson(integer({ description: 'x', default: 1, minimum: 1 })), {
      description: 'x',
      default: 1,
      type: 'integer',
      minimum: 1,
      required: false,
    });
    assert.deepEqual(argJson(idList({ required: true })), { type: 'array', items: { type: 'integer', minimum: 0 }, maxItems: 1000, required: true });
    assert.deepEqual(argJson(enumString(['a', 'b'])), { type: 'string', enum: ['a', 'b'], required: false });
  });

  test('the quick check agrees with the schema on every value it accepts, and takes the plain ones', () => {
    const params: Param[] = [integer(), integer({ minimum: 1, maximum: 100 }), boolean(), string(), string({ minLength: 16, maxLength: 200 })];
    const values = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.string({ maxLength: 220 }),
      fc.stringMatching(/^\s*-?\d{1,20}(\.0*)?\s*$/),
      fc.constantFrom(null, undefined, '', '0', '1', 'true', 'false', -0, 2 ** 53, [], {}, ['1']),
    );
    fc.assert(
      fc.property(values, (v) => {
        for (const p of params) {
          const quick = p.accept!(v);
          if (quick === SLOW) continue;
          const full = p.schema.safeParse(v);
          assert.ok(full.success, `schema refused ${JSON.stringify(v)} the quick check took`);
          assert.ok(Object.is(full.data, quick), `quick ${String(quick)} vs schema ${String(full.data)}`);
        }
      }),
      { numRuns: 3000 },
    );
    // The plain values a kiosk sends do take the quick path.
    assert.equal(integer({ minimum: 1 }).accept!(5), 5);
    assert.equal(integer({ minimum: 1 }).accept!('5'), 5);
    assert.equal(boolean().accept!(true), true);
    assert.equal(string({ minLength: 16 }).accept!('a-nonce-of-16-chars'), 'a-nonce-of-16-chars');
    assert.equal(string({ minLength: 16 }).accept!('short'), SLOW);
  });
});
