/** WordPress's global query parameters: `_fields`, `_envelope`, `_jsonp`, `_pretty`, `_method`. */
export interface Globals {
  fields: string[] | null;
  envelope: boolean;
  jsonp: string | null;
  pretty: boolean;
}

function first(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
}

/** Reads the globals from the query string and the request body (`_fields` and `_pretty` may be in either). */
export function readGlobals(query: Record<string, unknown>, body: Record<string, unknown>): Globals {
  const f = query._fields ?? body._fields;
  let fields: string[] | null = null;
  if (typeof f === 'string')
    fields = f
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  else if (Array.isArray(f))
    fields = f
      .filter((x): x is string => typeof x === 'string')
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
  return {
    fields: fields?.length ? fields : null,
    envelope: query._envelope !== undefined,
    jsonp: first(query._jsonp) ?? null,
    pretty: query._pretty !== undefined || body._pretty !== undefined,
  };
}

export function validJsonpCallback(cb: string): boolean {
  return cb.length > 0 && /^[\w.]+$/.test(cb);
}

type Mask = { [k: string]: Mask | true };

function buildMask(fields: string[]): Mask {
  const mask: Mask = {};
  for (const f of fields) {
    const parts = f.split('.');
    let node = mask;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i === parts.length - 1) node[p] = true;
      else {
        const next = node[p];
        if (next === true) break;
        node = node[p] = next ?? {};
      }
    }
  }
  return mask;
}

/**
 * `_rest_array_intersect_key_recursive`: keeps the keys the mask names, recursing where both the value and the
 * mask are nested. PHP sees a list as an array keyed 0, 1, ...: a list is intersected by its indexes (so
 * `events.id` keeps nothing of the events list), and what is left is a list only when its keys are 0..n-1. An
 * array left empty is PHP's empty array, `[]`.
 */
function intersect(data: unknown, mask: Mask): unknown {
  if (!data || typeof data !== 'object') return data;
  const entries: [string, unknown][] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const m = mask[k];
    if (m === undefined) continue;
    entries.push([k, m !== true && v && typeof v === 'object' ? intersect(v, m) : v]);
  }
  if (entries.every(([k], i) => k === String(i))) return entries.map(([, v]) => v);
  return Object.fromEntries(entries);
}

/**
 * `rest_filter_response_fields`: keeps only the listed (dotted) keys, per item when the body is a list (PHP's
 * `wp_is_numeric_array`). A sub-key of a nested list (`events.id`) keeps nothing of it, and a body or object
 * left without keys is `[]`, as WordPress answers.
 */
export function filterFields(body: unknown, fields: string[]): unknown {
  const mask = buildMask(fields);
  if (Array.isArray(body)) return body.map((d) => intersect(d, mask));
  return intersect(body, mask);
}
