import { kioskPaths } from '../../shared/checkin/paths.ts';
import { BATCH_MAX_REQUESTS, BatchResponse, checkinBatchItem, classifyCheckinResponse, type CheckinFate } from '../../shared/checkin/wire.ts';
import type { Db } from '../db/connection.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { recordChange } from '../db/change-feed.ts';
import { getAttendeeRow, setCheckedIn } from '../db/repos/attendees.ts';
import type { CheckinRow } from '../db/repos/checkins.ts';
import { insertMirrorCheckin, markPushed, pendingPushes } from '../db/repos/hub.ts';
import { siteDateToUtc } from './mirror.ts';
import { UpstreamError, type Upstream } from './upstream.ts';

/**
 * The push half of the venue hub: every check-in and check-out made at the hub goes to the site through
 * `/batch/v1`, in the order the hub recorded them, as the kiosk sent it (its `nonce`, `device_id` and scan time),
 * so the site records each once however often a push is repeated (a hub killed after the site answered and before
 * it wrote the answer down sends the same nonces again, and the site answers them as before).
 *
 * What the site answers, item by item:
 * - accepted: the scan is `sent`;
 * - already checked in (someone else's check-in stood there first): the scan becomes a `conflict` in the hub's log,
 *   the site's check-in is mirrored as the attendee's standing one with `replaces_id` naming the hub's scan, so the
 *   kiosk that made it is told (the attendee's `checkin_details.replaced`);
 * - refused for the ticket (not valid at the site, refunded meanwhile): the scan becomes `rejected`, and the attendee
 *   is no longer inside at the hub;
 * - anything without a final answer (5xx, 429, a network failure, a key refused): nothing is written, and the rest
 *   of the batch waits too, so a check-out never reaches the site before the check-in it follows.
 */

export interface PushContext {
  db: Db;
  upstream: Upstream;
  /** Names the hub in the nonce of a check-in made at the hub without one (a manager's check-in, not a kiosk's). */
  hubId: string;
  siteTimezone: string;
  now: () => Date;
}

export interface PushRound {
  sent: number;
  conflicts: number;
  rejected: number;
  /** Scans left for a later round (no final answer). */
  held: number;
}

/** The nonce a scan goes up with: the kiosk's, or one made from the hub and the log row (the same at every retry). */
export function pushNonce(hubId: string, row: Pick<CheckinRow, 'id' | 'nonce'>): string {
  return row.nonce ?? `hub-${hubId}-${row.id}`.padEnd(16, '0');
}

/** One batch of up to 25 waiting scans. `held > 0` or an UpstreamError: stop pushing until the next cycle. */
export async function pushOnce(p: PushContext): Promise<PushRound> {
  const rows = await pendingPushes(p.db, BATCH_MAX_REQUESTS);
  const round: PushRound = { sent: 0, conflicts: 0, rejected: 0, held: 0 };
  if (!rows.length) return round;
  const requests = rows.map((r) =>
    checkinBatchItem(r.attendee_id as number, {
      check_in: r.result === 'accepted',
      check_in_date: r.scanned_at,
      device_id: r.device_id ?? `hub-${p.hubId}`,
      nonce: pushNonce(p.hubId, r),
    }),
  );
  const res = await p.upstream.post(kioskPaths.batch(), { requests });
  const parsed = BatchResponse.safeParse(res.body);
  if (!parsed.success || parsed.data.responses.length !== rows.length)
    throw new UpstreamError({
      kind: 'unavailable',
      status: res.status,
      message: 'the site answered the batch with something else',
      retryAfterMs: null,
    });
  const fates: CheckinFate[] = parsed.data.responses.map((item) =>
    item ? classifyCheckinResponse(item.status, item.body) : { kind: 'retry', status: 0, message: 'no answer to this item' },
  );
  // The answers up to the first one without a final answer; the rest go again, in order, next time.
  const firstHeld = fates.findIndex((f) => f.kind === 'retry' || f.kind === 'device');
  const settled = firstHeld === -1 ? rows.length : firstHeld;
  round.held = rows.length - settled;
  await inTransaction(p.db, async () => {
    for (let i = 0; i < settled; i++) {
      const row = rows[i] as CheckinRow;
      const fate = fates[i] as CheckinFate;
      if (fate.kind === 'accepted') {
        await markPushed(p.db, row.id, 'sent');
        round.sent++;
      } else if (fate.kind === 'conflict') {
        await markPushed(p.db, row.id, 'conflict', `site: ${fate.message}`);
        round.conflicts++;
        await adoptSiteCheckin(p, row, fate.standing);
      } else if (fate.kind === 'rejected') {
        await markPushed(p.db, row.id, 'rejected', `site: ${fate.code}`);
        round.rejected++;
        await standDown(p, row);
      }
    }
  });
  if (round.conflicts || round.rejected) await recordChange(p.db, 'all');
  const device = fates.find((f) => f.kind === 'device');
  if (settled === 0 && device?.kind === 'device')
    throw new UpstreamError({
      kind: 'refused',
      status: device.status,
      code: device.code,
      message: `the site refused the check-ins: ${device.message}`,
    });
  return round;
}

/** The site's standing check-in replaces the hub's losing scan as the attendee's, if that scan still stands. */
async function adoptSiteCheckin(p: PushContext, row: CheckinRow, standing: Extract<CheckinFate, { kind: 'conflict' }>['standing']): Promise<void> {
  const attendee = row.attendee_id as number;
  if (!(await standsAsCheckin(p.db, attendee, row.id))) return;
  const now = p.now().toISOString();
  const id = await insertMirrorCheckin(p.db, {
    attendeeId: attendee,
    eventId: row.event_id as number,
    result: 'accepted',
    scannedAt: standing?.date ? siteDateToUtc(standing.date, p.siteTimezone) : now,
    receivedAt: now,
    deviceId: standing?.device_id ?? null,
    deviceLabel: standing?.device_label ?? null,
    source: standing?.source ?? 'site',
    userId: typeof standing?.author === 'number' ? standing.author : Number(standing?.author) || 0,
    replacesId: row.id,
  });
  await setCheckedIn(p.db, attendee, id);
}

/** A check-in the site refused no longer stands at the hub. */
async function standDown(p: PushContext, row: CheckinRow): Promise<void> {
  const attendee = row.attendee_id as number;
  if (row.result === 'accepted' && (await standsAsCheckin(p.db, attendee, row.id))) await setCheckedIn(p.db, attendee, null);
}

async function standsAsCheckin(db: Db, attendee: number, checkinId: number): Promise<boolean> {
  return (await getAttendeeRow(db, attendee))?.checkin_id === checkinId;
}
