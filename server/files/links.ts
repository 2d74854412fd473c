import crypto from 'node:crypto';

/**
 * Private-link tokens: `<link id>.<expiry, unix seconds>.<HMAC>`. The HMAC (site secret) covers the link ID,
 * the file's post ID and the expiry, so neither can be changed; the link row is still checked on use so that
 * unprotecting a file revokes its links.
 */

export const LINK_TTL_SECONDS = 7 * 24 * 3600;
const TOKEN = /^(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, linkId: number, postId: number, exp: number): string {
  return crypto.createHmac('sha256', secret).update(`private-link|${linkId}|${postId}|${exp}`).digest('base64url');
}

export function signLink(secret: string, linkId: number, postId: number, exp: number): string {
  return `${linkId}.${exp}.${mac(secret, linkId, postId, exp)}`;
}

export type TokenCheck = { ok: true; linkId: number; exp: number } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

/** Parses a token and checks its signature against the file it claims, then its expiry. */
export async function checkToken(
  secret: string,
  token: string,
  postIdOfLink: (linkId: number) => Promise<number | undefined>,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<TokenCheck> {
  const m = TOKEN.exec(token);
  if (!m) return { ok: false, reason: 'malformed' };
  const linkId = Number(m[1]);
  const exp = Number(m[2]);
  const postId = await postIdOfLink(linkId);
  if (postId === undefined) return { ok: false, reason: 'bad_signature' };
  const expected = Buffer.from(mac(secret, linkId, postId, exp));
  const given = Buffer.from(m[3]);
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return { ok: false, reason: 'bad_signature' };
  if (exp <= nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true, linkId, exp };
}
