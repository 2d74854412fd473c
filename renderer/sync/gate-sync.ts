import { z } from 'zod';
import { CheckinListArchive, CheckinListStatus } from '../../shared/models/checkin-lists.ts';
import { checkinListRoutes } from '../../shared/routes/checkin-lists.ts';
import { ticketsRoutes } from '../../shared/routes/tickets.ts';
import { knownUnbound, LogPass, loadGate, mergeServerPasses, passesFromLog, saveGate, type GateState } from '../checkin/gate.ts';
import type { KioskDb } from '../store/db.ts';
import { snapshotRows } from '../store/snapshot.ts';
import { ApiError, type ApiClient } from './api-client.ts';

/**
 * Refreshes the kiosk's check-in list at each sync (renderer/checkin/gate.ts): which list its key is bound to
 * (the server names it in `X-EVT-Key-List` on the list of lists), the list's rules, its status, and the passes
 * the server's log holds on it (other kiosks of the same list included). A key bound to an event has no list:
 * asked once after pairing, as a key's binding never changes.
 */

const base = (r: { namespace: string; route: string }) => `${r.namespace}${r.route}`.replace(/^\/+/, '');
export const gatePaths = {
  lists: () => base(checkinListRoutes.listCheckinLists),
  status: (id: number) => base(checkinListRoutes.checkinListStatus).replace(/\(\?P<id>[^)]*\)/, String(id)),
  checkins: () => base(ticketsRoutes.listCheckins),
};

const PASSES_PER_PAGE = 100;
const SiteIndex = z.object({ timezone_string: z.string().optional() });
const LogPage = z.object({ total_pages: z.number().int(), checkins: z.array(LogPass) });

/** Returns the gate as stored after the refresh (`null`: the key is bound to no list). Throws ApiError when offline. */
export async function syncGate(api: ApiClient, db: KioskDb, eventId: number, signal?: AbortSignal): Promise<GateState | null> {
  if (await knownUnbound(db)) return null;
  let res: Awaited<ReturnType<ApiClient['get']>>;
  try {
    res = await api.get(gatePaths.lists(), { event_id: eventId, per_page: 100 }, { signal });
  } catch (err) {
    // A server from before check-in lists has no such route: the kiosk has no list there.
    if (!(err instanceof ApiError && err.failure.kind === 'http' && err.failure.status === 404)) throw err;
    await saveGate(db, null);
    return null;
  }
  const bound = Number(res.headers.get('X-EVT-Key-List') ?? Number.NaN);
  const list = Number.isInteger(bound) ? CheckinListArchive.parse(res.body).checkin_lists.find((l) => l.id === bound) : undefined;
  const before = await loadGate(db);
  if (!list) {
    await saveGate(db, null);
    await db.listPasses.clear();
    return null;
  }
  if (list.ticket_ids.length > 0 && !sameTickets(before?.list.ticket_ids, list.ticket_ids)) await dropNotAdmitted(db, list.ticket_ids);
  let timezone = before?.timezone;
  if (!timezone) {
    const index = SiteIndex.parse((await api.get('', { _fields: 'timezone_string' }, { signal })).body);
    timezone = index.timezone_string || 'UTC';
  }
  const since = before?.list.id === list.id ? (before.passCursor ?? 0) : 0;
  const [statusRes, log] = await Promise.all([api.get(gatePaths.status(list.id), {}, { signal }), readPasses(api, list.id, since, signal)]);
  const status = CheckinListStatus.parse(statusRes.body);
  // The passes and the status are read after this sync's upload: what this kiosk scanned before is in both.
  await mergeServerPasses(db, log.passes, since === 0 || log.cursor === null);
  const gate: GateState = { list, timezone, status, statusAt: Date.now(), ...(log.cursor === null ? {} : { passCursor: log.cursor }) };
  await saveGate(db, gate);
  return gate;
}

/**
 * The passes on the list the server's log took in after `since` (a list-bound key reads its list's scans only),
 * and the log's cursor to read from next time, taken from the first page (`null`: a server that sends none
 * answered the whole log). The cursor follows the order scans arrived in, not their scan time: an offline kiosk
 * uploads old scan times late, and they still come after the cursor.
 */
async function readPasses(api: ApiClient, listId: number, since: number, signal?: AbortSignal) {
  const passes = [];
  let cursor: number | null = null;
  for (let page = 1; ; page++) {
    const query = { result: 'accepted,checked_out', order: 'ASC', per_page: PASSES_PER_PAGE, page, after_id: since };
    const res = await api.get(gatePaths.checkins(), query, { signal });
    if (page === 1) {
      const header = Number(res.headers.get('X-EVT-Cursor') ?? Number.NaN);
      cursor = Number.isSafeInteger(header) && header >= 0 ? header : null;
    }
    const body = LogPage.parse(res.body);
    passes.push(...passesFromLog(listId, body.checkins));
    if (page >= body.total_pages) break;
  }
  return { passes, cursor };
}

function sameTickets(a: readonly number[] | undefined, b: readonly number[]): boolean {
  return a !== undefined && a.length === b.length && a.every((t, i) => t === b[i]);
}

/**
 * The list no longer admits some tickets (an organizer edited it): their attendees leave the cache, kept as
 * trashed rows (searches and counts skip them; the list's rules refuse them anyway). The server moves the attendee
 * cursor past the attendees of every ticket added or removed, so those newly admitted come with the next delta,
 * and one admitted again later comes back the same way.
 */
async function dropNotAdmitted(db: KioskDb, ticketIds: readonly number[]): Promise<void> {
  const admitted = new Set(ticketIds);
  await db.transaction('rw', [db.attendees, db.snapshot], async () => {
    const rows = new Map((await snapshotRows(db)).map((r) => [r.id, r]));
    for (const r of await db.attendees.toArray()) rows.set(r.id, r);
    const dropped = [...rows.values()].filter((r) => !admitted.has(r.ticketId) && r.status !== 'trash');
    if (dropped.length) await db.attendees.bulkPut(dropped.map((r) => ({ ...r, status: 'trash', trashed: 1 })));
  });
}
