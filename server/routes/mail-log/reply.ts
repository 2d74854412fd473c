import type { Result } from '../../http/result.ts';
import { HttpError } from '../../http/errors.ts';
import type { Handler } from '../../http/registry.ts';
import type { Args } from '../../../shared/http/route.ts';

/**
 * Post SMTP answers with `wp_send_json_success` / `wp_send_json_error`: `{"success": bool, "data": ...}`
 * with the status it chooses. A `Reply` thrown anywhere in a handler becomes that answer (nothing was
 * written before any of them is thrown, so committing the surrounding transaction changes nothing).
 */
export class Reply extends Error {
  constructor(readonly result: Result) {
    super('reply');
  }
}

export const jsonSuccess = (data: unknown, status = 200): Result => ({ status, body: { success: true, data } });
export const jsonError = (data: unknown, status: number): Result => ({ status, body: { success: false, data }, isError: status >= 400 });

export function fail(data: Record<string, unknown>, status: number): Reply {
  return new Reply(jsonError(data, status));
}

/** Turns a thrown `Reply` into its result; everything else propagates (HttpError envelopes, faults). */
export function replies<A extends Args>(h: Handler<A>): Handler<A> {
  return (input, ctx) => {
    try {
      const r = h(input, ctx);
      return r instanceof Promise ? r.catch(unwrap) : r;
    } catch (e) {
      return unwrap(e);
    }
  };
}

function unwrap(e: unknown): Result {
  if (e instanceof Reply) return e.result;
  if (e instanceof HttpError) throw e;
  throw e;
}
