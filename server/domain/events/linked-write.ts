import type { Ctx } from '../../kernel/context.ts';
import { callerUserId } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { validateArgs } from '../../http/validate.ts';
import {
  findLinkedByTitle,
  getLinkedRows,
  insertLinkedCols,
  publishedLinkedByTitle,
  updateLinkedCols,
  type LinkedKind,
} from '../../db/repos/linked.ts';
import { getUser } from '../../db/repos/users.ts';
import { insertPost, updatePost, uniqueSlug, type PostRow, type PostWrite } from '../../db/repos/posts.ts';
import { nowDates, publicationDates } from '../../content/site-time.ts';
import { isHttpUrl } from '../../content/text.ts';
import { organizerCreateArgs, venueCreateArgs } from '../../../shared/routes/event-args.ts';
import { assertMayAssignAuthor, assertMayChange, WRITABLE_STATUSES } from './access.ts';
import { requireLinked, resolveImage } from './refs.ts';

type Fields = Record<string, unknown>;

const DETAIL: Record<LinkedKind, readonly string[]> = {
  venue: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince', 'website'],
  organizer: ['phone', 'website', 'email'],
};

function bool(v: unknown): number | undefined {
  return v === undefined ? undefined : v ? 1 : 0;
}

/** Post columns shared by every post write: title, texts, status, author, dates, slug, image. */
export async function postWriteFields(ctx: Ctx, type: string, f: Fields, titleKey: string, existing?: PostRow): Promise<PostWrite> {
  const et = ctx.lang === 'et';
  const w: PostWrite = {};
  const text = (key: 'title' | 'content' | 'excerpt', v: unknown) => {
    if (v === undefined) return;
    const s = String(v);
    if (et) {
      w[`${key}_et`] = s;
      if (!existing) w[key] = s;
    } else w[key] = s;
  };
  text('title', f[titleKey]);
  text('content', f.description);
  text('excerpt', f.excerpt);
  if (f.status !== undefined) {
    const s = String(f.status).toLowerCase();
    if (!(WRITABLE_STATUSES as readonly string[]).includes(s)) throw invalidParam('status');
    w.status = s;
  }
  if (f.author !== undefined) {
    if (Number(f.author) !== 0 && !(await getUser(ctx.db, Number(f.author)))) throw invalidParam('author');
    w.author = Number(f.author);
  }
  if (f.date !== undefined || f.date_utc !== undefined) {
    const d = publicationDates(ctx.app.config.timezone, { date: f.date as string | undefined, date_utc: f.date_utc as string | undefined });
    if (!d) throw invalidParam(f.date_utc !== undefined ? 'date_utc' : 'date');
    Object.assign(w, d);
  }
  if (f.slug !== undefined && String(f.slug) !== '') w.slug = await uniqueSlug(ctx.db, type, String(f.slug), existing?.id ?? 0);
  if (f.image !== undefined) w.image_id = await resolveImage(ctx, f.image);
  const now = nowDates(ctx.app.config.timezone);
  w.modified = now.date;
  w.modified_gmt = now.date_gmt;
  if (!existing) {
    w.date ??= now.date;
    w.date_gmt ??= now.date_gmt;
    w.status ??= 'publish';
    w.author ??= callerUserId(ctx);
    w.slug ??= await uniqueSlug(ctx.db, type, String(f[titleKey] ?? type));
  }
  return w;
}

function detailCols(kind: LinkedKind, f: Fields): Record<string, unknown> {
  const cols: Record<string, unknown> = {};
  for (const k of DETAIL[kind]) if (f[k] !== undefined) cols[k] = String(f[k]).trim();
  if (cols.website && !isHttpUrl(String(cols.website))) throw invalidParam('website');
  // An organizer's e-mail is kept as given, as the original does (it is escaped wherever it is shown).
  if (kind === 'venue') {
    cols.show_map = bool(f.show_map);
    cols.show_map_link = bool(f.show_map_link);
    if (f.geo_lat !== undefined) cols.lat = f.geo_lat === null ? null : Number(f.geo_lat);
    if (f.geo_lng !== undefined) cols.lng = f.geo_lng === null ? null : Number(f.geo_lng);
  }
  return cols;
}

/**
 * TEC's duplicate avoidance on create: a published venue or organizer with the same title whose every field
 * the request gives (description, excerpt, details) is the same already is what the client asks for, so its ID
 * is answered instead of a copy. Nothing the client sent is lost: a differing field means a new post.
 */
async function duplicateOf(ctx: Ctx, kind: LinkedKind, w: PostWrite, cols: Record<string, unknown>, f: Fields): Promise<number | undefined> {
  if (f.status !== undefined && w.status !== 'publish') return undefined;
  if (f.author !== undefined || f.slug !== undefined || f.image !== undefined || f.date !== undefined || f.date_utc !== undefined) return undefined;
  if (ctx.lang === 'et' || w.title === undefined) return undefined;
  const ids = await publishedLinkedByTitle(ctx.db, kind, w.title);
  if (!ids.length) return undefined;
  const given = Object.entries(cols).filter(([, v]) => v !== undefined);
  for (const row of (await getLinkedRows(ctx.db, kind, ids)) as unknown as Record<string, unknown>[]) {
    if (w.content !== undefined && row.content !== w.content) continue;
    if (w.excerpt !== undefined && row.excerpt !== w.excerpt) continue;
    if (given.every(([k, v]) => row[k] === v)) return row.id as number;
  }
  return undefined;
}

/** Creates a venue or organizer from validated create fields (or finds its exact duplicate); returns its ID. */
export async function createLinked(ctx: Ctx, kind: LinkedKind, f: Fields): Promise<number> {
  const w = await postWriteFields(ctx, kind, f, kind);
  const cols = detailCols(kind, f);
  // Parameters first, then permission: any organizer creates, only an administrator for someone else.
  assertMayAssignAuthor(ctx, f.author !== undefined ? w.author : undefined);
  const same = await duplicateOf(ctx, kind, w, cols, f);
  if (same !== undefined) return same;
  const id = await insertPost(ctx.db, kind, w as PostWrite & { date: string; date_gmt: string });
  await insertLinkedCols(ctx.db, kind, id, cols);
  return id;
}

/**
 * Updates a venue or organizer: its parameters are checked first, then the permission (only its author or an
 * administrator changes it, only an administrator gives it to someone else), then it is written.
 */
export async function updateLinked(ctx: Ctx, kind: LinkedKind, existing: PostRow, f: Fields): Promise<void> {
  const w = await postWriteFields(ctx, kind, f, kind, existing);
  const cols = detailCols(kind, f);
  assertMayChange(ctx, existing.author);
  assertMayAssignAuthor(ctx, w.author);
  await updatePost(ctx.db, existing.id, w);
  await updateLinkedCols(ctx.db, kind, existing.id, cols);
}

/** Trashes a venue or organizer: only its author or an administrator (checked before the 410 for a trashed one). */
export async function trashLinked(ctx: Ctx, kind: LinkedKind, p: PostRow): Promise<void> {
  assertMayChange(ctx, p.author);
  if (p.status === 'trash') throw new HttpError(410, `${kind}-is-in-trash`, `The ${kind} is already trashed`);
  const now = nowDates(ctx.app.config.timezone);
  await updatePost(ctx.db, p.id, { status: 'trash', trashed_from: p.status, modified: now.date, modified_gmt: now.date_gmt });
}

/**
 * The `venue`/`organizer` of an event write: an ID, `{id}`, an object of create fields (an existing live one
 * with the same name is reused, as TEC avoids duplicates) or a list of those. Empty clears.
 */
export async function resolveLinkedInput(ctx: Ctx, kind: LinkedKind, value: unknown): Promise<number[]> {
  if (value === null || value === '' || value === 0 || value === false) return [];
  // TEC reads `organizer` as a list: one object of create fields on its own is not one (its values are no IDs).
  if (kind === 'organizer' && value && typeof value === 'object' && !Array.isArray(value) && (value as Fields).id === undefined) {
    throw new HttpError(400, 'could-not-create-organizer', 'The organizer could not be created from the provided data');
  }
  const items = Array.isArray(value) ? value : [value];
  const ids: number[] = [];
  for (const item of items) {
    if (typeof item === 'number' || (typeof item === 'string' && /^\d+$/.test(item))) {
      ids.push(await requireLinked(ctx, kind, Number(item)));
    } else if (item && typeof item === 'object' && !Array.isArray(item)) {
      const o = item as Fields;
      if (o.id !== undefined && o.id !== null && o.id !== '') {
        if (!/^\d+$/.test(String(o.id))) throw invalidParam(kind);
        ids.push(await requireLinked(ctx, kind, Number(o.id)));
        continue;
      }
      let fields: Fields;
      try {
        fields = validateArgs(kind === 'venue' ? venueCreateArgs : organizerCreateArgs, o);
      } catch {
        throw new HttpError(400, `could-not-create-${kind}`, `The ${kind} could not be created from the provided data`);
      }
      const same = await findLinkedByTitle(ctx.db, kind, String(fields[kind]).trim());
      ids.push(same ?? (await createLinked(ctx, kind, fields)));
    } else {
      // A name is no venue or organizer entry for TEC's validator (nor anything else but an ID or an object).
      throw invalidParam(kind);
    }
  }
  return [...new Set(ids)];
}
