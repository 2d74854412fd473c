import { z } from 'zod';

/**
 * Route parameters in the WordPress REST style, built on Zod.
 *
 * Each parameter is a Zod schema that takes the raw value as WordPress would see it (a string from the
 * query or a form body, or any JSON value) and coerces it the way `rest_sanitize_value_from_schema` does:
 * "12" -> 12 for integers, "true"/"1" -> true for booleans, CSV -> array for lists. The `base` schema is the
 * plain Zod type of the coerced value; the index and the OpenAPI document are generated from it.
 */

export type ArgJson = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: readonly (string | number | boolean)[];
  items?: ArgJson;
  properties?: Record<string, ArgJson>;
  additionalProperties?: boolean | ArgJson;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  required?: boolean | string[];
  oneOf?: ArgJson[];
  [k: string]: unknown;
};

/** How a failed parameter is reported: `schema` (core type checks, with `details`) or `callback` ("Invalid parameter."). */
export type FailureStyle = 'schema' | 'callback';

export interface Param<T = unknown, Present extends boolean = boolean> {
  readonly schema: z.ZodType<T>;
  readonly base: z.ZodType;
  readonly required: boolean;
  readonly default?: unknown;
  readonly description?: string;
  readonly style: FailureStyle;
  /** Where the OpenAPI document says the parameter travels. */
  readonly in?: 'path' | 'query' | 'body';
  /** Extra JSON-schema keywords shown in the index (e.g. `format`). */
  readonly extra?: ArgJson;
  /**
   * A quick check for the common, plainly valid value: returns what `schema` would return for it, or `SLOW`
   * when the value needs the schema (coercion, or an error with core's message). Requests validate five or
   * six parameters each; Zod's pipeline costs a microsecond or two per parameter, this is a type and length test.
   */
  readonly accept?: (v: unknown) => unknown;
  /** Type-level marker: the handler always receives a value (required, or has a default). */
  readonly __present?: Present;
}

/** `Param.accept`'s answer for a value the schema must look at. */
export const SLOW: unique symbol = Symbol('slow');

export type ParamValue<P> = P extends Param<infer T, infer Present> ? (Present extends true ? T : T | undefined) : never;

/** The WordPress error a failed value maps to; `%s` in the message stands for the parameter name. */
export interface WpIssue {
  code: string;
  message: string;
}

const WP = 'wp';

/** Raise a WordPress-style issue from inside a Zod refinement or transform. */
export function wpIssue(ctx: z.RefinementCtx, code: string, message: string): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message, params: { [WP]: code } });
  return z.NEVER;
}

function joinOr(values: readonly unknown[]): string {
  const s = values.map(String);
  if (s.length <= 1) return s.join('');
  if (s.length === 2) return `${s[0]} and ${s[1]}`;
  return `${s.slice(0, -1).join(', ')}, and ${s[s.length - 1]}`;
}

/** Translate the first Zod issue into the WordPress code and message core would give. */
export function toWpIssue(issue: z.core.$ZodIssue): WpIssue {
  const params = (issue as { params?: Record<string, unknown> }).params;
  if (params && typeof params[WP] === 'string') return { code: params[WP] as string, message: issue.message };
  const path = issue.path.length ? `%s${issue.path.map((p) => `[${String(p)}]`).join('')}` : '%s';
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.path.length > 0 && /received undefined/.test(issue.message)) {
        const prop = String(issue.path[issue.path.length - 1]);
        const parent =
          '%s' +
          issue.path
            .slice(0, -1)
            .map((p) => `[${String(p)}]`)
            .join('');
        return { code: 'rest_property_required', message: `${prop} is a required property of ${parent}.` };
      }
      const expected = issue.expected === 'number' ? 'number' : issue.expected;
      return { code: 'rest_invalid_type', message: `${path} is not of type ${expected}.` };
    }
    case 'too_small':
      if (issue.origin === 'array') return { code: 'rest_too_few_items', message: `${path} must contain at least ${issue.minimum} items.` };
      if (issue.origin === 'string') return { code: 'rest_too_short', message: `${path} must be at least ${issue.minimum} characters long.` };
      return { code: 'rest_out_of_bounds', message: `${path} must be greater than or equal to ${issue.minimum}` };
    case 'too_big':
      if (issue.origin === 'array') return { code: 'rest_too_many_items', message: `${path} must contain at most ${issue.maximum} items.` };
      if (issue.origin === 'string') return { code: 'rest_too_long', message: `${path} must be at most ${issue.maximum} characters long.` };
      return { code: 'rest_out_of_bounds', message: `${path} must be less than or equal to ${issue.maximum}` };
    case 'invalid_value':
      return issue.values.length === 1
        ? { code: 'rest_not_in_enum', message: `${path} is not ${String(issue.values[0])}.` }
        : { code: 'rest_not_in_enum', message: `${path} is not one of ${joinOr(issue.values)}.` };
    case 'invalid_format':
      return { code: 'rest_invalid_param', message: `Invalid ${issue.format}.` };
    default:
      return { code: 'rest_invalid_param', message: issue.message || 'Invalid parameter.' };
  }
}

interface Common<T> {
  description?: string;
  required?: boolean;
  default?: T;
  in?: 'path' | 'query' | 'body';
  style?: FailureStyle;
  extra?: ArgJson;
}

type Present<O> = O extends { required: true } ? true : O extends { default: unknown } ? true : false;

function make<T, O extends Common<T>>(schema: z.ZodType<T>, base: z.ZodType, o: O, accept?: (v: unknown) => unknown): Param<T, Present<O>> {
  return {
    schema,
    base,
    accept,
    required: o.required ?? false,
    default: o.default,
    description: o.description,
    style: o.style ?? 'schema',
    in: o.in,
    extra: o.extra,
  };
}

// ---- coercions matching rest_sanitize_value_from_schema ----

function toInteger(v: unknown): unknown {
  if (typeof v === 'string' && /^\s*-?\d+(\.0*)?\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }
  return v;
}

function toNumber(v: unknown): unknown {
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return v;
}

function toBoolean(v: unknown): unknown {
  if (typeof v === 'string') {
    const s = v.toLowerCase();
    if (s === 'true' || s === '1') return true;
    if (s === 'false' || s === '0') return false;
  }
  if (v === 1) return true;
  if (v === 0) return false;
  return v;
}

/** WordPress `wp_parse_list`: arrays stay, strings split on commas and whitespace. */
export function parseList(v: unknown): unknown {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return v.split(/[\s,]+/).filter((s) => s !== '');
  if (typeof v === 'number') return [v];
  if (v && typeof v === 'object') return Object.values(v as Record<string, unknown>);
  return v;
}

// ---- builders ----

type IntOpts = Common<number> & { minimum?: number; maximum?: number };

export function integer<O extends IntOpts>(o: O = {} as O): Param<number, Present<O>> {
  let base = z.number().int();
  if (o.minimum !== undefined) base = base.min(o.minimum);
  if (o.maximum !== undefined) base = base.max(o.maximum);
  // Checked by hand so a fraction or a word reads "is not of type integer." as in core, not "number".
  const schema = z.preprocess(
    toInteger,
    z.unknown().transform((v, ctx): number => {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) return wpIssue(ctx, 'rest_invalid_type', '%s is not of type integer.');
      if (o.minimum !== undefined && v < o.minimum) return wpIssue(ctx, 'rest_out_of_bounds', `%s must be greater than or equal to ${o.minimum}`);
      if (o.maximum !== undefined && v > o.maximum) return wpIssue(ctx, 'rest_out_of_bounds', `%s must be less than or equal to ${o.maximum}`);
      return v;
    }),
  );
  const accept = (v: unknown): unknown => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || (o.minimum !== undefined && n < o.minimum) || (o.maximum !== undefined && n > o.maximum)) return SLOW;
    return n;
  };
  return make(schema as z.ZodType<number>, base, o, accept);
}

export function number<O extends Common<number> & { minimum?: number; maximum?: number }>(o: O = {} as O): Param<number, Present<O>> {
  let base = z.number();
  if (o.minimum !== undefined) base = base.min(o.minimum);
  if (o.maximum !== undefined) base = base.max(o.maximum);
  return make(z.preprocess(toNumber, base), base, o);
}

export function boolean<O extends Common<boolean>>(o: O = {} as O): Param<boolean, Present<O>> {
  const base = z.boolean();
  return make(z.preprocess(toBoolean, base), base, o, (v) => (v === true || v === false ? v : SLOW));
}

type StrOpts = Common<string> & { format?: string; maxLength?: number; minLength?: number };

export function string<O extends StrOpts>(o: O = {} as O): Param<string, Present<O>> {
  let base = z.string();
  if (o.maxLength !== undefined) base = base.max(o.maxLength);
  if (o.minLength !== undefined) base = base.min(o.minLength);
  const schema = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), base);
  const accept = (v: unknown): unknown =>
    typeof v === 'string' && (o.maxLength === undefined || v.length <= o.maxLength) && (o.minLength === undefined || v.length >= o.minLength)
      ? v
      : SLOW;
  return make(schema, base, { ...o, extra: { ...(o.format ? { format: o.format } : {}), ...o.extra } }, accept);
}

export function enumString<const E extends readonly [string, ...string[]], O extends Common<E[number]>>(
  values: E,
  o: O = {} as O,
): Param<E[number], Present<O>> {
  const base = z.enum(values as unknown as [E[number], ...E[number][]]);
  return make(base as unknown as z.ZodType<E[number]>, base, o);
}

/**
 * Items a list parameter holds at most, and characters a search text (CONTRACT section 3): past them the
 * parameter is invalid (400 rest_invalid_param), before any work is done on it.
 */
export const MAX_LIST_ITEMS = 1000;
export const MAX_SEARCH_CHARS = 1000;

/** A list cut to one item past the bound: the bound's check then fails without converting 330,000 items. */
const bounded = (l: unknown[]): unknown[] => (l.length > MAX_LIST_ITEMS ? l.slice(0, MAX_LIST_ITEMS + 1) : l);

/** An ID list: an array or a comma-separated string of positive integers, at most MAX_LIST_ITEMS of them. */
export function idList<O extends Common<number[]>>(o: O = {} as O): Param<number[], Present<O>> {
  const base = z.array(z.number().int().min(0)).max(MAX_LIST_ITEMS);
  const schema = z.preprocess((v) => {
    const l = parseList(v);
    return Array.isArray(l) ? bounded(l).map(toInteger) : l;
  }, base);
  return make(schema, base, o);
}

export function stringList<O extends Common<string[]>>(o: O = {} as O): Param<string[], Present<O>> {
  const base = z.array(z.string()).max(MAX_LIST_ITEMS);
  const schema = z.preprocess((v) => {
    const l = parseList(v);
    return Array.isArray(l) ? bounded(l).map((x) => (typeof x === 'number' ? String(x) : x)) : l;
  }, base);
  return make(schema, base, o);
}

export function object<O extends Common<Record<string, unknown>>>(o: O = {} as O): Param<Record<string, unknown>, Present<O>> {
  const base = z.record(z.string(), z.unknown());
  const schema = z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? {} : v), base);
  return make(schema as z.ZodType<Record<string, unknown>>, base, o);
}

export function array<O extends Common<unknown[]>>(o: O = {} as O): Param<unknown[], Present<O>> {
  const base = z.array(z.unknown());
  const schema = z.preprocess((v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.values(v) : v), base);
  return make(schema, base, o);
}

/** An untyped argument: any value passes, as a WordPress arg without `type`. */
export function any<O extends Common<unknown>>(o: O = {} as O): Param<unknown, Present<O>> {
  const base = z.unknown();
  return make(base, base, o);
}

/** A parameter whose schema is written by hand: `schema` coerces and validates, `base` documents. */
export function custom<T, O extends Common<T>>(schema: z.ZodType<T>, base: z.ZodType, o: O, accept?: (v: unknown) => unknown): Param<T, Present<O>> {
  return make(schema, base, o, accept);
}

/** JSON-schema keywords WordPress shows for an arg in the index. */
export function argJson(p: Param): ArgJson {
  const js = z.toJSONSchema(p.base, { unrepresentable: 'any', io: 'input' }) as Record<string, unknown>;
  delete js.$schema;
  const out: ArgJson = {};
  if (p.description) out.description = p.description;
  if (p.default !== undefined) out.default = p.default;
  for (const [k, v] of Object.entries(js)) {
    if (k === 'exclusiveMinimum' || k === 'exclusiveMaximum' || (k === 'additionalProperties' && v === false)) continue;
    if (k === 'propertyNames') continue;
    out[k] = v;
  }
  // Zod marks unbounded integers with the safe-integer range; WordPress shows no bound.
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.items && typeof out.items === 'object') {
    const items = out.items as ArgJson;
    if (items.minimum === Number.MIN_SAFE_INTEGER) delete items.minimum;
    if (items.maximum === Number.MAX_SAFE_INTEGER) delete items.maximum;
  }
  if (p.extra) Object.assign(out, p.extra);
  out.required = p.required;
  return out;
}
