import crypto from 'node:crypto';
import type { Ctx } from '../../kernel/context.ts';
import { can } from '../../kernel/context.ts';
import { HttpError, forbidden } from '../../kernel/errors.ts';
import { roleCan } from '../../../shared/auth.ts';
import { nowUtc } from '../../db/clock.ts';
import { getUser } from '../../db/repos/users.ts';
import { getViewToken, insertViewToken, pruneViewTokens, revokeViewToken, type ViewTokenRow } from '../../db/repos/forms.ts';
import { signToken, verifyToken } from './signing.ts';
import { refusedSecret } from '../../auth/sign-in-limits.ts';

/**
 * Views tokens (the original's `X-NinjaFormsViews-Auth`): a short-lived token, signed with the site secret,
 * bound to the user it was issued to and optionally to some forms. It lets a page that shows a
 * submissions table read the forms-views routes without the user's password. A token is good while
 * (1) its signature holds, (2) it has not expired, (3) its row exists and is not revoked (a refresh revokes
 * the token it replaces), and (4) its user still exists and may manage forms.
 */

export const VIEWS_TOKEN_TTL = 900;
const PURPOSE = 'views';
export const TOKEN_HEADERS = ['x-evt-formsviews-auth', 'x-ninjaformsviews-auth'] as const;

export function tokenHeader(ctx: Ctx): string | undefined {
  for (const h of TOKEN_HEADERS) {
    const v = ctx.req.headers[h];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

export async function issueViewsToken(ctx: Ctx, userId: number, formIds: number[] | null): Promise<{ token: string; id: string }> {
  const id = crypto.randomBytes(16).toString('hex');
  const exp = Math.floor(Date.now() / 1000) + VIEWS_TOKEN_TTL;
  await insertViewToken(ctx.db, {
    id,
    user_id: userId,
    form_ids: formIds ? JSON.stringify(formIds) : null,
    created: nowUtc(),
    expires: nowUtc(new Date(exp * 1000)),
  });
  await pruneViewTokens(ctx.db, nowUtc(new Date(Date.now() - 86400_000)));
  return { token: signToken(ctx.app.secret, PURPOSE, { jti: id, u: userId, exp }), id };
}

const invalid = () => new HttpError(403, 'invalid_token', 'The provided token is invalid or has been tampered with.');

/** The stored row of a good token; throws `invalid_token` (403) or `expired_token` (403). */
export async function checkViewsToken(ctx: Ctx, token: string): Promise<ViewTokenRow> {
  const p = verifyToken(ctx.app.secret, PURPOSE, token);
  if (!p || typeof p.jti !== 'string' || typeof p.u !== 'number' || typeof p.exp !== 'number') {
    // A forged token counts against the address as a wrong door key does (429 past the limit).
    await refusedSecret(ctx.app, ctx.req.ip);
    throw invalid();
  }
  const row = await getViewToken(ctx.db, p.jti);
  if (!row || row.user_id !== p.u || row.revoked_at) throw invalid();
  const user = await getUser(ctx.db, row.user_id);
  if (!user || !roleCan(user.role, 'manage_forms')) throw invalid();
  if (p.exp <= Math.floor(Date.now() / 1000)) throw new HttpError(403, 'expired_token', 'The provided token has expired; refresh it.');
  return row;
}

export function tokenForms(row: ViewTokenRow): number[] | null {
  return row.form_ids === null ? null : (JSON.parse(row.form_ids) as number[]);
}

/**
 * Who may read a forms-views route: a manager (no limit), or a views token (limited to its forms).
 * Without either, the usual `rest_forbidden` (401 anonymous, 403 signed in).
 */
export async function authorizeViews(ctx: Ctx, formId?: number): Promise<{ forms: number[] | null }> {
  if (can(ctx, 'manage_forms')) return { forms: null };
  const token = tokenHeader(ctx);
  if (!token) throw forbidden(ctx.caller.kind === 'anonymous');
  const forms = tokenForms(await checkViewsToken(ctx, token));
  if (formId !== undefined && forms !== null && !forms.includes(formId)) {
    throw new HttpError(403, 'unauthorized_form_access', 'The requested form was not authorized in your token.');
  }
  return { forms };
}

export async function revokeOwnToken(ctx: Ctx, userId: number): Promise<void> {
  const token = tokenHeader(ctx);
  if (!token) return;
  const row = await checkViewsTokenAllowExpired(ctx, token);
  if (row.user_id !== userId) throw invalid();
  await revokeViewToken(ctx.db, row.id, nowUtc());
}

async function checkViewsTokenAllowExpired(ctx: Ctx, token: string): Promise<ViewTokenRow> {
  try {
    return await checkViewsToken(ctx, token);
  } catch (e) {
    if (!(e instanceof HttpError) || e.code !== 'expired_token') throw e;
    const p = verifyToken(ctx.app.secret, PURPOSE, token)!;
    return (await getViewToken(ctx.db, p.jti as string))!;
  }
}
