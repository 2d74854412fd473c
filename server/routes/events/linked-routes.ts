import { organizersRoutes, venuesRoutes } from '../../../shared/routes/events.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok } from '../../kernel/result.ts';
import { findPostIdBySlug, getPost, type PostRow } from '../../db/repos/posts.ts';
import { linkedArchive, type LinkedKind } from '../../db/repos/linked.ts';
import { utcString } from '../../content/site-time.ts';
import { statusFilter, visibleStatus } from '../../domain/events/access.ts';
import { archiveLinks, knownQuery, totalHeaders } from './archive.ts';
import { createLinked, trashLinked, updateLinked } from '../../domain/events/linked-write.ts';
import { presentLinked } from './present-linked.ts';
import { pathSlug } from './events.ts';

const MAX_PER_PAGE = 50;
const SUPPORTED = ['page', 'per_page', 'search', 'event', 'has_events', 'only_with_upcoming', 'status'];

function truthy(v: unknown): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  return ['1', 'true', 'yes', 'on'].includes(String(v).toLowerCase());
}

async function load(ctx: Ctx, kind: LinkedKind, id: number): Promise<PostRow> {
  const p = id > 0 ? await getPost(ctx.db, id) : undefined;
  // TEC validates the ID argument with is_venue_id / is_organizer_id: a failure is a parameter error.
  if (!p || p.type !== kind) {
    const e = invalidParam('id');
    // Its edit and delete permission checks ask for rights on that post (edit_post): with no post by that ID
    // the Allow is GET alone; another post type's ID still gives the route's methods.
    if (!p) e.answerHeaders = { Allow: 'GET' };
    throw e;
  }
  return p;
}

async function bySlug(ctx: Ctx, kind: LinkedKind): Promise<PostRow> {
  const id = await findPostIdBySlug(ctx.db, kind, pathSlug(ctx));
  if (!id) throw invalidParam('slug');
  return (await getPost(ctx.db, id))!;
}

async function read(ctx: Ctx, kind: LinkedKind, p: PostRow) {
  if (p.status === 'trash' || !visibleStatus(ctx, p.status))
    throw new HttpError(403, `${kind}-not-accessible`, `The requested ${kind} is not accessible`);
  return ok((await presentLinked(ctx, kind, [p.id], { single: true }))[0]);
}

async function trash(ctx: Ctx, kind: LinkedKind, p: PostRow) {
  await trashLinked(ctx, kind, p);
  return ok((await presentLinked(ctx, kind, [p.id]))[0]);
}

async function update(ctx: Ctx, kind: LinkedKind, p: PostRow, input: Record<string, unknown>) {
  await updateLinked(ctx, kind, p, input);
  return ok((await presentLinked(ctx, kind, [p.id]))[0]);
}

async function archive(
  ctx: Ctx,
  kind: LinkedKind,
  input: { page: number; per_page: number; search?: string; event?: number; has_events?: unknown; only_with_upcoming?: unknown; status?: string[] },
) {
  const perPage = Math.min(input.per_page, MAX_PER_PAGE);
  // TEC's filter_post_status_list takes registered post statuses only: `any` is not one (400).
  if (input.status?.some((x) => x.toLowerCase() === 'any')) throw invalidParam('status');
  const statuses = statusFilter(ctx, input.status);
  if (input.event !== undefined && (await getPost(ctx.db, input.event))?.type !== 'event') throw invalidParam('event');
  // Newest first, as WordPress's post query orders (post date, then ID).
  const { ids, total } = await linkedArchive(ctx.db, {
    kind,
    statuses,
    search: input.search,
    eventId: input.event,
    hasEvents: truthy(input.has_events),
    upcomingFromUtc: truthy(input.only_with_upcoming) ? utcString(new Date()) : undefined,
    limit: perPage,
    offset: (input.page - 1) * perPage,
  });
  if (input.page > 1 && ids.length === 0)
    throw new HttpError(404, `${kind}-archive-page-not-found`, `The requested ${kind} archive page does not exist`);
  const totalPages = Math.ceil(total / perPage);
  const links = archiveLinks(ctx.urls.rest(`/evt/events/v1/${kind}s/`), knownQuery(ctx.req.params, SUPPORTED), input.page, totalPages);
  return ok({ [`${kind}s`]: await presentLinked(ctx, kind, ids), ...links, total, total_pages: totalPages }, totalHeaders(total, totalPages));
}

function endpoints(kind: LinkedKind, routes: typeof venuesRoutes): Endpoint[] {
  return [
    implement(routes.list, (input, ctx) => archive(ctx, kind, input)),
    implement(routes.read, async (input, ctx) => read(ctx, kind, await load(ctx, kind, input.id))),
    implement(routes.delete, async (input, ctx) => trash(ctx, kind, await load(ctx, kind, input.id))),
    implement(routes.update, async (input, ctx) => update(ctx, kind, await load(ctx, kind, input.id), input)),
    implement(routes.create, async (input, ctx) => created((await presentLinked(ctx, kind, [await createLinked(ctx, kind, input)]))[0])),
    implement(routes.readBySlug, async (_input, ctx) => read(ctx, kind, await bySlug(ctx, kind))),
    implement(routes.deleteBySlug, async (_input, ctx) => trash(ctx, kind, await bySlug(ctx, kind))),
    implement(routes.updateBySlug, async (input, ctx) => {
      const p = await bySlug(ctx, kind);
      return await update(ctx, kind, p, input.slug === p.slug ? { ...input, slug: undefined } : input);
    }),
  ];
}

export const venueEndpoints = endpoints('venue', venuesRoutes);
export const organizerEndpoints = endpoints('organizer', organizersRoutes as unknown as typeof venuesRoutes);
