import type { Db } from '../db/connection.ts';
import type { Caller } from '../kernel/context.ts';
import { HttpError, forbidden } from '../kernel/errors.ts';
import type { ApiKeyRow } from '../db/repos/api-keys.ts';
import { verifyApiKeyAsync, verifyBasic } from './credentials.ts';
import { addressKey, loginKey, signInGate, type GateHost } from './sign-in-limits.ts';

export interface Presented {
  authorization?: string;
  /** `api_key` from the form body, else the query string (JSON bodies are not consulted, as in the original). */
  apiKeyParam?: string;
  ip: string;
}

/** The caller an API key makes: a door device, limited to the key's event when it names one. */
export function apiKeyCaller(key: ApiKeyRow): Caller {
  return { kind: 'api_key', keyId: key.id, label: key.label, eventId: key.event_id, role: 'door' };
}

/** D5: one answer for an unknown login and a wrong password, so the answer tells nobody who exists. */
const badPassword = () => new HttpError(401, 'incorrect_password', 'The provided password is an invalid application password.');

/** What authenticate() needs of the app: its services (the sign-in limits live there) and its log. */
export interface AuthEnv {
  services: GateHost['services'];
  log?: (entry: Record<string, unknown>) => void;
}

// Without an app (a caller that passes none), the limits are kept per database.
const standalone = new WeakMap<Db, AuthEnv>();

function envFor(db: Db, env: AuthEnv | undefined): AuthEnv {
  if (env) return env;
  let e = standalone.get(db);
  if (!e) standalone.set(db, (e = { services: {} }));
  return e;
}

/**
 * Resolves the caller before routing, as WordPress's `rest_authentication_errors` does: bad Basic credentials
 * or a revoked or unknown Bearer key fail the request whatever the route. An unknown `api_key` parameter leaves
 * the caller anonymous (the QR route answers that case itself); a revoked one is refused.
 *
 * Hashes are checked off the request thread; wrong passwords and keys are limited per login and per client
 * address (see sign-in-limits.ts: a limited caller gets `TooManyFailures`, a 429 with `Retry-After`) and logged
 * with login and address, never the password.
 */
export async function authenticate(db: Db, p: Presented, appEnv?: AuthEnv): Promise<Caller> {
  const env = envFor(db, appEnv);
  const gate = signInGate(env);
  const ip = addressKey(p.ip);
  const auth = p.authorization?.trim();
  if (auth && /^basic\s+/i.test(auth)) {
    const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const login = i < 0 ? decoded : decoded.slice(0, i);
    const password = i < 0 ? '' : decoded.slice(i + 1);
    const r = await gate.attempt([ip, loginKey(login)], `basic\u0000${decoded}`, async () => {
      const v = await verifyBasic(db, i < 0 ? '' : login, password, p.ip);
      return { counts: !v.ok, result: v };
    });
    if (!r.ok) {
      env.log?.({ level: 'warn', msg: 'sign-in failed', login: login.slice(0, 200), ip: p.ip });
      throw badPassword();
    }
    await gate.succeeded(login);
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
  const r = await gate.attempt([ip], `key\u0000${presented}`, async () => {
    const v = await verifyApiKeyAsync(db, presented);
    return { counts: !v.ok && v.reason === 'unknown', result: v };
  });
  if (r.ok) return apiKeyCaller(r.key);
  if (r.reason === 'unknown')
    env.log?.({ level: 'warn', msg: 'API key refused', key_id: keyIdOf(presented), via: bearer === undefined ? 'api_key' : 'bearer', ip: p.ip });
  if (bearer !== undefined || r.reason === 'revoked') throw forbidden(true);
  return { kind: 'anonymous' };
}

/** The ID part of a presented key, for the log (never the secret). */
function keyIdOf(presented: string): number | null {
  const m = /^\s*dsk_(\d{1,12})_/.exec(presented);
  return m ? Number(m[1]) : null;
}
