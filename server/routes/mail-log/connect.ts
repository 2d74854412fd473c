import crypto from 'node:crypto';
import { touch } from '../../http/cache-tags.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { z } from 'zod';
import QRCode from 'qrcode';
import { implement, type Endpoint } from '../../http/registry.ts';
import type { Ctx } from '../../kernel/context.ts';
import { callerUserId } from '../../kernel/context.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { string } from '../../../shared/http/params.ts';
import { mailLogV1Routes as v1, mailLogV2Routes as v2, MAIL_LOG_API_VERSION } from '../../../shared/routes/mail-log.ts';
import { nowUtc } from '../../db/clock.ts';
import {
  clearPairing,
  deleteAllMailApps,
  deleteMailApp,
  getLicense,
  getPairing,
  listMailApps,
  setLicense,
  setPairing,
  touchLicense,
  upsertMailApp,
  type LicenseRow,
} from '../../db/repos/mail-log.ts';
import { maskLicenseKey, normalizeLicenseKey } from '../../mail/license.ts';
import { hashToken, mailCaller } from './auth.ts';
import { header, readParams } from './params.ts';
import { fail, jsonError, jsonSuccess, replies } from './reply.ts';

/** Pairing keys live 30 minutes, like Post SMTP's `post_smtp_auth_nonce` transient, and serve once. */
const PAIRING_SECONDS = 1800;

const isoOf = (utc: string) => `${utc.replace(' ', 'T')}Z`;

const Token = z.string().regex(/^[\x21-\x7e]{16,4096}$/);
const Device = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\x00-\x1f\x7f]*$/);
const ServerUrl = z
  .string()
  .max(2048)
  .refine((s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol);
    } catch {
      return false;
    }
  });

function requireHeader<T>(ctx: Ctx, name: string, schema: z.ZodType<T>, optional = false): T | undefined {
  const v = header(ctx, name);
  if (v === undefined || v === '') {
    if (optional) return undefined;
    throw invalidParam(name, `Missing header ${name}.`, 'rest_missing_header');
  }
  const r = schema.safeParse(v);
  if (!r.success) throw invalidParam(name, `Invalid header ${name}.`, 'rest_invalid_header');
  return r.data;
}

function sameKey(given: string, storedHash: string): boolean {
  const a = Buffer.from(hashToken(given), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

const connectApp = implement(
  v1.connectApp,
  replies(async (_i, ctx) => {
    const authKey = header(ctx, 'auth_key') ?? '';
    const pairing = await getPairing(ctx.db);
    const valid = authKey !== '' && pairing !== undefined && pairing.expires_utc > nowUtc() && sameKey(authKey, pairing.key_hash);
    // The original answers a stale or wrong QR code with 200 and success=false.
    if (!valid) return jsonError({ error: 'Regenerate QR Code, and scan again.' }, 200);
    const token = requireHeader(ctx, 'fcm_token', Token)!;
    const device = requireHeader(ctx, 'device', Device)!;
    const serverUrl = requireHeader(ctx, 'server_url', ServerUrl, true) ?? '';
    await clearPairing(ctx.db);
    await upsertMailApp(ctx.db, { token_hash: hashToken(token), token_hint: token.slice(-4), device, server_url: serverUrl });
    return jsonSuccess({ fcm_token: token, plugin_version: MAIL_LOG_API_VERSION });
  }),
);

async function connectedApps(ctx: Ctx) {
  return (await listMailApps(ctx.db)).map((a) => ({
    device: a.device,
    token_hint: `…${a.token_hint}`,
    server_url: a.server_url,
    enable_notification: a.enable_notification === 1,
    connected: isoOf(a.connected_utc),
    last_seen: a.last_seen_utc ? isoOf(a.last_seen_utc) : null,
  }));
}

const pairingKey = implement(
  v1.pairingKey,
  async (_i, ctx) => {
    const key = crypto.randomBytes(24).toString('base64url');
    const expires = nowUtc(new Date(Date.now() + PAIRING_SECONDS * 1000));
    // A GET that writes: the pairing and its change-log row (other processes) commit together.
    await inTransaction(ctx.db, async () => {
      await setPairing(ctx.db, hashToken(key), expires, callerUserId(ctx));
      await touch(ctx.app, ['mail']);
    });
    const connectUrl = `${ctx.urls.site('/')}?${new URLSearchParams({ authkey: key, site_title: ctx.app.config.siteName })}`;
    const qr = await QRCode.toDataURL(connectUrl, { errorCorrectionLevel: 'M', margin: 4, width: 300 });
    return jsonSuccess({ auth_key: key, expires: isoOf(expires), connect_url: connectUrl, qr_code: qr, connected: await connectedApps(ctx) });
  },
  { async: true },
);

const disconnectSite = implement(
  v1.disconnectSite,
  replies(async (_i, ctx) => {
    const who = await mailCaller(ctx);
    const removed = who.kind === 'app' ? Number(await deleteMailApp(ctx.db, who.app.id)) : await deleteAllMailApps(ctx.db);
    if (!removed) throw fail({ error: 'Invalid Request.' }, 403);
    return jsonSuccess({ message: 'Site Disconnected.' });
  }),
);

function licenseBody(l: LicenseRow) {
  return {
    license: 'valid',
    key: maskLicenseKey(l.license_key),
    activated: isoOf(l.activated_utc),
    checked: l.last_checked_utc ? isoOf(l.last_checked_utc) : null,
  };
}

const validateLicense = implement(
  v2.validateLicense,
  replies(async (_i, ctx) => {
    await mailCaller(ctx);
    const l = await getLicense(ctx.db);
    // A stored key is checked again: one written by an older format rule no longer counts.
    if (!l || normalizeLicenseKey(l.license_key) === null) throw fail({ message: 'License not found.' }, 404);
    await touchLicense(ctx.db);
    return jsonSuccess(licenseBody((await getLicense(ctx.db))!));
  }),
);

const activateLicense = implement(v2.activateLicense, async (_i, ctx) => {
  const p = readParams(ctx, { license_key: string({ description: 'License key', required: true }) });
  const key = normalizeLicenseKey(p.license_key);
  if (!key) throw invalidParam('license_key', 'Invalid license key.', 'mail_invalid_license');
  await setLicense(ctx.db, key, callerUserId(ctx));
  return jsonSuccess(licenseBody((await getLicense(ctx.db))!));
});

export const connectEndpointsV1: Endpoint[] = [connectApp, pairingKey, disconnectSite];
export const connectEndpointsV2: Endpoint[] = [validateLicense, activateLicense];
