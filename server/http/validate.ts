import type { Args } from '../../shared/http/route.ts';
import type { Param } from '../../shared/http/params.ts';
import { SLOW, toWpIssue } from '../../shared/http/params.ts';
import { HttpError } from '../kernel/errors.ts';

const lists = new WeakMap<Args, [string, Param][]>();

/** A route's arguments as a list, made once per route (every request walks it twice). */
function argList(args: Args): [string, Param][] {
  let list = lists.get(args);
  if (!list) lists.set(args, (list = Object.entries(args)));
  return list;
}

/**
 * Core's order of checks: every missing required parameter first, then every invalid one reported together,
 * then defaults applied. Returns the coerced input or throws the one `rest_*` error core would send.
 */
export function validateArgs(args: Args, params: Record<string, unknown>): Record<string, unknown> {
  const list = argList(args);
  const missing: string[] = [];
  for (const [name, p] of list) {
    if (p.required && (params[name] === undefined || params[name] === null)) missing.push(name);
  }
  if (missing.length) {
    throw new HttpError(400, 'rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, { params: missing });
  }
  const out: Record<string, unknown> = {};
  const invalid: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const [name, p] of list) {
    const raw = params[name];
    if (raw === undefined || raw === null) {
      // Object defaults are copied so that no handler can change the route table's own.
      if (p.default !== undefined) out[name] = p.default !== null && typeof p.default === 'object' ? structuredClone(p.default) : p.default;
      continue;
    }
    if (p.accept) {
      const quick = p.accept(raw);
      if (quick !== SLOW) {
        out[name] = quick;
        continue;
      }
    }
    const r = p.schema.safeParse(raw);
    if (r.success) {
      out[name] = r.data;
      continue;
    }
    if (p.style === 'callback') {
      invalid[name] = 'Invalid parameter.';
      continue;
    }
    const issue = toWpIssue(r.error.issues[0]);
    const message = issue.message.replaceAll('%s', name);
    invalid[name] = message;
    // Core's schema validators attach `{param}` to type errors only; every other error (enum, bounds, items,
    // pattern, format) carries no data, which the envelope sends as null.
    details[name] = { code: issue.code, message, data: issue.code === 'rest_invalid_type' ? { param: name } : null };
  }
  const names = Object.keys(invalid);
  if (names.length) {
    throw new HttpError(400, 'rest_invalid_param', `Invalid parameter(s): ${names.join(', ')}`, {
      params: invalid,
      // PHP serialises an empty details array as [].
      details: Object.keys(details).length ? details : [],
    });
  }
  return out;
}
