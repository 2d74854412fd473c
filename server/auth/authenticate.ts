import type { Db } from '../db/connection.ts';
import { StateKey } from '../db/engine/types.ts';
import type { Caller } from '../kernel/context.ts';
import { HttpError, forbidden } from '../kernel/errors.ts';
import type { ApiKeyRow } from '../db/repos/api-keys.ts';
import { verifyApiKeyAsync, verifyBasic, type KeyResult } from './credentials.ts';
import { addressKey, loginAt, signInGate, type GateHost } from './sign-in-limits.ts';

export interface Presented {
  authorization?: string;
  /** `api_key` from the form body, else the query string (JSON bodies are not consulted, as in the original). */
  apiKeyParam?: string;
  ip: string;
  /** The request's keys already checked (see `checkApiKey`). */
  keyChecks?: KeyChecks;
}

/** The caller an API key makes: a door device, limited to the key's event when it names one (and to its list, when bound to one). */
export function apiKeyCaller(key: ApiKeyRow): Caller {
  return { kind: 'api_key', keyId: key.id, label: key.label, eventId: key.event_id, listId: key.list_id ?? null, role: 'door' };
}

/** D5: one answer for an unknown login and a wrong password, so the answer tells nobody who exists. */
const badPassword = () => new HttpError(401, 'incorrect_password', 'The provided password is an invalid application password.');

/** What authenticate() needs of the app: its services (the sign-in limits live there) and its log. */
export interface AuthEnv {
  services: GateHost['services'];
  log?: (entry: Record<string, unknown>) => void;
}

// Without an app (a caller that passes none), the limits are kept per database, on its handle.
const STANDALONE = new StateKey<AuthEnv>('sign-in limits without an app');

function envFor(db: Db, env: AuthEnv | undefined): AuthEnv {
  return env ?? db.state.of(STANDALONE, () => ({ services: {} }));
}

/**
 * Resolves the caller before routing, as WordPress's `rest_authentication_errors` does: bad Basic credentials
 * or a revoked or unknown Bearer key fail the request whatever the route. An unknown `api_key` parameter leaves
 * the caller anonymous (the QR route answers that case itself); a revoked one is refused.
 *
 * Random secrets are checked by their fast hashes, slow ones off the request thread; wrong passwords are limited
 * per login and client address, wrong keys per address (see sign-in-limits.ts: a limited caller gets
 * `TooManyFailures`, a 429 with `Retry-After`), and logged with login and address, never the password.
 */
export async function authenticate(db: Db, p: Presented, appEnv?: AuthEnv): Promise<Caller> {
  const env = envFor(db, appEnv);
  const auth = p.authorization?.trim();
  if (auth && /^basic\s+/i.test(auth)) {
    const gate = signInGate(env);
    const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const login = i < 0 ? decoded : decoded.slice(0, i);
    const password = i < 0 ? '' : decoded.slice(i + 1);
    const keys = [loginAt(p.ip, login)];
    const r = await verifyBasic(db, i < 0 ? '' : login, password, p.ip, {
      slow: (check) => gate.attempt(keys, `basic\u0000${decoded}`, check),
      failed: () => gate.failed(keys),
    });
    if (!r.ok) {
      env.log?.({ level: 'warn', msg: 'sign-in failed', login: login.slice(0, 200), ip: p.ip });
      throw badPassword();
    }
    return {
      kind: 'user',
      userId: r.user.id,
      login: r.user.login,
      displayName: r.user.display_name,
      role: r.user.role,
      appPasswordId: r.appPasswordId,
    };
  }
  const bearer = auth && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '') : undefined;
  const presented = bearer ?? p.apiKeyParam;
  if (presented === undefined || presented === '') return { kind: 'anonymous' };
  const r = await checkApiKey(db, presented, p.ip, env, { via: bearer === undefined ? 'api_key' : 'bearer', memo: p.keyChecks });
  if (r.ok) return apiKeyCaller(r.key);
  if (bearer !== undefined || r.reason === 'revoked') throw forbidden(true);
  return { kind: 'anonymous' };
}

/** Keys checked while serving one request, by their text: a key checked twice (authenticate(), then the QR route) counts once. */
export type KeyChecks = Map<string, unknown>;

/**
 * The one path of every presented door key, however it arrived (the header, the query, a form, JSON or
 * multipart body, a method override, a QR check-in): the fast check, then the per-address limit of unknown keys
 * (`TooManyFailures` past it; a right key is accepted wherever others failed).
 */
export async function checkApiKey(
  db: Db,
  presented: string,
  ip: string,
  appEnv?: AuthEnv,
  opts: { via?: string; memo?: KeyChecks } = {},
): Promise<KeyResult> {
  const known = opts.memo?.get(presented) as KeyResult | undefined;
  if (known) return known;
  const env = envFor(db, appEnv);
  const gate = signInGate(env);
  const keys = [addressKey(ip)];
  const r = await verifyApiKeyAsync(db, presented, {
    slow: (check) => gate.attempt(keys, `key\u0000${presented}`, check),
    failed: () => gate.failed(keys),
  });
  if (!r.ok && r.reason === 'unknown')
    env.log?.({ level: 'warn', msg: 'API key refused', key_id: keyIdOf(presented), via: opts.via ?? 'api_key', ip });
  opts.memo?.set(presented, r);
  return r;
}

/** The ID part of a presented key, for the log (never the secret). */
function keyIdOf(presented: string): number | null {
  const m = /^\s*dsk_(\d{1,12})_/.exec(presented);
  return m ? Number(m[1]) : null;
}
