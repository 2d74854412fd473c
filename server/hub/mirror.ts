import { z } from 'zod';
import { formatInZone, zonedToInstant } from '../../shared/dates.ts';
import { kioskPaths } from '../../shared/checkin/paths.ts';
import { CheckinDetails } from '../../shared/checkin/wire.ts';
import type { Db } from '../db/connection.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { recordChange } from '../db/change-feed.ts';
import { setCheckedIn } from '../db/repos/attendees.ts';
import {
  insertMirrorCheckin,
  mirrorSigningKeys,
  standingOf,
  upsertAttendeeCols,
  upsertEventCols,
  upsertOrderCols,
  upsertPosts,
  upsertTicketCols,
  type HubStanding,
  type MirrorAttendee,
  type MirrorOrder,
  type MirrorPost,
} from '../db/repos/hub.ts';
import { UpstreamError, type Upstream } from './upstream.ts';

/**
 * The pull half of the venue hub: the event, then its attendees with the kiosks' delta download (CONTRACT
 * section 7: `changed_since`, the cursor from the first page, trashed attendees as `status: "trash"`), written into
 * the hub's database under the site's IDs.
 *
 * Check-in state is taken from the site only for attendees with none of this hub's scans waiting to be pushed:
 * those are newer than what the site knows, and the push settles them (push.ts). Everything else follows the site:
 * a check-in made there (another hub, the site's staff) becomes a mirrored row of the hub's log and the attendee's
 * standing check-in, a check-out there checks the attendee out here.
 */

/** The attendee as the site's manager view sends it (the door key reads as a manager of its event). */
const SiteAttendee = z.looseObject({
  id: z.number().int().positive(),
  post_id: z.number().int().positive(),
  ticket_id: z.coerce.number().int().positive(),
  status: z.string(),
  title: z.string().nullish(),
  email: z.string().nullish(),
  ticket: z.looseObject({ id: z.coerce.number().int(), title: z.string().nullish() }).nullish(),
  provider: z.string().nullish(),
  order: z.union([z.string(), z.number()]).nullish(),
  checked_in: z.boolean().optional().default(false),
  checkin_details: z.union([z.literal(false), CheckinDetails]).nullish(),
  security_code: z.string().min(1),
  order_status: z.string().nullish(),
});
type SiteAttendee = z.infer<typeof SiteAttendee>;

const SiteAttendeePage = z.looseObject({ attendees: z.array(SiteAttendee), total_pages: z.coerce.number().int().optional() });

const SiteEvent = z.looseObject({
  id: z.number().int(),
  title: z.string().nullish(),
  status: z.string().nullish(),
  start_date: z.string(),
  end_date: z.string(),
  utc_start_date: z.string(),
  utc_end_date: z.string(),
  timezone: z.string().nullish(),
  all_day: z.boolean().nullish(),
  signing_key_id: z.string().nullish(),
  signing_keys: z.array(z.looseObject({ signing_key_id: z.string(), signing_key: z.string() })).nullish(),
});

/** Pages asked for at once while earlier ones are written (the site answers them in parallel). */
const PAGES_IN_FLIGHT = 4;
const PER_PAGE = 100;

export interface PullContext {
  db: Db;
  upstream: Upstream;
  eventId: number;
  /** The site's time zone (its check-in dates are site-local). */
  siteTimezone: string;
  /** The hub's own time zone (its posts' local dates). */
  hubTimezone: string;
  now: () => Date;
}

function stamp(now: Date, tz: string): { date: string; dateGmt: string } {
  return { date: formatInZone(now, tz), dateGmt: now.toISOString().slice(0, 19).replace('T', ' ') };
}

/** The event itself: title, dates, status (a cancelled or trashed event reaches the hub's kiosks too). */
export async function pullEvent(p: PullContext): Promise<void> {
  const res = await p.upstream.get(kioskPaths.event(p.eventId));
  const e = SiteEvent.parse(res.body);
  if (e.id !== p.eventId)
    throw new UpstreamError({ kind: 'http', status: res.status, code: 'evt_hub_wrong_event', message: `the site answered event ${e.id}` });
  // Every pull reads the event; most find nothing changed, and then nothing is written nor any cached answer dropped.
  const changed = await inTransaction(p.db, async () => {
    const post = await upsertPosts(p.db, [
      { id: e.id, type: 'event', status: e.status ?? 'publish', title: e.title ?? '', ...stamp(p.now(), p.hubTimezone) },
    ]);
    const dates = await upsertEventCols(p.db, {
      id: e.id,
      startLocal: e.start_date,
      endLocal: e.end_date,
      startUtc: e.utc_start_date,
      endUtc: e.utc_end_date,
      timezone: e.timezone ?? '',
      allDay: e.all_day === true,
    });
    // The site's ticket-signing keys: a kiosk paired with the hub pins the site's, which signed the tickets.
    const keys =
      !!e.signing_key_id &&
      !!e.signing_keys?.length &&
      (await mirrorSigningKeys(
        p.db,
        e.id,
        e.signing_keys.map((k) => ({ kid: k.signing_key_id, key: k.signing_key })),
        e.signing_key_id,
        p.now().getTime(),
      ));
    return post > 0 || dates || keys;
  });
  if (changed) await recordChange(p.db, 'all');
}

interface PageAnswer {
  attendees: SiteAttendee[];
  totalPages: number;
  cursor: string | null;
}

async function fetchPage(p: PullContext, page: number, changedSince: string): Promise<PageAnswer | null> {
  let res;
  try {
    res = await p.upstream.get(kioskPaths.attendees(), { post_id: p.eventId, per_page: PER_PAGE, page, changed_since: changedSince });
  } catch (e) {
    // The list shrank while we paged: the pass is over; the next one brings whatever moved.
    if (e instanceof UpstreamError && e.failure.kind === 'http' && e.failure.code === 'invalid-page-number') return null;
    throw e;
  }
  const body = SiteAttendeePage.parse(res.body);
  return {
    attendees: body.attendees,
    totalPages: Number(res.headers.get('X-ET-TOTAL-PAGES') ?? body.total_pages ?? 1),
    cursor: res.headers.get('X-EVT-Cursor'),
  };
}

/**
 * One delta pass from `cursor` ('0': everything). Pages are written in order, each in one transaction; the cursor
 * for the next pass is the first page's, so nothing changed at the site during the pass is missed. Returns that
 * cursor and how many attendees came.
 */
export async function pullAttendees(p: PullContext, cursor: string): Promise<{ cursor: string; received: number }> {
  const first = await fetchPage(p, 1, cursor);
  if (!first) return { cursor, received: 0 };
  const next = first.cursor ?? cursor;
  let received = 0;
  const inFlight = new Map<number, Promise<PageAnswer | null>>();
  let asked = 1;
  const fill = () => {
    while (inFlight.size < PAGES_IN_FLIGHT && asked < first.totalPages) {
      const n = ++asked;
      const page = fetchPage(p, n, cursor);
      page.catch(() => undefined);
      inFlight.set(n, page);
    }
  };
  try {
    let page: PageAnswer | null = first;
    for (let n = 1; page; n++) {
      fill();
      if (page.attendees.length) {
        await applyAttendees(p, page.attendees);
        received += page.attendees.length;
      }
      const following = inFlight.get(n + 1);
      inFlight.delete(n + 1);
      page = following === undefined ? null : await following;
    }
  } finally {
    await Promise.allSettled(inFlight.values());
  }
  return { cursor: next, received };
}

function providerOf(a: SiteAttendee): 'rsvp' | 'tc' {
  return a.provider === 'rsvp' || /rsvp/i.test(a.provider ?? '') ? 'rsvp' : 'tc';
}

/** A site-local `Y-m-d H:i:s` as ISO 8601 UTC. */
export function siteDateToUtc(local: string, siteTimezone: string): string {
  return zonedToInstant(local, siteTimezone).toISOString();
}

/** Whether the hub's standing check-in is the one the site shows (the site keeps its time to the second). */
function sameCheckin(st: HubStanding, details: CheckinDetails, siteTimezone: string): boolean {
  const c = st.checkin;
  if (!st.checkedIn || !c) return false;
  return formatInZone(new Date(c.scanned_at), siteTimezone) === details.date && (c.device_id ?? null) === (details.device_id ?? null);
}

/** Writes one page of the site's attendees (one transaction: a page is applied whole or not at all). */
async function applyAttendees(p: PullContext, page: readonly SiteAttendee[]): Promise<void> {
  const now = p.now();
  const when = stamp(now, p.hubTimezone);
  const mine = page.filter((a) => a.post_id === p.eventId);
  const posts: MirrorPost[] = [];
  const tickets = new Map<number, { title: string; provider: 'rsvp' | 'tc' }>();
  const orders = new Map<number, MirrorOrder>();
  const attendees: MirrorAttendee[] = [];
  for (const a of mine) {
    const provider = providerOf(a);
    if (!tickets.has(a.ticket_id)) tickets.set(a.ticket_id, { title: a.ticket?.title ?? '', provider });
    const orderId = provider === 'tc' && typeof a.order === 'number' && a.order > 0 ? a.order : null;
    const status = a.order_status ?? 'completed';
    if (orderId !== null && !orders.has(orderId))
      orders.set(orderId, {
        id: orderId,
        provider,
        status: status === 'no' ? 'completed' : status,
        name: a.title ?? '',
        email: a.email ?? '',
        createdUtc: when.dateGmt,
      });
    attendees.push({
      id: a.id,
      ticketId: a.ticket_id,
      eventId: a.post_id,
      orderId,
      provider,
      fullName: a.title ?? '',
      email: a.email ?? '',
      securityCode: a.security_code,
      rsvpStatus: provider === 'rsvp' ? (status === 'no' ? 'no' : 'yes') : null,
    });
  }
  for (const [id, t] of tickets) posts.push({ id, type: 'ticket', status: 'publish', title: t.title, parent: p.eventId, ...when });
  for (const o of orders.values()) posts.push({ id: o.id, type: 'order', status: 'publish', title: o.name, ...when });
  // Attendee posts after their tickets and orders (the attendee rows refer to both).
  for (const a of mine) posts.push({ id: a.id, type: 'attendee', status: a.status, title: a.title ?? '', ...when });

  await inTransaction(p.db, async () => {
    await upsertPosts(
      p.db,
      posts.filter((x) => x.type !== 'attendee'),
    );
    await upsertTicketCols(
      p.db,
      [...tickets].map(([id, t]) => ({ id, eventId: p.eventId, provider: t.provider })),
    );
    await upsertOrderCols(p.db, [...orders.values()]);
    await upsertPosts(
      p.db,
      posts.filter((x) => x.type === 'attendee'),
    );
    await upsertAttendeeCols(p.db, attendees);
    // Check-in state, for attendees with nothing of this hub's waiting (read inside the transaction: a kiosk's
    // scan recorded meanwhile is waiting, and wins).
    const standing = await standingOf(
      p.db,
      mine.map((a) => a.id),
    );
    for (const a of mine) {
      const st = standing.get(a.id);
      if (!st || st.pending > 0) continue;
      const details = a.checked_in && a.checkin_details ? a.checkin_details : null;
      if (details) {
        if (sameCheckin(st, details, p.siteTimezone)) continue;
        const id = await insertMirrorCheckin(p.db, {
          attendeeId: a.id,
          eventId: p.eventId,
          result: 'accepted',
          scannedAt: siteDateToUtc(details.date, p.siteTimezone),
          receivedAt: now.toISOString(),
          deviceId: details.device_id ?? null,
          deviceLabel: details.device_label ?? null,
          source: details.source ?? 'site',
          userId: typeof details.author === 'number' ? details.author : Number(details.author) || 0,
          replacesId: null,
        });
        await setCheckedIn(p.db, a.id, id);
      } else if (st.checkedIn) {
        await insertMirrorCheckin(p.db, {
          attendeeId: a.id,
          eventId: p.eventId,
          result: 'checked_out',
          scannedAt: now.toISOString(),
          receivedAt: now.toISOString(),
          deviceId: null,
          deviceLabel: null,
          source: 'site',
          userId: 0,
          replacesId: null,
        });
        await setCheckedIn(p.db, a.id, null);
      }
    }
  });
  await recordChange(p.db, 'all');
}
