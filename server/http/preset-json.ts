/**
 * A handler that already holds its answer's JSON (made from kept pieces, e.g. presented events) attaches it to
 * the body object, so the writer and the response cache need not serialise the body again. The JSON must be
 * exactly `JSON.stringify(body)` (as a string or its UTF-8 bytes); an answer whose body is replaced (a filter, `_fields`, `_envelope`) is a new
 * object without one. Nothing may change the body after the JSON is attached.
 */
const preset = new WeakMap<object, string | Buffer>();

export function withJson<T extends object>(body: T, json: string | Buffer): T {
  preset.set(body, json);
  return body;
}

export function presetJson(body: unknown): string | Buffer | undefined {
  return body !== null && typeof body === 'object' ? preset.get(body) : undefined;
}
