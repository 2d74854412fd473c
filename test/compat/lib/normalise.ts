import type { Answer } from './types.ts';
import type { RawAnswer, Side } from './side.ts';
import { nextYear } from './side.ts';

/** Headers a client reads; the rest (Date, X-Powered-By, caching...) is not compared. */
export const CLIENT_HEADERS = [
  'x-wp-total',
  'x-wp-totalpages',
  'x-tec-total',
  'x-tec-totalpages',
  'x-et-total',
  'x-et-total-pages',
  'link',
  'allow',
  'location',
  'content-type',
  'access-control-allow-origin',
  'access-control-allow-credentials',
];

/** Keys whose numeric (or numeric-string) value is a post or term ID. */
const TERM_KEYS = new Set(['term_taxonomy_id', 'term_id']);
const ID_KEYS = new Set([
  'term_taxonomy_id',
  'id',
  'post_id',
  'ticket_id',
  'event_id',
  'attendee_id',
  'parent',
  'term_id',
  'post_parent',
  'order',
  'ID',
  'venue',
  'organizer',
  'post',
]);
/** Keys holding lists of IDs. */
const ID_LIST_KEYS = new Set(['include', 'exclude', 'additional_data', 'venue', 'organizer', 'categories', 'tags', 'ids']);
/** Keys whose value is a user ID. */
const USER_KEYS = new Set(['author', 'user_id']);

const DAY = 86_400_000;

function dateNear(y: string, m: string, d: string, now: number): string | null {
  const t = Date.UTC(Number(y), Number(m) - 1, Number(d));
  if (Number.isNaN(t)) return null;
  if (Math.abs(t - now) <= 2 * DAY) return '<now>';
  const two = new Date(now);
  two.setUTCFullYear(two.getUTCFullYear() + 2);
  if (Math.abs(t - two.getTime()) <= 2 * DAY) return '<now+2y>';
  return null;
}

export class Normaliser {
  readonly now = Date.now();
  private readonly byPost = new Map<number, string>();
  private readonly byTerm = new Map<number, string>();
  private readonly y1 = nextYear();

  constructor(private readonly side: Side) {}

  /** Re-reads the side's fixture IDs (after new ones were saved). */
  refresh(): void {
    this.byPost.clear();
    this.byTerm.clear();
    for (const [sym, id] of this.side.ids) (this.side.terms.has(sym) ? this.byTerm : this.byPost).set(id, `@${sym}`);
  }

  private post(id: number): string {
    return this.byPost.get(id) ?? '@?';
  }

  private term(id: number): string {
    return this.byTerm.get(id) ?? '@?';
  }

  string(s: string): string {
    const side = this.side;
    let out = s;
    const base = side.base;
    const hostPort = base.replace(/^https?:\/\//, '');
    const host = hostPort.replace(/:\d+$/, '');
    const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    out = out.replace(new RegExp(esc(base), 'g'), '{base}');
    out = out.replace(new RegExp(esc(encodeURIComponent(base)), 'gi'), '{base}');
    out = out.replace(new RegExp(esc(hostPort), 'g'), '{host}');
    out = out.replace(new RegExp(`${esc(host)}(?![\\d.])`, 'g'), '{host}');
    out = out.replace(/\b(?:tribe|evt)\/(events|tickets)\/v1/g, '{ns}/$1/v1');
    out = out.replace(/\b(?:tribe|evt)%2F(events|tickets)%2Fv1/gi, '{ns}%2F$1%2Fv1');
    out = out.replace(/\b(?:tribe|evt)(?=\/(events|tickets)\b)/g, '{ns}');
    // Post IDs inside URLs.
    out = out.replace(
      /\/(events|venues|organizers|tickets|attendees|qr)\/(\d+)(?=\/|\?|$|"|&|#)/g,
      (_m, r: string, id: string) => `/${r}/${this.post(Number(id))}`,
    );
    out = out.replace(/\/(categories|tags|tribe_events_cat)\/(\d+)(?=\/|\?|$|")/g, (_m, r: string, id: string) => `/${r}/${this.term(Number(id))}`);
    out = out.replace(
      /([?&](?:amp;)?)(p|id|ticket_id|event_id|post_id|attendee_id|page_id)=(\d+)/g,
      (_m, pre: string, k: string, id: string) => `${pre}${k}=${this.post(Number(id))}`,
    );
    out = out.replace(/(security_code=)[0-9a-zA-Z]+/g, '$1<code>');
    // Dates: near now (creation times, computed defaults) become tokens; next year's fixture dates keep month and day.
    out = out.replace(
      /(\d{4})-(\d{2})-(\d{2})(?:(?:[ T]|\+|%20)\d{2}(?::|%3A)\d{2}(?:(?::|%3A)\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?/gi,
      (m, y: string, mo: string, d: string) => {
        const near = dateNear(y, mo, d, this.now);
        if (near) return near;
        return y === this.y1 ? `{Y1}${m.slice(4)}` : m;
      },
    );
    out = out.replace(/\b\d{10}\b/g, (m) => (Math.abs(Number(m) * 1000 - this.now) < 2 * DAY ? '<now-ts>' : m));
    return out;
  }

  value(v: unknown, key: string, parentKey: string, inTerm: boolean): unknown {
    if (v === null || typeof v === 'boolean') return v;
    if (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v) && v.length < 10)) {
      const n = Number(v);
      const tag = typeof v === 'string' ? '"' : '';
      if (USER_KEYS.has(key)) return tag + (this.side.users.get(n) ?? (n === 0 ? '0' : '@?user')) + tag;
      const isIdKey = ID_KEYS.has(key) || (/^\d+$/.test(key) && ID_LIST_KEYS.has(parentKey));
      if (isIdKey && Number.isInteger(n) && n > 0) {
        // `additional_data` carries the existing term's ID in WordPress's `term_exists` error (the only use here).
        const termCtx = inTerm || TERM_KEYS.has(key) || parentKey === 'categories' || parentKey === 'tags' || parentKey === 'additional_data';
        // Keep the type visible: a string ID stays a string token with quotes.
        return tag + (termCtx ? this.term(n) : this.post(n)) + tag;
      }
      return typeof v === 'string' ? this.string(v) : v;
    }
    if (typeof v === 'string') return this.string(v);
    if (Array.isArray(v)) return v.map((x, i) => this.value(x, String(i), key, inTerm));
    if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const term = 'taxonomy' in o || (inTerm && !('events' in o));
      // Date detail objects of a moment near now.
      if ('year' in o && 'month' in o && 'day' in o) {
        const near = dateNear(String(o.year), String(o.month), String(o.day), this.now);
        if (near) {
          const r: Record<string, unknown> = {};
          for (const [k, x] of Object.entries(o)) r[k] = typeof x === 'string' ? `<${k}>` : typeof x;
          return r;
        }
      }
      const r: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(o)) {
        if (k === 'nonces' && x && typeof x === 'object') {
          r[k] = Object.fromEntries(Object.keys(x).map((n) => [n, '<nonce>']));
          continue;
        }
        if (k === 'security_code' && typeof x === 'string') {
          r[k] = '<code>';
          continue;
        }
        r[k] = this.value(x, k, key, term && k !== 'events');
      }
      return r;
    }
    return v;
  }

  answer(raw: RawAnswer): Answer {
    this.refresh();
    const headers: Record<string, string> = {};
    for (const h of CLIENT_HEADERS) {
      const v = raw.headers.get(h);
      if (v == null) continue;
      if (h === 'content-type') headers[h] = v.split(';')[0].trim();
      else if (h === 'allow')
        headers[h] = v
          .split(',')
          .map((x) => x.trim().toUpperCase())
          .join(', ');
      else headers[h] = this.string(v);
    }
    return { status: raw.status, headers, body: trimIndex(this.value(raw.body, '', '', false)) };
  }
}

/**
 * Keeps only the routes of the compared namespaces in a site index (plain or enveloped): the rest (wp/v2, auxiliary
 * namespaces) is neither the contract compared here nor worth megabytes of goldens.
 */
function trimIndex(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const o = body as Record<string, unknown>;
  if (o.body && typeof o.body === 'object' && 'headers' in o) return { ...o, body: trimIndex(o.body) };
  if (
    o.routes &&
    typeof o.routes === 'object' &&
    !Array.isArray(o.routes) &&
    Object.keys(o.routes).some((k) => !/^\/(\{ns\}|batch\/v1|oembed\/1\.0)/.test(k))
  ) {
    const routes: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o.routes as Record<string, unknown>))
      if (/^\/(\{ns\}\/(events|tickets)\/v1|batch\/v1|oembed\/1\.0)/.test(k)) routes[k] = v;
    return { ...o, routes };
  }
  return o;
}
