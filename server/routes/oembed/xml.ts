import type { RestResponseFilter } from '../../kernel/hooks.ts';
import { escKeepEntities } from '../../site/html.ts';

function scalar(v: unknown): string {
  if (v === true) return '1';
  if (v === false || v === null || v === undefined) return '';
  return String(v);
}

function children(data: Record<string, unknown> | unknown[]): string {
  let out = '';
  for (const [key, value] of Object.entries(data)) {
    // Numeric keys (list items) become <oembed> elements, as `_oembed_create_xml` does.
    const name = /^\d+$/.test(key) ? 'oembed' : key;
    if (value !== null && typeof value === 'object') {
      const inner = children(value as Record<string, unknown>);
      out += inner ? `<${name}>${inner}</${name}>` : `<${name}/>`;
    } else {
      out += `<${name}>${escKeepEntities(scalar(value))}</${name}>`;
    }
  }
  return out;
}

/** `_oembed_create_xml`: each key an element, values escaped as `esc_html` does, nested arrays nested. */
export function oembedXml(data: unknown): string {
  const obj = data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  return `<?xml version="1.0"?>\n<oembed>${children(obj)}</oembed>\n`;
}

const EMBED_ROUTE = /^\/oembed\/1\.0\/embed$/i;

/**
 * `_oembed_rest_pre_serve_request`: a GET of `/oembed/1.0/embed` with `format=xml` is answered in XML, errors
 * included (a missing `url` too), with the status kept. Other routes, `proxy` among them, stay JSON.
 */
export const xmlResponseFilter: RestResponseFilter = (_state, ex, result) => {
  if (!EMBED_ROUTE.test(ex.route) || (ex.method !== 'GET' && ex.method !== 'HEAD') || ex.query.format !== 'xml' || result.raw) return result;
  return { ...result, raw: { contentType: 'text/xml; charset=UTF-8', payload: oembedXml(result.body) } };
};
