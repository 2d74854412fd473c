import crypto from 'node:crypto';
import { MAX_UPLOAD_BYTES, protectedFilesRoutes as R, validUploadName } from '../../../shared/routes/protected-files.ts';
import type { Ctx } from '../../kernel/context.ts';
import { callerUserId } from '../../kernel/context.ts';
import { forbidden, HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok } from '../../kernel/result.ts';
import { nowUtc, utcSeconds } from '../../db/clock.ts';
import { getPost, insertPost, uniqueSlug } from '../../db/repos/posts.ts';
import { insertAttachmentCols } from '../../db/repos/attachments.ts';
import { getFile, insertLink, insertUpload, liveLinks, revokeLinks, setProtection, type FileRow, type LinkRow } from '../../db/repos/files.ts';
import { mayChangePost } from '../../security/post-ownership.ts';
import { nowDates } from '../../content/site-time.ts';
import { LINK_TTL_SECONDS, signLink } from '../../files/links.ts';
import { mimeOf, moveTo, removeStored, sniff, storedExists, typeMatches, writeNew } from '../../files/storage.ts';

/** The path ID: these routes declare no arguments, as in the original, so it is read from the URL. */
async function fileOf(ctx: Ctx): Promise<FileRow> {
  const id = Number(ctx.req.params.id);
  const f = Number.isSafeInteger(id) && id > 0 ? await getFile(ctx.db, id) : undefined;
  if (!f || f.status === 'trash') throw new HttpError(404, 'rest_post_invalid_id', 'Invalid post ID.');
  return f;
}

/** Public address of an unprotected file (server/site/files.ts serves it). */
export function publicFileUrl(ctx: Ctx, f: Pick<FileRow, 'post_id' | 'name'>): string {
  return `${ctx.urls.base}/files/${f.post_id}/${encodeURIComponent(f.name)}`;
}

function present(ctx: Ctx, f: FileRow) {
  const publicUrl = f.name ? publicFileUrl(ctx, f) : f.url;
  return {
    is_protected: f.protected === 1,
    post: {
      title: f.title === '' ? '(no title)' : f.title,
      edit_url: publicUrl,
      s3_link: false,
      is_file_deleted: !storedExists(ctx.app.config.dataDir, f.file_path),
    },
    role_setting: { file_access_permission: 'admin_users', whitelist_roles: '' },
    file: {
      id: f.post_id,
      name: f.name,
      mime_type: f.mime_type,
      filesize: f.filesize ?? 0,
      sha256: f.sha256,
      parent: f.parent,
      url: f.protected === 1 ? null : publicUrl,
      created: f.created,
    },
  };
}

function presentLink(ctx: Ctx, l: LinkRow) {
  const exp = utcSeconds(l.expires);
  const token = signLink(ctx.app.secret, l.id, l.post_id, exp);
  return {
    ID: l.id,
    post_id: l.post_id,
    time: utcSeconds(l.created),
    url: token,
    full_url: `${ctx.urls.base}/private/${token}`,
    is_prevented: 1,
    hits_count: l.hits,
    limit_downloads: null,
    expired_date: exp,
    expired: exp <= Math.floor(Date.now() / 1000),
  };
}

function requireOnDisk(ctx: Ctx, f: FileRow): string {
  if (!f.file_path || !storedExists(ctx.app.config.dataDir, f.file_path)) {
    throw new HttpError(404, 'file_not_found', 'The file does not exist.', { id: f.post_id });
  }
  return f.file_path;
}

const protect = implement(R.protect, async (_input, ctx) => {
  const f = await fileOf(ctx);
  const rel = requireOnDisk(ctx, f);
  const now = new Date();
  const link = await insertLink(ctx.db, {
    postId: f.post_id,
    created: nowUtc(now),
    expires: nowUtc(new Date(now.getTime() + LINK_TTL_SECONDS * 1000)),
    createdBy: callerUserId(ctx),
  });
  // The move comes last: if it fails the transaction rolls back and nothing changed.
  if (f.protected !== 1) await setProtection(ctx.db, f.post_id, true, moveTo(ctx.app.config.dataDir, rel, 'protected'));
  return ok(presentLink(ctx, link));
});

const privateUrls = implement(R.privateUrls, async (_input, ctx) => {
  const f = await fileOf(ctx);
  if (f.protected !== 1) return ok([]);
  return ok((await liveLinks(ctx.db, f.post_id)).map((l) => presentLink(ctx, l)));
});

const read = implement(R.read, async (_input, ctx) => ok(present(ctx, await fileOf(ctx))));

const unprotect = implement(R.unprotect, async (_input, ctx) => {
  const f = await fileOf(ctx);
  const rel = requireOnDisk(ctx, f);
  const revoked = await revokeLinks(ctx.db, f.post_id);
  if (f.protected === 1) await setProtection(ctx.db, f.post_id, false, moveTo(ctx.app.config.dataDir, rel, 'public'));
  return ok({
    ID: f.post_id,
    post_id: f.post_id,
    time: Math.floor(Date.now() / 1000),
    url: publicFileUrl(ctx, f),
    is_prevented: 0,
    revoked_links: revoked,
  });
});

function decodeBase64(s: string): Buffer | null {
  const clean = s.replace(/\s+/g, '');
  if (clean.length === 0 || clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(clean)) return null;
  return Buffer.from(clean, 'base64');
}

const upload = implement(R.upload, async (input, ctx) => {
  const ext = validUploadName(input.filename);
  if (!ext) throw invalidParam('filename', 'Invalid file name.', 'rest_invalid_file_name');
  // The decoded size is known from the encoded length; refuse before decoding anything large.
  if (input.content.length > Math.ceil(MAX_UPLOAD_BYTES / 3) * 4 + 64) {
    throw new HttpError(413, 'rest_upload_too_large', `The file is larger than ${MAX_UPLOAD_BYTES} bytes.`, { max_bytes: MAX_UPLOAD_BYTES });
  }
  const bytes = decodeBase64(input.content);
  if (!bytes || bytes.length === 0) throw invalidParam('content', 'content is not valid base64.', 'rest_invalid_base64');
  if (bytes.length > MAX_UPLOAD_BYTES)
    throw new HttpError(413, 'rest_upload_too_large', `The file is larger than ${MAX_UPLOAD_BYTES} bytes.`, { max_bytes: MAX_UPLOAD_BYTES });
  if (!typeMatches(ext, sniff(bytes))) throw invalidParam('content', `The content is not a .${ext} file.`, 'rest_upload_type_mismatch');
  let parent = 0;
  if (input.post_id !== undefined) {
    const p = await getPost(ctx.db, input.post_id);
    if (!p || p.status === 'trash' || p.type === 'attachment') throw invalidParam('post_id');
    // Attaching a file changes the post: only for a post the caller may change (CONTRACT section 3), checked
    // after every parameter, as the original orders its checks.
    if (!(await mayChangePost(ctx, p))) throw forbidden(ctx.caller.kind === 'anonymous');
    parent = p.id;
  }
  const dates = nowDates(ctx.app.config.timezone);
  const id = await insertPost(ctx.db, 'attachment', {
    ...dates,
    status: 'inherit',
    author: callerUserId(ctx),
    title: input.filename,
    slug: await uniqueSlug(ctx.db, 'attachment', input.filename.replace(/\.[^.]+$/, '')),
    parent,
  });
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  await insertUpload(ctx.db, { postId: id, name: input.filename, sha256, uploadedBy: callerUserId(ctx), created: nowUtc() });
  // Written last, so a failed write rolls the rows back (and a failed row removes the file).
  const rel = writeNew(ctx.app.config.dataDir, 'public', ext, bytes);
  try {
    await insertAttachmentCols(ctx.db, id, {
      url: publicFileUrl(ctx, { post_id: id, name: input.filename }),
      file_path: rel,
      mime_type: mimeOf(ext),
      filesize: bytes.length,
      protected: 0,
    });
  } catch (e) {
    removeStored(ctx.app.config.dataDir, rel);
    throw e;
  }
  return created(present(ctx, (await getFile(ctx.db, id))!));
});

export const protectedFilesEndpoints: Endpoint[] = [protect, privateUrls, read, unprotect, upload];
