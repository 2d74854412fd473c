import { categoriesRoutes, tagsRoutes } from '../../../shared/routes/events.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { getPost, sanitizeSlug } from '../../db/repos/posts.ts';
import {
  allTermsIn,
  deleteTerm,
  findTermByName,
  findTermBySlug,
  getTermInTaxonomy,
  insertTerm,
  queryTerms,
  updateTerm,
  type TermRow,
} from '../../db/repos/terms.ts';
import { callerUserId } from '../../kernel/context.ts';
import { assertMayChange } from '../../domain/events/access.ts';
import { mayChangeAuthored } from '../../security/ownership.ts';
import { archiveLinks, totalHeaders } from './archive.ts';
import { presentTerm } from './present-term.ts';
import { TAXONOMY } from '../../domain/events/taxonomy.ts';

type Plural = 'categories' | 'tags';

const MAX_PER_PAGE = 50;

async function load(ctx: Ctx, taxonomy: string, id: number): Promise<TermRow> {
  const t = await getTermInTaxonomy(ctx.db, taxonomy, id);
  // TEC validates the ID with is_event_category / is_post_tag: a failure is a parameter error.
  if (!t) throw invalidParam('id');
  return t;
}

async function checkParent(ctx: Ctx, taxonomy: string, parent: number | undefined, self = 0): Promise<void> {
  if (!parent) return;
  // TEC checks `parent` with is_event_category: an unknown parent is an invalid parameter.
  if (!(await getTermInTaxonomy(ctx.db, taxonomy, parent))) throw invalidParam('parent');
  // A term may not become its own ancestor.
  for (let p = parent, guard = 0; p && guard < 1000; guard++) {
    if (p === self) throw new HttpError(400, 'rest_term_invalid', 'A term cannot be its own ancestor.');
    p = (await getTermInTaxonomy(ctx.db, taxonomy, p))?.parent ?? 0;
  }
}

async function exists(ctx: Ctx, taxonomy: string, name: string, slug: string | undefined, self: number): Promise<void> {
  // '' names no term (a slug-only check): not asked of the database, whose text could not hold a sentinel byte.
  const clash = name === '' ? undefined : await findTermByName(ctx.db, taxonomy, name);
  if (clash && clash.id !== self) {
    throw new HttpError(400, 'term_exists', 'A term with the name provided already exists in this taxonomy.', { term_id: clash.id }, [
      clash.id,
      clash.id,
    ]);
  }
  if (slug) {
    const s = await findTermBySlug(ctx.db, taxonomy, slug);
    if (s && s.id !== self)
      throw new HttpError(400, 'duplicate_term_slug', `The slug “${slug}” is already in use by another term.`, { term_id: s.id });
  }
}

/**
 * Creates or updates a term. Parameters are checked first, then (on update) the permission: only the term's
 * author or an administrator changes it (terms made before terms had an author: administrators only); then
 * name, slug and parent clashes, as the core terms controller checks them in its callback.
 */
async function write(
  ctx: Ctx,
  taxonomy: string,
  input: { name?: string; description?: string; slug?: string; parent?: number },
  existing?: TermRow,
): Promise<number> {
  const et = ctx.lang === 'et';
  const slug = input.slug !== undefined && input.slug !== '' ? sanitizeSlug(input.slug) : undefined;
  if (input.slug !== undefined && input.slug !== '' && !slug) throw invalidParam('slug');
  if (existing) assertMayChange(ctx, existing.author);
  if (input.name !== undefined && !et) await exists(ctx, taxonomy, input.name.trim(), slug, existing?.id ?? 0);
  else if (slug) await exists(ctx, taxonomy, '', slug, existing?.id ?? 0);
  await checkParent(ctx, taxonomy, input.parent, existing?.id ?? 0);
  if (!existing) {
    const name = input.name!.trim();
    const finalSlug = slug ?? (sanitizeSlug(name) || 'term');
    if (!slug && (await findTermBySlug(ctx.db, taxonomy, finalSlug))) {
      const id = (await findTermBySlug(ctx.db, taxonomy, finalSlug))!.id;
      throw new HttpError(400, 'term_exists', 'A term with the name provided already exists in this taxonomy.', { term_id: id }, [id, id]);
    }
    return await insertTerm(ctx.db, {
      taxonomy,
      name,
      name_et: et ? name : null,
      slug: finalSlug,
      description: input.description ?? '',
      description_et: et ? (input.description ?? null) : null,
      parent: input.parent ?? 0,
      author: callerUserId(ctx),
    });
  }
  await updateTerm(ctx.db, existing.id, {
    ...(input.name !== undefined ? (et ? { name_et: input.name.trim() } : { name: input.name.trim() }) : {}),
    ...(input.description !== undefined ? (et ? { description_et: input.description } : { description: input.description }) : {}),
    ...(slug ? { slug } : {}),
    ...(input.parent !== undefined ? { parent: input.parent } : {}),
  });
  return existing.id;
}

/**
 * A term's `_links` (single read, create and update answers; not archives or deletes), in the shape WordPress's term controller gives the
 * original's: `self` with the methods it takes, `collection`, the parent as `up`, the events carrying the term,
 * `curies`. They point to Doorstep's own routes (the original's point to /wp/v2/, which Doorstep does not serve);
 * docs/compatibility.md, EXT-term-links.
 */
function termLinks(ctx: Ctx, plural: Plural, t: TermRow): Record<string, unknown> {
  const base = `/evt/events/v1/${plural}`;
  // The methods this caller may use on the term (WordPress's targetHints): a reader only GET.
  const allow = mayChangeAuthored(ctx, t.author) ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : ['GET'];
  const links: Record<string, unknown> = {
    self: [{ href: ctx.urls.rest(`${base}/${t.id}`), targetHints: { allow } }],
    collection: [{ href: ctx.urls.rest(base) }],
  };
  if (t.parent) links.up = [{ embeddable: true, href: ctx.urls.rest(`${base}/${t.parent}`) }];
  links['wp:post_type'] = [{ href: ctx.urls.rest(`/evt/events/v1/events?${plural}=${t.id}`) }];
  links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
  return links;
}

/** A term as a single read, create or update answers it: the term and its `_links`. */
function writtenTerm(ctx: Ctx, plural: Plural, t: TermRow): Record<string, unknown> {
  return { ...presentTerm(ctx, t), _links: termLinks(ctx, plural, t) };
}

function endpoints(plural: Plural): Endpoint[] {
  const taxonomy = TAXONOMY[plural];
  const routes = (plural === 'categories' ? categoriesRoutes : tagsRoutes) as typeof categoriesRoutes;
  const base = `/evt/events/v1/${plural}`;
  return [
    implement(routes.list, async (args, ctx) => {
      const input = args as Record<string, unknown>;
      const post = (input.post ?? input.event) as number | undefined;
      if (post !== undefined && (await getPost(ctx.db, post))?.type !== 'event') throw invalidParam(input.post !== undefined ? 'post' : 'event');
      // TEC's is_event_category / is_post_tag: every included, excluded or parent term must exist.
      for (const name of ['include', 'exclude', 'parent'] as const) {
        const v = input[name];
        const ids = Array.isArray(v) ? (v as number[]) : v === undefined ? [] : [v as number];
        if (!(await allTermsIn(ctx.db, taxonomy, ids))) throw invalidParam(name);
      }
      // The archive clamps per_page to 50, as the events archives do (the original: sanitize_per_page).
      const perPage = Math.min(input.per_page as number, MAX_PER_PAGE);
      const page = input.page as number;
      const { rows, total } = await queryTerms(ctx.db, {
        taxonomy,
        search: input.search as string | undefined,
        include: input.include as number[],
        exclude: input.exclude as number[],
        hideEmpty: input.hide_empty as boolean,
        parent: input.parent as number | undefined,
        post,
        slugs: input.slug as string[] | undefined,
        orderby: String(input.orderby).toLowerCase(),
        // WordPress's term query: ASC when asked for, DESC for anything else.
        order: String(input.order).toUpperCase() === 'ASC' ? 'asc' : 'desc',
        limit: perPage,
        offset: (page - 1) * perPage,
      });
      const totalPages = Math.ceil(total / perPage);
      // A page past the last is an empty page (200), with the link to the page before it, as the original.
      const links = archiveLinks(ctx.urls.rest(`${base}/`), page > 1 ? [['page', String(page)]] : [], page, Math.max(totalPages, page));
      return ok(
        {
          rest_url: ctx.urls.rest(`${base}/`),
          total,
          total_pages: totalPages,
          [plural]: rows.map((t) => presentTerm(ctx, t)),
          ...(links.next_rest_url ? { next_rest_url: links.next_rest_url } : {}),
          ...(links.previous_rest_url ? { previous_rest_url: links.previous_rest_url } : {}),
        },
        totalHeaders(total, totalPages),
      );
    }),
    implement(routes.create, async (input, ctx) => {
      const id = await write(ctx, taxonomy, input);
      return {
        status: 201,
        body: writtenTerm(ctx, plural, (await getTermInTaxonomy(ctx.db, taxonomy, id))!),
        headers: { Location: ctx.urls.rest(`${base}/${id}`) },
      };
    }),
    implement(routes.read, async (input, ctx) => {
      const body = writtenTerm(ctx, plural, await load(ctx, taxonomy, input.id));
      // `context=embed`: core's term schema gives count, description, parent and meta in view and edit only.
      if (ctx.req.params.context === 'embed') for (const k of ['count', 'description', 'parent', 'meta']) delete body[k];
      return ok(body);
    }),
    implement(routes.update, async (input, ctx) => {
      const t = await load(ctx, taxonomy, input.id);
      await write(ctx, taxonomy, input, t);
      return ok(writtenTerm(ctx, plural, (await getTermInTaxonomy(ctx.db, taxonomy, t.id))!));
    }),
    implement(routes.delete, async (input, ctx) => {
      const t = await load(ctx, taxonomy, input.id);
      assertMayChange(ctx, t.author);
      const body = presentTerm(ctx, t);
      await deleteTerm(ctx.db, t);
      return ok(body);
    }),
  ];
}

export const categoryEndpoints = endpoints('categories');
export const tagEndpoints = endpoints('tags');
