import crypto from 'node:crypto';
import type { Ctx } from '../../kernel/context.ts';
import { can, callerUserId } from '../../kernel/context.ts';
import { forbidden } from '../../kernel/errors.ts';
import { findMailApp, touchMailApp, type MailAppRow } from '../../db/repos/mail-log.ts';
import { fail } from './reply.ts';
import { header } from './params.ts';
import { refusedSecret } from '../../auth/sign-in-limits.ts';

export type MailCaller = { kind: 'admin'; userId: number } | { kind: 'app'; app: MailAppRow; token: string };

export const hashToken = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Who is calling a mobile route: a connected app by its `fcm_token` header (Post SMTP's
 * `post_smtp_mobile_validate`: empty -> 400 "Auth token missing.", unknown -> 401 "Invalid Auth Token."), or
 * else an administrator; anyone else gets WordPress's rest_forbidden (401 anonymous, 403 signed in).
 * `access_token` in the query is accepted where the original hands it out in a URL (get-log -> get-details).
 */
export async function mailCaller(ctx: Ctx, opts: { accessToken?: boolean } = {}): Promise<MailCaller> {
  let token = header(ctx, 'fcm_token');
  if (token === undefined && opts.accessToken && typeof ctx.req.query.access_token === 'string') token = ctx.req.query.access_token;
  if (token === undefined) {
    if (can(ctx, 'manage_options')) return { kind: 'admin', userId: callerUserId(ctx) };
    throw forbidden(ctx.caller.kind === 'anonymous');
  }
  if (token.trim() === '') throw fail({ error: 'Auth token missing.' }, 400);
  const app = await findMailApp(ctx.db, hashToken(token));
  if (!app) {
    // A wrong token counts against the address as a wrong door key does (429 past the limit).
    await refusedSecret(ctx.app, ctx.req.ip);
    throw fail({ error: 'Invalid Auth Token.' }, 401);
  }
  await touchMailApp(ctx.db, app.id);
  return { kind: 'app', app, token };
}
