import type { TermRow } from '../../db/repos/terms.ts';
import { pick } from '../../content/text.ts';
import type { Ctx } from '../../kernel/context.ts';
import { TAXONOMY } from '../../domain/events/taxonomy.ts';
import { NS } from './present-post.ts';

function termUrls(ctx: Ctx, t: TermRow): { self: string; collection: string; up?: string } {
  const coll = t.taxonomy === TAXONOMY.categories ? 'categories' : 'tags';
  const urls: { self: string; collection: string; up?: string } = {
    self: ctx.urls.rest(`${NS}/${coll}/${t.id}`),
    collection: ctx.urls.rest(`${NS}/${coll}`),
  };
  if (t.parent) urls.up = ctx.urls.rest(`${NS}/${coll}/${t.parent}`);
  return urls;
}

function termLink(ctx: Ctx, t: TermRow): string {
  return t.taxonomy === TAXONOMY.categories ? ctx.urls.site(`/events/category/${t.slug}/`) : ctx.urls.site(`/tag/${t.slug}/`);
}

/** A term as the term routes return it. */
export function presentTerm(ctx: Ctx, t: TermRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    count: t.count,
    description: pick(ctx.lang, t.description, t.description_et),
    name: pick(ctx.lang, t.name, t.name_et),
    slug: t.slug,
    taxonomy: t.taxonomy,
  };
  if (t.taxonomy === TAXONOMY.categories) out.parent = t.parent;
  out.meta = [];
  out.url = termLink(ctx, t);
  out.urls = termUrls(ctx, t);
  return out;
}

/** A term embedded in an event: a cast WP_Term. */
export function embeddedTerm(ctx: Ctx, t: TermRow): Record<string, unknown> {
  return {
    name: pick(ctx.lang, t.name, t.name_et),
    slug: t.slug,
    term_group: t.term_group,
    term_taxonomy_id: t.id,
    taxonomy: t.taxonomy,
    description: pick(ctx.lang, t.description, t.description_et),
    parent: t.parent,
    count: t.count,
    filter: 'raw',
    id: t.id,
    urls: termUrls(ctx, t),
  };
}
