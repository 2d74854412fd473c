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
  if (typeof f === 'string') fields = f.split(',').map((s) => s.trim()).filter(Boolean);
  else if (Array.isArray(f)) fields = f.filter((x): x is string => typeof x === 'string').flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  return {
    fields: fields && fields.length ? fields : null,
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

function applyMask(data: unknown, mask: Mask): unknown {
  if (Array.isArray(data)) return data.map((d) => applyMask(d, mask));
  if (!data || typeof data !== 'object') return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const m = mask[k];
    if (m === undefined) continue;
    out[k] = m === true ? v : applyMask(v, m);
  }
  return out;
}

/** `rest_filter_response_fields`: keeps only the listed (dotted) keys, per item when the body is a list. */
export function filterFields(body: unknown, fields: string[]): unknown {
  return applyMask(body, buildMask(fields));
}
