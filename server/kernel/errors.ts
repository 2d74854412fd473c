/**
 * The one error type of the server. Thrown anywhere below a handler, it becomes the WordPress envelope
 * `{code, message, data: {status, ...}}` through `errorResult` and the one writer, `writeResult` in `http/outgoing.ts`.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly data: Record<string, unknown>;
  /** WP_Error's further data (`additional_data` after `data`), e.g. core's `term_exists` repeats the term ID. */
  readonly additional?: unknown[];
  /** Headers the answer carries (e.g. an `Allow` narrower than the route's, as WordPress checks it per ID). */
  answerHeaders?: Record<string, string>;

  constructor(status: number, code: string, message: string, data: Record<string, unknown> = {}, additional?: unknown[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
    this.additional = additional;
  }

  body(): { code: string; message: string; data: Record<string, unknown>; additional_data?: unknown[] } {
    const out = { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
    return this.additional ? { ...out, additional_data: this.additional } : out;
  }
}

export const noRoute = () => new HttpError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

export const forbidden = (anonymous: boolean, message = 'Sorry, you are not allowed to do that.') =>
  new HttpError(anonymous ? 401 : 403, 'rest_forbidden', message);

export const internalError = () => new HttpError(500, 'rest_internal_error', 'An unexpected error occurred.');

/**
 * The `rest_invalid_param` error for one parameter, as core reports a failed validate callback: with a
 * detail entry when the check produced a coded error, `Invalid parameter.` without one otherwise.
 */
export function invalidParam(name: string, message = 'Invalid parameter.', code?: string): HttpError {
  return new HttpError(400, 'rest_invalid_param', `Invalid parameter(s): ${name}`, {
    params: { [name]: message },
    details: code ? { [name]: { code, message, data: null } } : [],
  });
}
