import type { HttpError } from './errors.ts';

/** What a handler returns: the HTTP layer alone turns it into bytes. */
export interface Result {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A non-JSON payload (QR images, oEmbed XML, CSV). */
  raw?: { contentType: string; payload: string | Buffer };
  /** The body is an error envelope (not filtered by `_fields`). */
  isError?: boolean;
  /**
   * Compress quickly rather than well (brotli quality 1): for large answers made once per request, where quality
   * 4 costs the server many times the CPU for a few percent fewer bytes (the door snapshot: 1.3 MB of JSON).
   */
  quickCompress?: boolean;
}

export const ok = (body: unknown, headers?: Record<string, string>): Result => ({ status: 200, body, headers });
export const created = (body: unknown, headers?: Record<string, string>): Result => ({ status: 201, body, headers });

/** An error answer that still commits the handler's transaction (e.g. a losing scan is recorded). */
export function errorResult(e: HttpError): Result {
  return e.answerHeaders
    ? { status: e.status, body: e.body(), isError: true, headers: e.answerHeaders }
    : { status: e.status, body: e.body(), isError: true };
}
