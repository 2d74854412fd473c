import type { Db } from '../db/connection.ts';
import type { Caller } from '../http/context.ts';
import { HttpError, forbidden } from '../http/errors.ts';
import type { ApiKeyRow } from '../db/repos/api-keys.ts';
import { verifyApiKey, verifyBasic } from './credentials.ts';

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

const unknownUser = () => new HttpError(401, 'invalid_username', 'Unknown username. Check again or try your email address.');

/**
 * Resolves the caller before routing, as WordPress's `rest_authentication_errors` does: bad Basic credentials
 * or a revoked or unknown Bearer key fail the request whatever the route. An unknown `api_key` parameter leaves
 * the caller anonymous (the QR route answers that case itself); a revoked one is refused.
 */
export async function authenticate(db: Db, p: Presented): Promise<Caller> {
  const auth = p.authorization?.trim();
  if (auth && /^basic\s+/i.test(auth)) {
    const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) throw unknownUser();
    const r = verifyBasic(db, decoded.slice(0, i), decoded.slice(i + 1), p.ip);
    if (!r.ok) {
      throw r.code === 'invalid_username' ? unknownUser() : new HttpError(401, 'incorrect_password', 'The provided password is an invalid application password.');
    }
    return { kind: 'user', userId: r.user.id, login: r.user.login, displayName: r.user.display_name, role: r.user.role, appPasswordId: r.appPasswordId };
  }
  if (auth && /^bearer\s+/i.test(auth)) {
    const r = verifyApiKey(db, auth.replace(/^bearer\s+/i, ''));
    if (!r.ok) throw forbidden(true);
    return apiKeyCaller(r.key);
  }
  if (p.apiKeyParam) {
    const r = verifyApiKey(db, p.apiKeyParam);
    if (r.ok) return apiKeyCaller(r.key);
    if (r.reason === 'revoked') throw forbidden(true);
  }
  return { kind: 'anonymous' };
}
