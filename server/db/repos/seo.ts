import type { Db } from '../connection.ts';
import { statement } from '../connection.ts';

export interface SeoRow {
  post_id: number;
  title: string;
  description: string;
  canonical: string;
  noindex: number;
  nofollow: number;
  updated: string;
}

export async function getSeo(db: Db, postId: number): Promise<SeoRow | undefined> {
  return (await statement(db, 'SELECT * FROM seo_meta WHERE post_id = ?').get(postId)) as SeoRow | undefined;
}

export async function putSeo(db: Db, r: SeoRow): Promise<void> {
  await statement(
    db,
    `INSERT INTO seo_meta (post_id, title, description, canonical, noindex, nofollow, updated) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(post_id) DO UPDATE SET title = excluded.title, description = excluded.description, canonical = excluded.canonical,
       noindex = excluded.noindex, nofollow = excluded.nofollow, updated = excluded.updated`,
  ).run(r.post_id, r.title, r.description, r.canonical, r.noindex, r.nofollow, r.updated);
}

export interface SitemapRow {
  id: number;
  type: string;
  slug: string;
  modified_gmt: string;
}

/** Published, password-free events (not hidden from listings), venues and organizers that are not noindex. */
export async function sitemapRows(db: Db, limit: number): Promise<SitemapRow[]> {
  return (await statement(
    db,
    `SELECT p.id, p.type, p.slug, p.modified_gmt FROM posts p
     LEFT JOIN seo_meta m ON m.post_id = p.id
     LEFT JOIN events e ON e.post_id = p.id
     WHERE p.type IN ('event', 'venue', 'organizer') AND p.status = 'publish' AND p.password = ''
       AND COALESCE(m.noindex, 0) = 0 AND COALESCE(e.hide_from_listings, 0) = 0
     ORDER BY p.modified_gmt DESC, p.id DESC LIMIT ?`,
  ).all(limit)) as SitemapRow[];
}
