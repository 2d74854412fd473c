import type { Args, Input } from '../../../shared/http/route.ts';
import { enumString, integer, MAX_SEARCH_CHARS, string } from '../../../shared/http/params.ts';
import type { Ctx } from '../../kernel/context.ts';
import { validateArgs } from '../../http/validate.ts';

/**
 * The original declares no args on these routes and reads parameters in its callbacks; so do we, with the
 * same WordPress validation (missing/invalid parameter errors) applied once the caller is authorised.
 */
export function readParams<A extends Args>(ctx: Ctx, args: A): Input<A> {
  return validateArgs(args, ctx.req.params) as Input<A>;
}

export const logListArgs = {
  start: integer({ description: 'Offset', minimum: 0, default: 0 }),
  end: integer({ description: 'How many rows', minimum: 1, maximum: 100, default: 25 }),
  filter: enumString(['all', 'success', 'failed', 'in_queue'], { description: 'Status filter', default: 'all' as const }),
  query: string({ description: 'Search text', default: '', maxLength: MAX_SEARCH_CHARS }),
};

export const idArg = { id: integer({ description: 'Log ID', required: true, minimum: 1 }) };

/** A request header as WordPress's `get_header` reads it: `fcm_token` and `fcm-token` are the same header. */
export function header(ctx: Ctx, name: string): string | undefined {
  const h = ctx.req.headers;
  const v = h[name.toLowerCase()] ?? h[name.toLowerCase().replace(/_/g, '-')];
  return Array.isArray(v) ? v[0] : v;
}
