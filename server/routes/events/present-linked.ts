import type { AttachmentRow } from '../../db/repos/attachments.ts';
import { getAttachments } from '../../db/repos/attachments.ts';
import type { LinkedKind, OrganizerRow, VenueRow } from '../../db/repos/linked.ts';
import { getLinkedRows } from '../../db/repos/linked.ts';
import { autop, dropEmpty } from '../../content/text.ts';
import type { Ctx } from '../../kernel/context.ts';
import type { PresentOpts } from '../../kernel/hooks.ts';
import { contentOf, excerptText, globalId, imageObject, ldDescription, postHead, titleOf } from './present-post.ts';

/** WordPress `antispambot`, deterministic: every other character as a decimal entity. */
function antispambot(email: string): string {
  return [...email].map((c, i) => (i % 2 === 0 ? `&#${c.codePointAt(0)};` : c)).join('');
}

/** TEC's venue JSON-LD (no `@context` of its own; `url` empty; only the address parts given). */
function venueJsonLd(ctx: Ctx, v: VenueRow): Record<string, unknown> {
  const ld: Record<string, unknown> = {
    '@type': 'Place',
    name: titleOf(ctx, v),
    description: ldDescription(ctx, v),
    url: '',
    address: dropEmpty({
      '@type': 'PostalAddress',
      streetAddress: v.address,
      addressLocality: v.city,
      addressRegion: v.stateprovince || v.state || v.province,
      postalCode: v.zip,
      addressCountry: v.country,
    }),
    telephone: v.phone,
    sameAs: v.website,
  };
  if (v.lat !== null && v.lng !== null) ld.geo = { '@type': 'GeoCoordinates', latitude: v.lat, longitude: v.lng };
  return ld;
}

/** TEC's organizer JSON-LD: `url` is the website, the e-mail obfuscated as `antispambot` does. */
function organizerJsonLd(ctx: Ctx, o: OrganizerRow): Record<string, unknown> {
  return {
    '@type': 'Person',
    name: titleOf(ctx, o),
    description: ldDescription(ctx, o),
    url: o.website,
    telephone: o.phone,
    email: o.email ? antispambot(o.email) : '',
    sameAs: o.website,
  };
}

/** The keys venues and organizers share, in TEC's order: post head, title under the kind's key, texts, image. */
function linkedHead(ctx: Ctx, p: VenueRow | OrganizerRow, kind: LinkedKind, images: Map<number, AttachmentRow>): Record<string, unknown> {
  return {
    ...postHead(ctx, p, kind),
    [kind]: titleOf(ctx, p),
    description: autop(contentOf(ctx, p)),
    excerpt: excerptText(ctx, p),
    slug: p.slug,
    image: imageObject(images.get(p.image_id)),
  };
}

export function presentVenue(ctx: Ctx, v: VenueRow, images: Map<number, AttachmentRow>, opts: PresentOpts): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...linkedHead(ctx, v, 'venue', images),
    address: v.address,
    city: v.city,
    country: v.country,
    province: v.province,
    state: v.state,
    zip: v.zip,
    phone: v.phone,
    website: v.website,
    stateprovince: v.stateprovince,
  };
  if (v.lat !== null && v.lng !== null) {
    body.geo_lat = v.lat;
    body.geo_lng = v.lng;
  }
  if (opts.single) body.json_ld = venueJsonLd(ctx, v);
  const gid = globalId(ctx, v.id);
  return {
    ...dropEmpty(body),
    show_map: v.show_map === null ? true : v.show_map === 1,
    show_map_link: v.show_map_link === null ? true : v.show_map_link === 1,
    global_id: gid,
    global_id_lineage: [gid],
  };
}

export function presentOrganizer(ctx: Ctx, o: OrganizerRow, images: Map<number, AttachmentRow>, opts: PresentOpts): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...linkedHead(ctx, o, 'organizer', images),
    phone: o.phone,
    website: o.website,
    email: o.email,
  };
  if (opts.single) body.json_ld = organizerJsonLd(ctx, o);
  const gid = globalId(ctx, o.id);
  body.global_id = gid;
  body.global_id_lineage = [gid];
  return dropEmpty(body);
}

export async function presentLinked(ctx: Ctx, kind: LinkedKind, ids: number[], opts: PresentOpts = {}): Promise<Record<string, unknown>[]> {
  const rows = await getLinkedRows(ctx.db, kind, ids);
  const images = await getAttachments(ctx.db, rows.map((r) => r.image_id).filter(Boolean));
  return rows.map((r) =>
    kind === 'venue' ? presentVenue(ctx, r as VenueRow, images, opts) : presentOrganizer(ctx, r as OrganizerRow, images, opts),
  );
}
