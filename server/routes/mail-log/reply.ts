import type { Result } from '../../kernel/result.ts';
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

/**
 * A Post SMTP error that is also the contract's envelope: `{code, message, data: {status, ...}}` for every
 * client of this server, plus `success: false` and the plugin's `data.error`/`data.message` for the app.
 */
export function jsonError(data: Record<string, unknown>, status: number): Result {
  const text = String(data.error ?? data.message ?? 'Request failed.');
  const code = `mail_log_${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')}`;
  return { status, body: { code, message: text, data: { status, ...data }, success: false }, isError: status >= 400 };
}

export function fail(data: Record<string, unknown>, status: number): Reply {
  return new Reply(jsonError(data, status));
}

/** Turns a thrown `Reply` into its result; everything else propagates (HttpError envelopes, faults). */
export function replies<A extends Args>(h: Handler<A>): Handler<A> {
  return async (input, ctx) => {
    try {
      const r = await h(input, ctx);
      return r instanceof Promise ? r.catch(unwrap) : r;
    } catch (e) {
      return unwrap(e);
    }
  };
}

function unwrap(e: unknown): Result {
  if (e instanceof Reply) return e.result;
  throw e;
}
