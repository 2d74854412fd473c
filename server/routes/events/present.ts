import { dateDetails, tzAbbreviation, zonedToInstant } from '../../../shared/dates.ts';
import type { Ctx } from '../../kernel/context.ts';
import type { AttachmentRow } from '../../db/repos/attachments.ts';
import { getAttachments } from '../../db/repos/attachments.ts';
import type { EventRow } from '../../db/repos/events.ts';
import { getEventRows, organizerLinks, venueLinks } from '../../db/repos/events.ts';
import type { LinkedKind, OrganizerRow, VenueRow } from '../../db/repos/linked.ts';
import { getLinkedRows } from '../../db/repos/linked.ts';
import type { PostRow } from '../../db/repos/posts.ts';
import type { TermRow } from '../../db/repos/terms.ts';
import { termsOfPosts } from '../../db/repos/terms.ts';
import { autop, dropEmpty, excerptOf, pick } from '../../content/text.ts';
import { restCost } from './cost.ts';
import { hooks, type EventDecorator, type PresentOpts } from '../../kernel/hooks.ts';
import { changeStamp, sharedStateOf } from '../../db/change-feed.ts';
import { publishedTicketPrices, type TicketPrice } from '../../db/repos/tickets.ts';

export const TAXONOMY = { categories: 'tribe_events_cat', tags: 'post_tag' } as const;
const NS = '/evt/events/v1';

const origins = new Map<string, string>();

/** `Tribe__Utils__Global_ID`: `<host><path>?id=<post id>`. */
export function globalId(ctx: Ctx, id: number, type?: string): string {
  let origin = origins.get(ctx.app.config.publicUrl);
  if (origin === undefined) {
    const u = new URL(ctx.app.config.publicUrl);
    origin = `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
    origins.set(ctx.app.config.publicUrl, origin);
  }
  return type ? `${origin}?type=${type}&id=${id}` : `${origin}?id=${id}`;
}

export function permalink(ctx: Ctx, base: string, post: Pick<PostRow, 'id' | 'slug'>): string {
  return post.slug ? ctx.urls.site(`/${base}/${post.slug}/`) : ctx.urls.site(`/?p=${post.id}`);
}

function extension(att: AttachmentRow): string {
  const fromMime = att.mime_type.split('/')[1] ?? '';
  const fromUrl = /\.([a-z0-9]{2,5})(?:[?#]|$)/i.exec(att.url)?.[1]?.toLowerCase() ?? '';
  return fromUrl || (fromMime === 'jpeg' ? 'jpg' : fromMime);
}

/** The featured-image object, empty values removed, as TEC emits it. */
export function imageObject(att: AttachmentRow | undefined): Record<string, unknown> | false {
  if (!att) return false;
  return dropEmpty(
    {
      url: att.url,
      id: att.post_id,
      extension: extension(att),
      width: att.width ?? 0,
      height: att.height ?? 0,
      filesize: att.filesize ?? 0,
      sizes: {},
    },
    ['sizes'],
  );
}

function titleOf(ctx: Ctx, p: PostRow): string {
  return pick(ctx.lang, p.title, p.title_et);
}

function contentOf(ctx: Ctx, p: PostRow): string {
  return pick(ctx.lang, p.content, p.content_et);
}

/** The post's own excerpt, as TEC answers `excerpt`: only one that was given (none derived from the content). */
function excerptText(ctx: Ctx, p: PostRow): string {
  const given = pick(ctx.lang, p.excerpt, p.excerpt_et);
  return given.trim() ? autop(given) : '';
}

/** `get_the_excerpt` as TEC's JSON-LD reads it: the given excerpt, else the first 55 words of the content. */
function ldDescription(ctx: Ctx, p: PostRow): string {
  const text = excerptOf(pick(ctx.lang, p.excerpt, p.excerpt_et), contentOf(ctx, p));
  return text ? escHtml(`${text}\n`) : '';
}

/** WordPress `esc_html`. */
function escHtml(s: string): string {
  return s
    .replace(/&(?!#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

/** WordPress `antispambot`, deterministic: every other character as a decimal entity. */
function antispambot(email: string): string {
  return [...email].map((c, i) => (i % 2 === 0 ? `&#${c.codePointAt(0)};` : c)).join('');
}

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
function embeddedTerm(ctx: Ctx, t: TermRow): Record<string, unknown> {
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

function postHead(ctx: Ctx, p: PostRow, base: string): Record<string, unknown> {
  return {
    id: p.id,
    author: String(p.author),
    status: p.status,
    date: p.date,
    date_utc: p.date_gmt,
    modified: p.modified,
    modified_utc: p.modified_gmt,
    url: permalink(ctx, base, p),
  };
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

function presentVenue(ctx: Ctx, v: VenueRow, images: Map<number, AttachmentRow>, opts: PresentOpts): Record<string, unknown> {
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

function presentOrganizer(ctx: Ctx, o: OrganizerRow, images: Map<number, AttachmentRow>, opts: PresentOpts): Record<string, unknown> {
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

/** A linked post's own JSON-LD (presented for single reads), to embed in an event's. */
function embeddedLd(presented: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return presented?.json_ld as Record<string, unknown> | undefined;
}

export function eventDecorators(ctx: Ctx): EventDecorator[] {
  return hooks(ctx.app).eventDecorators;
}

/**
 * Fields a password-protected event shows in an archive to a caller without the password (administrators too,
 * as in the original; `attendance` counts become the string "null" there).
 */
export function blankProtected(e: Record<string, unknown>): void {
  Object.assign(e, {
    description: '',
    excerpt: '',
    image: false,
    all_day: null,
    cost: '',
    cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
    website: '',
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    custom_fields: [],
  });
  // (A copy of a kept event holds these keys unset, see DECORATED.)
  if (e.ticketed !== undefined) e.ticketed = null;
  if (e.attendance !== undefined) e.attendance = { total_attendees: 'null', checked_in: 'null', not_checked_in: 'null' };
}

/** A presented event as kept between requests: the object (never handed out itself) and its JSON as UTF-8. */
interface Kept {
  event: Record<string, unknown>;
  json: Buffer;
  /** `json` without its closing brace, for appending what the decorators set. */
  head: Buffer;
  /** `Object.keys(event)` and `Object.values(event)`, for comparing a copy with it (`pushEventJson`). */
  keys: string[];
  values: unknown[];
  /** Where the DECORATED slots start in `keys`. */
  open: number;
}

/**
 * The keys the event decorators add (Event Tickets: `attendance`, `ticketed`, `nonces`, then the signing keys of
 * CONTRACT section 8, in that order), kept
 * present and unset (undefined: no JSON) at the end of a kept event, so its per-request copy already has them: a
 * key added to a copy of a kept object of 45 keys cost ~4 us (V8 makes the copy's shape anew each time: 0.2 ms a
 * page of 50), a value set in a slot it already has costs nothing. What `JSON.stringify` writes is the same.
 */
const DECORATED = ['attendance', 'ticketed', 'nonces', 'signing_key', 'signing_key_id', 'signing_keys'] as const;

function keep(event: Record<string, unknown>): Kept {
  const json = Buffer.from(JSON.stringify(event));
  const open = Object.keys(event).length;
  for (const key of DECORATED) if (!(key in event)) event[key] = undefined;
  return { event, json, head: json.subarray(0, json.length - 1), keys: Object.keys(event), values: Object.values(event), open };
}

/**
 * Presented events kept between requests (issue 14 item 1), by post, language, interface root and single/archive
 * form, with the event rows they were made from (by post). What an event answer shows (the event, its venues,
 * organizers, terms and images, the site's settings) changes only by writes that change everything for the
 * response cache (cache-tags.ts: no declared write touches content), so the kept presentations and rows live
 * exactly as long as the app's `contentVersion` and SQLite's `data_version` (another process's commit) stay the
 * same (with shared state in the database: the change log's stamp, and at most PRESENT_REVALIDATE_MS); check-ins, sales and carts leave them. Bounded (CONTRACT section 3): at most MAX_KEPT presentations and
 * MAX_KEPT rows, and MAX_KEPT_BYTES of presented JSON and of row texts (an event's content is as long as its author
 * made it), each * map emptied whole when full. The caller-dependent parts (decorators: `ticketed`, `attendance`, nonces;
 * password blanking) are applied per request to a shallow copy.
 */
const MAX_KEPT = 4000;
const MAX_KEPT_BYTES = 32 * 1024 * 1024;
/**
 * With shared state in the database (PostgreSQL) another process's change is seen through the change log, which
 * a change made outside Doorstep (psql) does not write: the kept presentations and rows are started again at
 * least this often (the response cache's default TTL), so such a change shows within a minute. SQLite's
 * `data_version` sees every commit, so there they live until a change.
 */
export const PRESENT_REVALIDATE_MS = 60_000;

declare module '../../kernel/services.ts' {
  interface Services {
    /** Presented events and rows kept since the last write (see `presentCache`). */
    presentCache?: PresentCache;
  }
}

interface PresentCache {
  version: string;
  kept: Map<string, Kept>;
  /** The JSON bytes of `kept` (the kept objects hold about as much again). */
  keptBytes: number;
  rows: Map<number, EventRow>;
  /** The text lengths of `rows` (what can grow; the other columns are short). */
  rowBytes: number;
  /** App-clock ms after which it is started again (shared state in the database), else Infinity. */
  until: number;
}

/** What a kept event row counts against MAX_KEPT_BYTES: its texts, by length. */
function rowBytes(r: EventRow): number {
  return r.title.length + r.content.length + r.excerpt.length + (r.title_et?.length ?? 0) + (r.content_et?.length ?? 0) + (r.excerpt_et?.length ?? 0);
}

/** Keeps row `r`, emptying the kept rows first when it would pass a bound. */
function keepRow(c: PresentCache, r: EventRow): void {
  if (c.rows.has(r.id)) return;
  const n = rowBytes(r);
  if (c.rows.size >= MAX_KEPT || c.rowBytes + n > MAX_KEPT_BYTES) {
    c.rows.clear();
    c.rowBytes = 0;
  }
  c.rows.set(r.id, r);
  c.rowBytes += n;
}

/** The copy handed out -> what it was copied from, to write its JSON from the kept JSON (see `eventJson`). */
const origin = new WeakMap<Record<string, unknown>, Kept>();

/** The kept presentations and rows, or null where none may be used: a write presents what it just changed. */
async function presentCache(ctx: Ctx): Promise<PresentCache | null> {
  if (ctx.db.inTransaction || (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD')) return null;
  // Checked once a request (an archive reads rows, then presents them: one `data_version` query, not two).
  const seen = checked.get(ctx);
  if (seen) return seen;
  const services = ctx.app.services;
  const version = `${ctx.app.contentVersion}:${await changeStamp(ctx.db)}`;
  const now = services.clock ? Number(services.clock()) : Date.now();
  let c = services.presentCache;
  if (!c || c.version !== version || now >= c.until) {
    const until = sharedStateOf(ctx.db) === 'database' ? now + PRESENT_REVALIDATE_MS : Number.POSITIVE_INFINITY;
    services.presentCache = c = { version, kept: new Map(), keptBytes: 0, rows: new Map(), rowBytes: 0, until };
  }
  checked.set(ctx, c);
  return c;
}

/** The kept presentations a request has checked the version of (a read: nothing it does changes them). */
const checked = new WeakMap<Ctx, PresentCache>();

/**
 * The event rows of `ids` in their order (missing ones skipped), as `getEventRows` reads them: rows kept since
 * nothing was written are not read again (a read outside a transaction only).
 */
export async function eventRowsOf(ctx: Ctx, ids: readonly number[]): Promise<EventRow[]> {
  const c = await presentCache(ctx);
  if (!c) return await getEventRows(ctx.db, ids);
  const got = new Map<number, EventRow>();
  for (const id of ids) {
    const r = c.rows.get(id);
    if (r) got.set(id, r);
  }
  const missing = ids.filter((id) => !got.has(id));
  if (missing.length) {
    for (const r of await getEventRows(ctx.db, missing)) {
      keepRow(c, r);
      got.set(r.id, r);
    }
  }
  const out: EventRow[] = [];
  for (const id of ids) {
    const r = got.get(id);
    if (r) out.push(r);
  }
  return out;
}

/**
 * Presents many events with a fixed number of queries: one for venues, one for organizers, one for terms and
 * one for images, whatever the number of events; events presented before (and not changed since) are reused.
 */
export async function presentEvents(ctx: Ctx, rows: EventRow[], opts: PresentOpts = {}): Promise<Record<string, unknown>[]> {
  const c = await presentCache(ctx);
  if (!c) {
    const out = await presentFresh(ctx, rows, opts);
    for (const d of eventDecorators(ctx)) await d(ctx, out, rows, opts);
    return out;
  }
  const kept = c.kept;
  const prefix = `${ctx.lang}\u0000${ctx.urls.root}\u0000${opts.single ? 1 : 0}\u0000`;
  const found: (Kept | undefined)[] = rows.map((r) => kept.get(prefix + r.id));
  const missing = rows.filter((_, i) => !found[i]);
  if (missing.length) {
    const fresh = await presentFresh(ctx, missing, opts);
    let j = 0;
    rows.forEach((r, i) => {
      if (found[i]) return;
      const event = fresh[j++];
      const k = keep(event);
      if (kept.size >= MAX_KEPT || c.keptBytes + k.json.length > MAX_KEPT_BYTES) {
        kept.clear();
        c.keptBytes = 0;
      }
      kept.set(prefix + r.id, k);
      c.keptBytes += k.json.length;
      keepRow(c, r);
      found[i] = k;
    });
  }
  const out = found.map((k) => {
    const copy = { ...k!.event };
    origin.set(copy, k!);
    return copy;
  });
  for (const d of eventDecorators(ctx)) await d(ctx, out, rows, opts);
  return out;
}

/**
 * Appends the UTF-8 JSON of a presented event, `JSON.stringify(e)` exactly, to `out`: the kept JSON when the copy
 * still holds the kept values under the kept keys, in order, followed by what the decorators set in the DECORATED
 * slots; else serialised afresh. Compared as key and value lists (`Object.keys`/`Object.values`, one call each).
 */
export function pushEventJson(e: Record<string, unknown>, out: Buffer[]): void {
  const k = origin.get(e);
  const keys = k ? Object.keys(e) : undefined;
  if (!k || !keys || keys.length !== k.keys.length || k.json.length <= 2) {
    out.push(Buffer.from(JSON.stringify(e)));
    return;
  }
  const values = Object.values(e);
  let extra = '';
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== k.keys[i] || (i < k.open && values[i] !== k.values[i])) {
      out.push(Buffer.from(JSON.stringify(e)));
      return;
    }
    if (i < k.open || values[i] === undefined) continue;
    const v = JSON.stringify(values[i]);
    if (v !== undefined) extra += `,${JSON.stringify(keys[i])}:${v}`;
  }
  if (!extra) {
    out.push(k.json);
    return;
  }
  let tail = tails.get(extra);
  if (!tail) {
    tail = Buffer.from(`${extra}}`);
    if (tails.size < 256) tails.set(extra, tail);
  }
  out.push(k.head, tail);
}

/** The decorators' usual endings (`,"ticketed":false}`), encoded once; a few hundred at most. */
const tails = new Map<string, Buffer>();

/** The UTF-8 JSON of a presented event, `JSON.stringify(e)` exactly (see `pushEventJson`). */
export function eventJson(e: Record<string, unknown>): Buffer {
  const out: Buffer[] = [];
  pushEventJson(e, out);
  return out.length === 1 ? out[0] : Buffer.concat(out);
}

/** The published tickets of each event, by ID, for the cost (ET adds their prices to it) and JSON-LD offers. */
async function ticketPrices(ctx: Ctx, ids: readonly number[]): Promise<Map<number, TicketPrice[]>> {
  const out = new Map<number, TicketPrice[]>();
  if (!ids.length) return out;
  for (const t of await publishedTicketPrices(ctx.db, ids)) {
    const list = out.get(t.event_id);
    if (list) list.push(t);
    else out.set(t.event_id, [t]);
  }
  return out;
}

/** A stored UTC date-time (`YYYY-MM-DD HH:MM:SS`) as JSON-LD writes it: `YYYY-MM-DDTHH:MM:SS+00:00`. */
function ldTime(utc: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(utc) ? `${utc.replace(' ', 'T')}+00:00` : undefined;
}

async function presentFresh(ctx: Ctx, rows: EventRow[], opts: PresentOpts): Promise<Record<string, unknown>[]> {
  const ids = rows.map((r) => r.id);
  const tickets = await ticketPrices(ctx, ids);
  const vLinks = await venueLinks(ctx.db, ids);
  const oLinks = await organizerLinks(ctx.db, ids);
  const venueIds = [...new Set(vLinks.map((l) => l.linked_id))];
  const organizerIds = [...new Set(oLinks.map((l) => l.linked_id))];
  const venueRows = await getLinkedRows(ctx.db, 'venue', venueIds);
  const organizerRows = await getLinkedRows(ctx.db, 'organizer', organizerIds);
  const images = await getAttachments(ctx.db, [...rows, ...venueRows, ...organizerRows].map((r) => r.image_id).filter(Boolean));
  const venues = new Map(venueRows.map((v) => [v.id, presentVenue(ctx, v, images, opts)]));
  const organizers = new Map(organizerRows.map((o) => [o.id, presentOrganizer(ctx, o, images, opts)]));
  // A term shared by many events of the page is presented once.
  const embedded = new Map<number, Record<string, unknown>>();
  const terms = new Map<number, { categories: Record<string, unknown>[]; tags: Record<string, unknown>[] }>();
  for (const t of await termsOfPosts(ctx.db, ids)) {
    let e = embedded.get(t.id);
    if (!e) embedded.set(t.id, (e = embeddedTerm(ctx, t)));
    let lists = terms.get(t.post_id);
    if (!lists) terms.set(t.post_id, (lists = { categories: [], tags: [] }));
    if (t.taxonomy === TAXONOMY.categories) lists.categories.push(e);
    else if (t.taxonomy === TAXONOMY.tags) lists.tags.push(e);
  }
  const group = (links: { event_id: number; linked_id: number }[]) => {
    const m = new Map<number, number[]>();
    for (const l of links) {
      const list = m.get(l.event_id);
      if (list) list.push(l.linked_id);
      else m.set(l.event_id, [l.linked_id]);
    }
    return m;
  };
  const vBy = group(vLinks);
  const oBy = group(oLinks);
  const out = rows.map((r) => {
    const eventVenues = (vBy.get(r.id) ?? []).map((id) => venues.get(id)).filter((v): v is Record<string, unknown> => !!v);
    const eventOrganizers = (oBy.get(r.id) ?? []).map((id) => organizers.get(id)).filter((o): o is Record<string, unknown> => !!o);
    const postTerms = terms.get(r.id);
    const tz = r.timezone || ctx.app.config.timezone;
    const start = zonedToInstant(r.start_local, tz);
    const eventTickets = tickets.get(r.id) ?? [];
    const cost = restCost(
      r.cost,
      r.currency_symbol,
      r.currency_position,
      r.currency_code,
      eventTickets.map((t) => t.price_minor / 100),
    );
    const url = permalink(ctx, 'event', r);
    const gid = globalId(ctx, r.id);
    const e: Record<string, unknown> = {
      id: r.id,
      global_id: gid,
      global_id_lineage: [gid],
      author: String(r.author),
      status: r.status,
      date: r.date,
      date_utc: r.date_gmt,
      modified: r.modified,
      modified_utc: r.modified_gmt,
      url,
      rest_url: ctx.urls.rest(`${NS}/events/${r.id}`),
      title: titleOf(ctx, r),
      description: autop(contentOf(ctx, r)),
      excerpt: excerptText(ctx, r),
      slug: r.slug,
      image: imageObject(images.get(r.image_id)),
      all_day: r.all_day === 1,
      start_date: r.start_local,
      start_date_details: dateDetails(r.start_local),
      end_date: r.end_local,
      end_date_details: dateDetails(r.end_local),
      utc_start_date: r.start_utc,
      utc_start_date_details: dateDetails(r.start_utc),
      utc_end_date: r.end_utc,
      utc_end_date_details: dateDetails(r.end_utc),
      timezone: r.timezone,
      timezone_abbr: tzAbbreviation(tz, start),
      cost: cost.text,
      cost_details: cost.details,
      website: r.website || url,
      // TEC stores no map flags for an event created without them: false (venues default to true).
      show_map: r.show_map === 1,
      show_map_link: r.show_map_link === 1,
      hide_from_listings: r.hide_from_listings === 1,
      sticky: r.menu_order === -1,
      featured: r.featured === 1,
      categories: postTerms?.categories ?? [],
      tags: postTerms?.tags ?? [],
      venue: eventVenues.length === 1 ? eventVenues[0] : eventVenues,
      organizer: eventOrganizers,
      custom_fields: [],
    };
    if (opts.single && !r.password) {
      const vIds = vBy.get(r.id) ?? [];
      const oIds = oBy.get(r.id) ?? [];
      const startLd = start.toISOString().replace('.000Z', '+00:00');
      // ET lists one offer per ticket; TEC alone, one offer for the cost.
      const offers = eventTickets.length
        ? eventTickets.map((t) =>
            dropEmpty(
              {
                '@type': 'Offer',
                url: e.url,
                price: String(t.price_minor / 100),
                category: 'primary',
                availability: 'InStock',
                priceCurrency: t.currency || r.currency_code || 'USD',
                validFrom: ldTime(t.available_from_utc) ?? ldTime(r.date_gmt),
                validThrough: ldTime(t.available_until_utc) ?? startLd,
              },
              ['price'],
            ),
          )
        : cost.details.values.length
          ? {
              '@type': 'Offer',
              price: cost.details.values[0],
              priceCurrency: r.currency_code || 'USD',
              url: e.url,
              category: 'primary',
              availability: 'inStock',
              validFrom: ldTime(r.date_gmt),
            }
          : undefined;
      const ld: Record<string, unknown> = {
        '@context': 'http://schema.org',
        '@type': 'Event',
        name: e.title,
        description: ldDescription(ctx, r),
      };
      const image = images.get(r.image_id)?.url;
      if (image) ld.image = image;
      ld.url = e.url;
      if (offers) ld.offers = offers;
      ld.eventAttendanceMode = 'https://schema.org/OfflineEventAttendanceMode';
      ld.eventStatus = 'https://schema.org/EventScheduled';
      ld.startDate = startLd;
      ld.endDate = zonedToInstant(r.end_local, tz).toISOString().replace('.000Z', '+00:00');
      const location = vIds.length ? embeddedLd(venues.get(vIds[0])) : undefined;
      if (location) ld.location = location;
      const organizer = oIds.length ? embeddedLd(organizers.get(oIds[0])) : undefined;
      if (organizer) ld.organizer = organizer;
      ld.performer = 'Organization';
      e.json_ld = ld;
    }
    return e;
  });
  return out;
}
