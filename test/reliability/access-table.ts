import { ROLE_CAPS, type Permission, type Role } from '../../shared/auth.ts';
import { NAMESPACES } from '../../server/routes/index.ts';
import { batch, siteIndex } from '../../server/routes/core.ts';

/** The callers of the access table, and what each may do (CONTRACT section 3). */
export type Caller = 'anonymous' | 'revoked key' | 'door key' | 'door user' | 'organizer' | 'administrator';
export const CALLERS: readonly Caller[] = ['anonymous', 'revoked key', 'door key', 'door user', 'organizer', 'administrator'];

const ROLE_OF: Record<Caller, Role | null> = {
  anonymous: null, 'revoked key': null, 'door key': 'door', 'door user': 'door', organizer: 'organizer', administrator: 'administrator',
};

/**
 * The permission of each `METHOD /ns/route` of the site index, from the same table the server serves.
 * Namespace indexes and `/doc` are generated and public.
 */
export function permissionTable(namespaces: readonly string[]): Map<string, Permission> {
  const m = new Map<string, Permission>();
  for (const e of [siteIndex, batch]) for (const method of e.def.methods) m.set(`${method} ${e.def.route}`, e.def.permission);
  for (const ns of namespaces) for (const r of [`/${ns}`, `/${ns}/doc`]) m.set(`GET ${r}`, 'public');
  for (const { ns } of NAMESPACES) {
    for (const def of ns.routes) for (const method of def.methods) m.set(`${method} /${def.namespace}${def.route === '/' ? '' : def.route}`, def.permission);
  }
  return m;
}

export interface Answer {
  status: number;
  code: string | null;
}

/**
 * Writes an organizer may make only on what it authored (CONTRACT section 3): the events namespace's writes of
 * one event, venue, organizer or term, by ID or slug; the search meta of one post (`seo/v1/meta/{id}`).
 */
export function ownedWrite(method: string, route: string): boolean {
  if (method === 'GET') return false;
  return /^\/evt\/events\/v1\/(events|venues|organizers|categories|tags)\/(\(\?P<id>|by-slug\/)/.test(route) || /^\/seo\/v1\/meta\/\(\?P<id>/.test(route);
}

const PARAM_ERRORS = new Set(['rest_missing_callback_param', 'rest_invalid_param']);

/**
 * Whether an answer is one the contract allows this caller on a route with this permission, or why not.
 * Parameter errors come before permission (the original's order), so a 400 of that kind is allowed to
 * anyone; `paramStatus` is what the administrator got, which it must match.
 */
export function allowed(caller: Caller, permission: Permission, a: Answer, othersObject = false): string | null {
  if (a.status >= 500) return `${a.status} ${a.code}`;
  if (a.status === 400 && a.code && PARAM_ERRORS.has(a.code)) return null;
  if (caller === 'revoked key') return a.status === 401 ? null : `revoked key got ${a.status} ${a.code}, not 401`;
  if (permission === 'public') return null;
  const role = ROLE_OF[caller];
  // An organizer changes only what it authored (CONTRACT section 3): on another author's object, 403.
  const may = role !== null && (permission === 'authenticated' || ROLE_CAPS[role].includes(permission)) && !(othersObject && role === 'organizer');
  if (!may) {
    const want = role === null ? 401 : 403;
    return a.status === want && a.code === 'rest_forbidden' ? null : `${caller} without ${permission} got ${a.status} ${a.code}, not ${want} rest_forbidden`;
  }
  return a.code === 'rest_forbidden' ? `${caller} with ${permission} refused: ${a.status} ${a.code}` : null;
}
