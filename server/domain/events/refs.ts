import type { Ctx } from '../../kernel/context.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { findAttachmentByUrl, getAttachment, insertAttachmentCols } from '../../db/repos/attachments.ts';
import { getPost, insertPost, sanitizeSlug } from '../../db/repos/posts.ts';
import { findTermByName, findTermBySlug, getTermInTaxonomy, insertTerm, uniqueTermSlug } from '../../db/repos/terms.ts';
import { isHttpUrl } from '../../content/text.ts';
import { nowDates } from '../../content/site-time.ts';
import { callerUserId } from '../../kernel/context.ts';

function listOf(value: unknown): unknown[] {
  if (value === null || value === undefined || value === '') return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>);
  return [value];
}

/**
 * Category or tag references: term IDs, slugs or names (TEC `translate_terms_to_ids`). Unknown names become
 * new terms when `create` is set (event writes), else they are an invalid parameter (filters); unknown IDs are
 * an invalid parameter of a filter and, as in the original, left out of an event write.
 */
export async function resolveTermRefs(ctx: Ctx, taxonomy: string, value: unknown, param: string, create: boolean): Promise<number[]> {
  const ids: number[] = [];
  for (const item of listOf(value)) {
    if (typeof item === 'number' || (typeof item === 'string' && /^\d+$/.test(item))) {
      const bySlug = typeof item === 'string' ? await findTermBySlug(ctx.db, taxonomy, item) : undefined;
      const t = bySlug ?? (await getTermInTaxonomy(ctx.db, taxonomy, Number(item)));
      if (!t) {
        if (create) continue;
        throw invalidParam(param);
      }
      ids.push(t.id);
      continue;
    }
    if (typeof item !== 'string' || !item.trim()) throw invalidParam(param);
    const name = item.trim();
    const found = (await findTermBySlug(ctx.db, taxonomy, name)) ?? (await findTermByName(ctx.db, taxonomy, name));
    if (found) {
      ids.push(found.id);
      continue;
    }
    if (!create) throw invalidParam(param);
    const slug = await uniqueTermSlug(ctx.db, taxonomy, sanitizeSlug(name) || 'term');
    // A term made inline by an event write is the caller's (its author, or an administrator, changes it).
    ids.push(await insertTerm(ctx.db, { taxonomy, name, slug, description: '', parent: 0, author: callerUserId(ctx) }));
  }
  return [...new Set(ids)];
}

const IMAGE_EXT: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
};

/**
 * A featured image given as an attachment ID or an image URL. A URL is recorded as an attachment that points
 * at it; the server never fetches it (no request to arbitrary hosts). Empty clears the image.
 */
export async function resolveImage(ctx: Ctx, value: unknown, param = 'image'): Promise<number> {
  if (value === '' || value === 0 || value === '0' || value === false || value === null) return 0;
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) {
    const att = await getAttachment(ctx.db, Number(value));
    if (!att?.mime_type.startsWith('image/')) throw invalidParam(param);
    return att.post_id;
  }
  if (typeof value === 'object' && value && 'id' in value) return await resolveImage(ctx, (value as { id: unknown }).id, param);
  if (typeof value !== 'string' || !isHttpUrl(value)) throw invalidParam(param);
  const ext = /\.([a-z0-9]{2,5})(?:[?#]|$)/i.exec(new URL(value).pathname)?.[1]?.toLowerCase() ?? '';
  const mime = IMAGE_EXT[ext];
  if (!mime) throw invalidParam(param);
  const existing = await findAttachmentByUrl(ctx.db, value);
  if (existing) return existing;
  const file = decodeURIComponent(new URL(value).pathname.split('/').pop() ?? 'image');
  const id = await insertPost(ctx.db, 'attachment', {
    ...nowDates(ctx.app.config.timezone),
    status: 'inherit',
    author: callerUserId(ctx),
    title: file.replace(/\.[^.]+$/, ''),
    slug: sanitizeSlug(file.replace(/\.[^.]+$/, '')),
  });
  await insertAttachmentCols(ctx.db, id, { url: value, mime_type: mime });
  return id;
}

/** Checks that `id` is a live post of `type`; else, as TEC's validator (`is_venue_id_or_entry`), `venue` or `organizer` is an invalid parameter. */
export async function requireLinked(ctx: Ctx, type: 'venue' | 'organizer', id: number): Promise<number> {
  const p = await getPost(ctx.db, id);
  if (!p || p.type !== type || p.status === 'trash') throw invalidParam(type);
  return id;
}
