import type { Answer, Departure, Diff } from './types.ts';

/** Keys whose string values are compared exactly (enumerations a client branches on); other strings by type only. */
const VALUE_KEYS = new Set([
  'code',
  'error',
  'status',
  'provider',
  'type',
  'taxonomy',
  'currency_position',
  'capacity_type',
  'global_stock_mode',
  'source',
  'validation',
  'failed',
  'show_on_front',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function isSymbol(v: unknown): boolean {
  return typeof v === 'string' && /^"?@/.test(v);
}

/**
 * Compares two normalised answers: status, error code, key sets and order, value types, list lengths and the
 * order of list items (by their normalised IDs), booleans, numbers, symbolic IDs, enumerations, client headers.
 * List elements are compared position by position; paths use `[*]` so that one cause on every item is one difference.
 */
export function compare(req: string, a: Answer, b: Answer): Diff[] {
  const out = new Map<string, Diff>();
  const add = (d: Omit<Diff, 'req'>) => {
    const k = `${d.kind} ${d.path}`;
    if (!out.has(k)) out.set(k, { req, ...d });
  };
  if (a.status !== b.status) add({ kind: 'status', path: 'status', original: a.status, doorstep: b.status });
  const codeOf = (x: Answer) =>
    x.body && typeof x.body === 'object' && !Array.isArray(x.body)
      ? ((x.body as Record<string, unknown>).code ?? (x.body as Record<string, unknown>).error)
      : undefined;
  if (a.status >= 400 || b.status >= 400) {
    const ca = codeOf(a);
    const cb = codeOf(b);
    if (ca !== cb) add({ kind: 'code', path: 'body.code', original: ca, doorstep: cb });
  }
  // A different status or error code is one cause: its body and headers follow from it.
  if (out.size) return [...out.values()];
  const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]);
  for (const h of names) {
    if (a.headers[h] !== b.headers[h]) add({ kind: 'header', path: `header.${h}`, original: a.headers[h] ?? null, doorstep: b.headers[h] ?? null });
  }
  walk(a.body, b.body, 'body', '', add);
  return [...out.values()];
}

function walk(a: unknown, b: unknown, path: string, key: string, add: (d: Omit<Diff, 'req'>) => void): void {
  const ta = typeOf(a);
  const tb = typeOf(b);
  if (ta !== tb) {
    add({ kind: 'type', path, original: ta === 'object' || ta === 'array' ? ta : a, doorstep: tb === 'object' || tb === 'array' ? tb : b });
    return;
  }
  if (ta === 'array') {
    const la = a as unknown[];
    const lb = b as unknown[];
    if (la.length !== lb.length) add({ kind: 'length', path, original: la.length, doorstep: lb.length });
    const n = Math.min(la.length, lb.length);
    for (let i = 0; i < n; i++) walk(la[i], lb[i], `${path}[*]`, key, add);
    return;
  }
  if (ta === 'object') {
    const oa = a as Record<string, unknown>;
    const ob = b as Record<string, unknown>;
    const ka = Object.keys(oa);
    const kb = Object.keys(ob);
    const sb = new Set(kb);
    const sa = new Set(ka);
    for (const k of ka) if (!sb.has(k)) add({ kind: 'missing-key', path: `${path}.${k}`, original: typeOf(oa[k]), doorstep: null });
    for (const k of kb) if (!sa.has(k)) add({ kind: 'extra-key', path: `${path}.${k}`, original: null, doorstep: typeOf(ob[k]) });
    const common = ka.filter((k) => sb.has(k));
    const commonB = kb.filter((k) => sa.has(k));
    if (common.join(',') !== commonB.join(',')) add({ kind: 'key-order', path, original: common.join(','), doorstep: commonB.join(',') });
    for (const k of common) walk(oa[k], ob[k], `${path}.${k}`, k, add);
    return;
  }
  if (ta === 'boolean' || ta === 'number' || isSymbol(a) || isSymbol(b) || (ta === 'string' && VALUE_KEYS.has(key))) {
    if (a !== b) add({ kind: 'value', path, original: a, doorstep: b });
  }
}

/** The key a known difference is listed under. */
export function diffKey(d: Diff): string {
  return `${d.req} | ${d.kind} | ${d.path}`;
}

export function departureFor(d: Diff, departures: Departure[]): Departure | undefined {
  return departures.find(
    (p) =>
      (!p.match.req || new RegExp(p.match.req).test(d.req)) &&
      (!p.match.path || new RegExp(p.match.path).test(d.path)) &&
      (!p.match.kind || new RegExp(`^(?:${p.match.kind})$`).test(d.kind)),
  );
}
