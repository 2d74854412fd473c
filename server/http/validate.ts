import type { Args } from '../../shared/http/route.ts';
import { toWpIssue } from '../../shared/http/params.ts';
import { HttpError } from './errors.ts';

/**
 * Core's order of checks: every missing required parameter first, then every invalid one reported together,
 * then defaults applied. Returns the coerced input or throws the one `rest_*` error core would send.
 */
export function validateArgs(args: Args, params: Record<string, unknown>): Record<string, unknown> {
  const missing: string[] = [];
  for (const [name, p] of Object.entries(args)) {
    if (p.required && (params[name] === undefined || params[name] === null)) missing.push(name);
  }
  if (missing.length) {
    throw new HttpError(400, 'rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, { params: missing });
  }
  const out: Record<string, unknown> = {};
  const invalid: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(args)) {
    const raw = params[name];
    if (raw === undefined || raw === null) {
      if (p.default !== undefined) out[name] = structuredClone(p.default);
      continue;
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
    details[name] = { code: issue.code, message, data: { param: name } };
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
