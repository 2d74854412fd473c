/**
 * The one error type of the server. Thrown anywhere below a handler, it becomes the WordPress envelope
 * `{code, message, data: {status, ...}}` through `errorResult` and the one writer, `write` in `app.ts`.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly data: Record<string, unknown>;

  constructor(status: number, code: string, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
  }

  body(): { code: string; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
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
