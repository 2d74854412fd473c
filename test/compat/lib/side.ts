import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import qs from 'qs';
import type { Req, Role } from './types.ts';

/** One system under comparison: where it is, how to authenticate, and the fixture IDs it gave out. */
export interface Side {
  name: 'original' | 'doorstep';
  /** `http://host:port`, no trailing slash. */
  base: string;
  nsEvents: string;
  nsTickets: string;
  auth: Record<Role, string | undefined>;
  apiKey: string;
  /** Post IDs and term IDs by fixture symbol. */
  ids: Map<string, number>;
  /** Which symbols are terms (their own ID sequence). */
  terms: Set<string>;
  /** Known user IDs (author) by symbol. */
  users: Map<number, string>;
  nonce: (action: string, sym: string) => Promise<string>;
  securityCode: (attendeeSym: string) => Promise<string>;
  /** Called after a fixture step that needs out-of-band help (the original has no REST field for event passwords). */
  afterSave?: (sym: string, req: Req) => Promise<void>;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

const YEAR1 = String(new Date().getUTCFullYear() + 1);

export function nextYear(): string {
  return YEAR1;
}

/** Resolves placeholders in a string for a side. */
export async function fill(side: Side, s: string): Promise<string> {
  const parts = s.split(/(\{[^{}]+\})/);
  let out = '';
  for (const p of parts) {
    const m = /^\{([^{}]+)\}$/.exec(p);
    if (!m) {
      out += p;
      continue;
    }
    const key = m[1];
    if (key === 'E') out += side.nsEvents;
    else if (key === 'T') out += side.nsTickets;
    else if (key === 'base') out += side.base;
    else if (key === 'Y1') out += YEAR1;
    else if (key === 'apikey') out += side.apiKey;
    else if (key.startsWith('nonce:')) {
      const [, action, sym] = key.split(':');
      out += await side.nonce(action, sym);
    } else if (key.startsWith('code:')) out += await side.securityCode(key.slice(5));
    else if (side.ids.has(key)) out += String(side.ids.get(key));
    else if (/^[A-Za-z_][\w]*$/.test(key) && /^(ev|ve|org|cat|tag|tk|at|new)_/.test(key))
      throw new Error(`${side.name}: fixture ${key} was not created`);
    else out += p;
  }
  return out;
}

async function fillDeep(side: Side, v: unknown): Promise<unknown> {
  if (typeof v === 'string') {
    const f = await fill(side, v);
    // A placeholder standing alone for an ID becomes a number in JSON bodies.
    if (/^\{[a-z]+_[\w]+\}$/.test(v) && /^\d+$/.test(f)) return Number(f);
    return f;
  }
  if (Array.isArray(v)) return Promise.all(v.map((x) => fillDeep(side, x)));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[await fill(side, k)] = await fillDeep(side, x);
    return o;
  }
  return v;
}

/** Sends one scenario request to a side. */
export async function send(side: Side, req: Req): Promise<RawAnswer> {
  const path = await fill(side, req.path);
  const query: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req.query ?? {}))
    query[k] = Array.isArray(v) ? await Promise.all(v.map((x) => fill(side, String(x)))) : await fill(side, String(v));
  let url: string;
  const q = qs.stringify(query, { arrayFormat: 'brackets', encodeValuesOnly: true });
  if (path.startsWith('/')) url = `${side.base}${path}${q ? `?${q}` : ''}`;
  else if (req.restRoute) url = `${side.base}/?rest_route=/${path}${q ? `&${q}` : ''}`;
  else url = `${side.base}/wp-json/${path}${q ? `?${q}` : ''}`;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k] = await fill(side, v);
  const role = req.as ?? 'anon';
  if (side.auth[role]) headers.authorization = side.auth[role]!;
  let body: string | undefined;
  if (req.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(await fillDeep(side, req.json));
  } else if (req.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = qs.stringify(await fillDeep(side, req.form), { encodeValuesOnly: true });
  } else if (req.raw) {
    headers['content-type'] = req.raw.type;
    body = await fill(side, req.raw.body);
  }
  const res = await fetch(url, { method: req.method ?? 'GET', headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text.length > 200 ? `<text ${res.headers.get('content-type') ?? ''}>` : text;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

/** The original, from the credentials file written by `shared/original/setup.sh`. */
export function originalSide(credentialsFile: string): Side {
  const env: Record<string, string> = {};
  for (const line of fs.readFileSync(credentialsFile, 'utf8').split('\n')) {
    const m = /^(\w+)='?(.*?)'?$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  const dir = credentialsFile.replace(/\/credentials\.env$/, '');
  const helper = process.env.ORIG_HELPER ?? '/work/shared/original/wp-helper.php';
  const php = (...args: string[]) => execFileSync('php', [helper, `${dir}/wordpress`, ...args], { encoding: 'utf8' }).trim();
  const ids = new Map<string, number>();
  const nonces = new Map<string, string>();
  return {
    name: 'original',
    base: env.ORIG_URL.replace(/\/+$/, ''),
    nsEvents: 'tribe/events/v1',
    nsTickets: 'tribe/tickets/v1',
    auth: { anon: undefined, admin: basic(env.ORIG_ADMIN_USER, env.ORIG_ADMIN_APP_PASSWORD) },
    apiKey: env.ORIG_QR_API_KEY,
    ids,
    terms: new Set(),
    users: new Map([[1, '@admin']]),
    // WordPress nonces depend on the action and the user only (not the post).
    nonce: async (action) => {
      if (!nonces.has(action)) nonces.set(action, php('nonce', action));
      return nonces.get(action)!;
    },
    securityCode: async (sym) => php('security-code', String(ids.get(sym))),
    afterSave: async (sym, req) => {
      const pw = (req.json as { password?: string } | undefined)?.password;
      if (pw && req.method === 'POST') php('set-password', String(ids.get(sym)), pw);
    },
  };
}

/** Doorstep: a running server (a fresh test server, usually) with an administrator and a door key. */
export function doorstepSide(base: string, adminAuth: string, apiKey: string, adminId: number): Side {
  const ids = new Map<string, number>();
  const side: Side = {
    name: 'doorstep',
    base: base.replace(/\/+$/, ''),
    nsEvents: 'evt/events/v1',
    nsTickets: 'evt/tickets/v1',
    auth: { anon: undefined, admin: adminAuth },
    apiKey,
    ids,
    terms: new Set(),
    users: new Map([[adminId, '@admin']]),
    // Doorstep's nonces are per post: the single reads carry them for an editor (CONTRACT section 5).
    nonce: async (action, sym) => {
      const route = action === 'add_ticket_nonce' ? 'events' : 'tickets';
      const res = await fetch(`${side.base}/wp-json/${route === 'events' ? side.nsEvents : side.nsTickets}/${route}/${ids.get(sym)}`, {
        headers: { authorization: adminAuth },
      });
      const body = (await res.json()) as { nonces?: Record<string, string> };
      return body.nonces?.[action] ?? 'no-nonce';
    },
    securityCode: async (sym) => {
      const res = await fetch(`${side.base}/wp-json/${side.nsTickets}/attendees/${ids.get(sym)}`, { headers: { authorization: adminAuth } });
      const body = (await res.json()) as { security_code?: string };
      return body.security_code ?? 'no-code';
    },
  };
  return side;
}
