import crypto from 'node:crypto';
import { securityRoutes as R } from '../../../shared/routes/security.ts';
import { string } from '../../../shared/http/params.ts';
import type { Ctx } from '../../kernel/context.ts';
import { callerUserId, isAnonymous } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { validateArgs } from '../../http/validate.ts';
import { nowUtc } from '../../db/clock.ts';
import { getUser } from '../../db/repos/users.ts';
import { deleteOption, getJsonOption, setJsonOption } from '../../db/repos/site-options.ts';

/**
 * The account connection (Wordfence Central's flow, with no network): `premium-connect` stores the account's
 * Ed25519 public key and site ID and makes the site's own key pair; `GET /authenticate` hands out a nonce
 * valid for two 5-minute ticks; `POST /authenticate` checks the account's signature of `<nonce>|<site id>` and
 * answers with a signed, expiring token. A premium license key is stored only as a keyed hash.
 */

export const CONNECTION = 'security.connection';
export const PREMIUM = 'security.premium';
export const DISCONNECTED = 'security.disconnected';

export interface Connection {
  site_id: string;
  account_public_key: string;
  site_data: Record<string, unknown>;
  site_public_key: string;
  /** PKCS#8 DER, base64: the site's signing key for the account. */
  site_secret_key: string;
  connect_time: string;
  connect_email: string | null;
  last_authenticated: string | null;
  token_hash: string | null;
}

export interface Premium {
  key_hash: string;
  key_last4: string;
  activated: string;
  activated_by: number;
}

const NONCE_TICK_MS = 5 * 60 * 1000;
const TOKEN_TTL_SECONDS = 3600;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows.
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');

const ed25519PublicKey = (hex: string) =>
  crypto.createPublicKey({ key: Buffer.concat([ED25519_SPKI, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });

export const getConnection = (ctx: Ctx) => getJsonOption<Connection | null>(ctx.db, CONNECTION, null);
export const getPremium = (ctx: Ctx) => getJsonOption<Premium | null>(ctx.db, PREMIUM, null);

function nonceFor(secret: string, tick: number): string {
  return crypto.createHmac('sha256', secret).update(`${tick}|security-rest-api-auth`).digest('hex');
}

const hmac = (secret: string, s: string) => crypto.createHmac('sha256', secret).update(s).digest('hex');

function rawString(ctx: Ctx, name: string): string {
  const v = ctx.req.params[name];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

const callerEmail = async (ctx: Ctx) => (ctx.caller.kind === 'user' ? (await getUser(ctx.db, ctx.caller.userId))?.email || null : null);

function denied(ctx: Ctx, message: string): HttpError {
  return new HttpError(isAnonymous(ctx) ? 401 : 403, 'rest_forbidden_context', message);
}

const nonce = implement(R.nonce, (_input, ctx) =>
  ok({ nonce: nonceFor(ctx.app.secret, Math.floor(Date.now() / NONCE_TICK_MS)), admin_url: ctx.urls.root }),
);

const authenticate = implement(R.authenticate, async (_input, ctx) => {
  const conn = await getConnection(ctx);
  if (!conn) throw denied(ctx, 'Site is not connected to the security service.');
  const data = rawString(ctx, 'data');
  const parts = data.split('|');
  if (parts.length !== 2) throw denied(ctx, 'Data is invalid.');
  if (!/^[0-9a-f]{64}$/i.test(parts[0])) throw denied(ctx, 'Nonce format is invalid.');
  if (!UUID.test(parts[1]) || parts[1].toLowerCase() !== conn.site_id) throw denied(ctx, 'Site ID is invalid.');
  const tick = Math.floor(Date.now() / NONCE_TICK_MS);
  const given = Buffer.from(parts[0].toLowerCase());
  const fresh = [tick, tick - 1].some((t) => crypto.timingSafeEqual(Buffer.from(nonceFor(ctx.app.secret, t)), given));
  if (!fresh) throw denied(ctx, 'Nonce is invalid.');
  const signature = rawString(ctx, 'signature');
  const key = ed25519PublicKey(conn.account_public_key);
  if (!/^[0-9a-f]{128}$/i.test(signature) || !crypto.verify(null, Buffer.from(data), key, Buffer.from(signature, 'hex'))) {
    throw denied(ctx, 'Signature is invalid.');
  }
  const exp = Math.floor(Date.now() / 1000) + TOKEN_TTL_SECONDS;
  const payload = Buffer.from(JSON.stringify({ site: conn.site_id, exp })).toString('base64url');
  const token = `${payload}.${crypto.createHmac('sha256', ctx.app.secret).update(`central-token|${payload}`).digest('base64url')}`;
  await setJsonOption(ctx.db, CONNECTION, { ...conn, last_authenticated: nowUtc(), token_hash: hmac(ctx.app.secret, token) });
  return ok({ token, expires: exp });
});

const authenticatePremium = implement(R.authenticatePremium, async (_input, ctx) => {
  const { license_key: key } = validateArgs({ license_key: string({ required: true }) }, ctx.req.params) as { license_key: string };
  if (!/^[0-9a-f]{64,128}$/i.test(key)) throw invalidParam('license_key', 'Invalid license key.', 'rest_invalid_license_key');
  const premium: Premium = {
    key_hash: hmac(ctx.app.secret, `license|${key.toLowerCase()}`),
    key_last4: key.slice(-4).toLowerCase(),
    activated: nowUtc(),
    activated_by: callerUserId(ctx),
  };
  await setJsonOption(ctx.db, PREMIUM, premium);
  return ok({ success: true, premium: true, key_last4: premium.key_last4 });
});

const premiumConnect = implement(R.premiumConnect, async (_input, ctx) => {
  if (!(await getPremium(ctx))) throw new HttpError(403, 'rest_forbidden_context', 'A premium license is required to connect the site.');
  const publicKey = rawString(ctx, 'public-key');
  const siteId = rawString(ctx, 'site-id');
  if (!/^[0-9a-f]{64}$/i.test(publicKey)) throw invalidParam('public-key', 'The public key must be 64 hexadecimal digits (Ed25519).');
  if (!UUID.test(siteId)) throw invalidParam('site-id', 'The site ID must be a UUID.');
  const siteData = ctx.req.params['site-data'] ?? {};
  if (typeof siteData !== 'object' || siteData === null || Array.isArray(siteData) || JSON.stringify(siteData).length > 4096) {
    throw invalidParam('site-data', 'site-data must be an object of at most 4 KiB.');
  }
  try {
    ed25519PublicKey(publicKey);
  } catch {
    throw invalidParam('public-key', 'The public key is not an Ed25519 key.');
  }
  const pair = crypto.generateKeyPairSync('ed25519');
  const sitePublic = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(ED25519_SPKI.length).toString('hex');
  const conn: Connection = {
    site_id: siteId.toLowerCase(),
    account_public_key: publicKey.toLowerCase(),
    site_data: siteData as Record<string, unknown>,
    site_public_key: sitePublic,
    site_secret_key: pair.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    connect_time: nowUtc(),
    connect_email: await callerEmail(ctx),
    last_authenticated: null,
    token_hash: null,
  };
  await setJsonOption(ctx.db, CONNECTION, conn);
  await deleteOption(ctx.db, DISCONNECTED);
  return ok({ success: true, 'public-key': sitePublic });
});

const disconnect = implement(R.disconnect, async (_input, ctx) => {
  const conn = await getConnection(ctx);
  await deleteOption(ctx.db, CONNECTION);
  const email = await callerEmail(ctx);
  if (conn) await setJsonOption(ctx.db, DISCONNECTED, { time: nowUtc(), email, site_id: conn.site_id });
  return ok({ success: true, was_connected: conn !== null });
});

export const connectionEndpoints: Endpoint[] = [nonce, authenticate, authenticatePremium, premiumConnect, disconnect];
