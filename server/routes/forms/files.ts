import fs from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import type { Endpoint } from '../../http/registry.ts';
import { implement } from '../../http/registry.ts';
import { callerUserId } from '../../kernel/context.ts';
import { HttpError } from '../../kernel/errors.ts';
import { ok } from '../../kernel/result.ts';
import { roleCan } from '../../../shared/auth.ts';
import { submissionsRoutes as R } from '../../../shared/routes/forms.ts';
import { getForm, listForms } from '../../db/repos/forms.ts';
import { getUser } from '../../db/repos/users.ts';
import { sanitizeSlug } from '../../db/repos/posts.ts';
import { missingData, requireForms } from './common.ts';
import { DOWNLOAD_TTL_SECONDS, downloadsDir, pruneDownloads, resolveDownload, writeDownload } from './downloads.ts';
import { signToken, verifyToken } from './signing.ts';
import { exportCsvOf } from './submissions.ts';

/**
 * download-all writes the chosen forms' submissions to a randomly named file in the private downloads
 * directory (one form: a CSV; several: a ZIP of one CSV per form) and answers a link signed for the caller
 * that expires with the file. delete-download-file removes such a file and nothing else.
 */

const PURPOSE = 'download';

const downloadAll = implement(R.downloadAll, async (input, ctx) => {
  const formIds = input.form_ids?.length ? [...new Set(input.form_ids)] : (await listForms(ctx.db)).map((f) => f.id);
  if (!formIds.length) throw missingData();
  await requireForms(ctx, formIds, 'form_ids');
  const dir = downloadsDir(ctx.app.config.dataDir);
  pruneDownloads(dir);
  let name: string;
  if (formIds.length === 1) {
    name = writeDownload(dir, 'csv', await exportCsvOf(ctx, formIds[0]));
  } else {
    const files: Record<string, Uint8Array> = {};
    for (const id of formIds)
      files[`form-${id}-${sanitizeSlug((await getForm(ctx.db, id))!.title) || 'form'}.csv`] = strToU8(await exportCsvOf(ctx, id));
    name = writeDownload(dir, 'zip', zipSync(files, { level: 6 }));
  }
  const exp = Math.floor(Date.now() / 1000) + DOWNLOAD_TTL_SECONDS;
  const token = signToken(ctx.app.secret, PURPOSE, { f: name, u: callerUserId(ctx), exp });
  return ok({
    formId: String(formIds[0]),
    downloadUrl: `${ctx.urls.rest('/forms-submissions/download')}?token=${encodeURIComponent(token)}`,
    filePath: name,
    formIds: formIds.map(String),
    expires: new Date(exp * 1000).toISOString(),
  });
});

const linkInvalid = () => new HttpError(403, 'download_link_invalid', 'The download link is invalid.');

const download = implement(R.download, async (input, ctx) => {
  const p = verifyToken(ctx.app.secret, PURPOSE, input.token);
  if (!p || typeof p.f !== 'string' || typeof p.u !== 'number' || typeof p.exp !== 'number') throw linkInvalid();
  if (p.exp <= Math.floor(Date.now() / 1000)) throw new HttpError(403, 'download_link_expired', 'The download link has expired.');
  // The link is bound to the user who asked for it, and dies when that user loses access to submissions.
  const user = await getUser(ctx.db, p.u);
  if (!user || !roleCan(user.role, 'manage_forms')) throw linkInvalid();
  const r = resolveDownload(downloadsDir(ctx.app.config.dataDir), p.f);
  if (!r.ok) throw r.reason === 'missing' ? new HttpError(404, 'download_not_found', 'The file no longer exists.') : linkInvalid();
  const zip = p.f.endsWith('.zip');
  return {
    status: 200,
    body: null,
    headers: {
      'Content-Disposition': `attachment; filename="form-submissions.${zip ? 'zip' : 'csv'}"`,
      'Cache-Control': 'no-store, private',
    },
    raw: { contentType: zip ? 'application/zip' : 'text/csv; charset=utf-8', payload: fs.readFileSync(r.file) },
  };
});

const deleteDownloadFile = implement(R.deleteDownloadFile, (input, ctx) => {
  const r = resolveDownload(downloadsDir(ctx.app.config.dataDir), input.file_path);
  if (!r.ok && r.reason === 'forbidden') throw new HttpError(403, 'forbidden_path', 'Permission denied to delete a file in that directory.');
  if (!r.ok) return ok({ result: 'File could not be found for deletion' });
  try {
    fs.unlinkSync(r.file);
  } catch {
    return ok({ result: fs.existsSync(r.file) ? 'File could not be deleted' : 'File could not be found for deletion' });
  }
  return ok({ result: 'File was deleted' });
});

export const fileEndpoints: Endpoint[] = [downloadAll, deleteDownloadFile, download];
