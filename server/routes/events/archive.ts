/** Paging links of the TEC archives: `rest_url`, `next_rest_url`, `previous_rest_url`. */

function flat(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => flat(x) ?? '').join(',');
  if (typeof v === 'object') return undefined;
  return String(v);
}

/** The request's known query variables, in the archive's order, as strings (lists as CSV). */
export function knownQuery(params: Record<string, unknown>, supported: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const k of supported) {
    const v = flat(params[k]);
    if (v !== undefined) out.push([k, v]);
  }
  return out;
}

function build(base: string, pairs: [string, string][]): string {
  if (!pairs.length) return base;
  return `${base}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/%2C/gi, ',')}`).join('&')}`;
}

function withPage(pairs: [string, string][], page: number): [string, string][] {
  const rest = pairs.filter(([k]) => k !== 'page');
  if (page <= 1) return rest;
  const i = pairs.findIndex(([k]) => k === 'page');
  const copy = [...rest];
  copy.splice(Math.max(i, 0), 0, ['page', String(page)]);
  return copy;
}

export interface ArchiveLinks {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
}

export function archiveLinks(base: string, pairs: [string, string][], page: number, totalPages: number): ArchiveLinks {
  const links: ArchiveLinks = { rest_url: build(base, pairs) };
  if (page < totalPages) links.next_rest_url = build(base, withPage(pairs, page + 1));
  if (page > 1 && page - 1 <= totalPages) links.previous_rest_url = build(base, withPage(pairs, page - 1));
  return links;
}

export function totalHeaders(total: number, totalPages: number): Record<string, string> {
  return { 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(totalPages) };
}
