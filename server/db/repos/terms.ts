import type { Db } from '../connection.ts';
import { likeContains, statement } from '../connection.ts';
import { inJson, jsonElements, LIKE_NOCASE, sql, sqlFor } from '../engine/sql.ts';

export interface TermRow {
  id: number;
  taxonomy: string;
  name: string;
  name_et: string | null;
  slug: string;
  description: string;
  description_et: string | null;
  parent: number;
  term_group: number;
  /** Published posts carrying the term. */
  count: number;
  /** The user who created it (0: made before terms had an author; only administrators change those). */
  author: number;
}

async function getTerm(db: Db, id: number): Promise<TermRow | undefined> {
  return (await statement(db, `SELECT t.* FROM terms t WHERE t.id = ?`).get(id)) as TermRow | undefined;
}

export async function getTermInTaxonomy(db: Db, taxonomy: string, id: number): Promise<TermRow | undefined> {
  const t = await getTerm(db, id);
  return t && t.taxonomy === taxonomy ? t : undefined;
}

/** Whether every term of `ids` exists in the taxonomy, in one query whatever their number. */
export async function allTermsIn(db: Db, taxonomy: string, ids: readonly number[]): Promise<boolean> {
  const unique = new Set(ids);
  if (!unique.size) return true;
  const found = (await statement(db, sql`SELECT COUNT(*) FROM terms WHERE taxonomy = ? AND ${inJson('id', 'id')}`)
    .pluck()
    .get(taxonomy, JSON.stringify([...unique]))) as number;
  return found === unique.size;
}

/**
 * The terms and all their descendants in the taxonomy (WordPress's tax query includes child terms of a
 * hierarchical taxonomy). UNION, not UNION ALL: a parent cycle ends instead of looping. When none of them has a
 * child (an events archive's usual category), one lookup on terms_parent (015-event-term-listing.sql) instead of
 * the recursive query (~4 us instead of ~40 us).
 */
export async function withDescendants(db: Db, taxonomy: string, ids: number[]): Promise<number[]> {
  if (!ids.length) return ids;
  const child = await statement(
    db,
    sql`SELECT 1 FROM terms WHERE taxonomy = ? AND parent IN (SELECT id FROM terms WHERE ${inJson('id', 'id')}) LIMIT 1`,
  ).get(taxonomy, JSON.stringify(ids));
  if (!child) return [...new Set(ids)];
  const rows = (await statement(
    db,
    sql`WITH RECURSIVE d(id) AS (SELECT j.value FROM ${jsonElements('j', 'id')} UNION SELECT t.id FROM terms t JOIN d ON t.parent = d.id WHERE t.taxonomy = ?) SELECT id FROM d`,
  ).all(JSON.stringify(ids), taxonomy)) as { id: number }[];
  return rows.map((r) => r.id);
}

export async function findTermBySlug(db: Db, taxonomy: string, slug: string): Promise<TermRow | undefined> {
  return (await statement(db, `SELECT t.* FROM terms t WHERE t.taxonomy = ? AND t.slug = ?`).get(taxonomy, slug)) as TermRow | undefined;
}

export async function findTermByName(db: Db, taxonomy: string, name: string): Promise<TermRow | undefined> {
  return (await statement(db, `SELECT t.* FROM terms t WHERE t.taxonomy = ? AND lower(t.name) = lower(?)`).get(taxonomy, name)) as
    | TermRow
    | undefined;
}

/** Terms of many posts at once: `post_id` plus the term. */
export async function termsOfPosts(db: Db, postIds: readonly number[]): Promise<(TermRow & { post_id: number })[]> {
  if (!postIds.length) return [];
  return (await statement(
    db,
    sql`SELECT r.post_id, t.* FROM term_relationships r JOIN terms t ON t.id = r.term_id WHERE ${inJson('r.post_id', 'id')} ORDER BY r.post_id, t.name`,
  ).all(JSON.stringify(postIds))) as (TermRow & { post_id: number })[];
}

export async function setPostTerms(db: Db, postId: number, taxonomy: string, termIds: readonly number[]): Promise<void> {
  // Only the links dropped: each link removed and added again fires the term count and term listing triggers.
  await statement(
    db,
    sql`DELETE FROM term_relationships WHERE post_id = ? AND term_id IN (SELECT id FROM terms WHERE taxonomy = ?) AND ${inJson('term_id', 'id', true)}`,
  ).run(postId, taxonomy, JSON.stringify(termIds));
  for (const t of termIds)
    await statement(db, 'INSERT INTO term_relationships (post_id, term_id) VALUES (?, ?) ON CONFLICT DO NOTHING').run(postId, t);
}

export async function insertTerm(
  db: Db,
  t: {
    taxonomy: string;
    name: string;
    name_et?: string | null;
    slug: string;
    description: string;
    description_et?: string | null;
    parent: number;
    author: number;
  },
): Promise<number> {
  return Number(
    (
      await statement(
        db,
        'INSERT INTO terms (taxonomy, name, name_et, slug, description, description_et, parent, author) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id',
      ).run(t.taxonomy, t.name, t.name_et ?? null, t.slug, t.description, t.description_et ?? null, t.parent, t.author)
    ).lastInsertRowid,
  );
}

export async function updateTerm(db: Db, id: number, fields: Partial<Omit<TermRow, 'id' | 'taxonomy' | 'count' | 'author'>>): Promise<void> {
  const keys = (['name', 'name_et', 'slug', 'description', 'description_et', 'parent'] as const).filter((k) => fields[k] !== undefined);
  if (!keys.length) return;
  await statement(db, `UPDATE terms SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...keys.map((k) => fields[k] as unknown), id);
}

/** Deletes for good; children move up to the deleted term's parent, as WordPress does. */
export async function deleteTerm(db: Db, term: TermRow): Promise<void> {
  await statement(db, 'UPDATE terms SET parent = ? WHERE parent = ? AND taxonomy = ?').run(term.parent, term.id, term.taxonomy);
  await statement(db, 'DELETE FROM terms WHERE id = ?').run(term.id);
}

export async function uniqueTermSlug(db: Db, taxonomy: string, wanted: string, exceptId = 0): Promise<string> {
  const taken = statement(db, 'SELECT 1 FROM terms WHERE taxonomy = ? AND slug = ? AND id <> ?');
  if (!(await taken.get(taxonomy, wanted, exceptId))) return wanted;
  for (let n = 2; ; n++) if (!(await taken.get(taxonomy, `${wanted}-${n}`, exceptId))) return `${wanted}-${n}`;
}

export interface TermQuery {
  taxonomy: string;
  search?: string;
  include: number[];
  exclude: number[];
  hideEmpty: boolean;
  parent?: number;
  post?: number;
  slugs?: string[];
  orderby: string;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** The core terms controller's query. Returns the page and the total. */
export async function queryTerms(db: Db, q: TermQuery): Promise<{ rows: TermRow[]; total: number }> {
  const engine = db.engine;
  const where = ['t.taxonomy = ?'];
  const params: unknown[] = [q.taxonomy];
  const add = (sql: string, ...ps: unknown[]) => {
    where.push(sql);
    params.push(...ps);
  };
  if (q.search) {
    const like = likeContains(q.search);
    const op = sqlFor(engine, LIKE_NOCASE);
    add(`(t.name ${op} ? ESCAPE '\\' OR t.slug ${op} ? ESCAPE '\\' OR t.name_et ${op} ? ESCAPE '\\')`, like, like, like);
  }
  if (q.include.length) add(sqlFor(engine, inJson('t.id', 'id')), JSON.stringify(q.include));
  if (q.exclude.length) add(sqlFor(engine, inJson('t.id', 'id', true)), JSON.stringify(q.exclude));
  if (q.parent !== undefined) add('t.parent = ?', q.parent);
  if (q.post !== undefined) add('t.id IN (SELECT term_id FROM term_relationships WHERE post_id = ?)', q.post);
  if (q.slugs?.length) add(sqlFor(engine, inJson('t.slug', 'text')), JSON.stringify(q.slugs));
  const inner = `SELECT t.* FROM terms t WHERE ${where.join(' AND ')}`;
  const filtered = q.hideEmpty ? `SELECT * FROM (${inner}) AS t WHERE count > 0` : inner;
  const dir = q.order === 'desc' ? 'DESC' : 'ASC';
  let order: string;
  switch (q.orderby) {
    case 'id':
      order = `id ${dir}`;
      break;
    case 'include':
      order = q.include.length ? `(SELECT j.key FROM ${sqlFor(engine, jsonElements('j', 'id'))} WHERE j.value = id) ${dir}` : `id ${dir}`;
      break;
    case 'include_slugs':
      order = q.slugs?.length ? `(SELECT j.key FROM ${sqlFor(engine, jsonElements('j', 'text'))} WHERE j.value = slug) ${dir}` : `name ${dir}`;
      break;
    case 'slug':
    case 'term_group':
    case 'description':
    case 'count':
      order = `${q.orderby} ${dir}, id ASC`;
      break;
    default:
      order = `lower(name) ${dir}, id ASC`;
  }
  const orderParams =
    q.orderby === 'include' && q.include.length
      ? [JSON.stringify(q.include)]
      : q.orderby === 'include_slugs' && q.slugs?.length
        ? [JSON.stringify(q.slugs)]
        : [];
  const total = ((await statement(db, `SELECT COUNT(*) AS n FROM (${filtered}) AS f`).get(...params)) as { n: number }).n;
  const rows = (await statement(db, `${filtered} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, ...orderParams, q.limit, q.offset)) as TermRow[];
  return { rows, total };
}
