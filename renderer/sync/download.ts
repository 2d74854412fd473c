import { AttendeeArchive, DoorEvent, TicketArchive } from '../../shared/checkin/wire.ts';
import { applyAttendees } from '../store/attendees.ts';
import type { KioskDb } from '../store/db.ts';
import { getSyncState, putSyncState, type FullDownloadState, type SyncState } from '../store/meta.ts';
import { ApiError, type ApiClient, type ApiResponse } from './api-client.ts';

export const ATTENDEES_PER_PAGE = 100;

export interface DownloadProgress {
  phase: 'full' | 'delta';
  loaded: number;
  total: number;
}

export interface DownloadOptions {
  api: ApiClient;
  db: KioskDb;
  eventId: number;
  now: () => number;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
}

function header(res: ApiResponse, name: string): string | null {
  return res.headers.get(name);
}

/** The event and its tickets; small, so refreshed whole on every full pass and on demand. */
export async function downloadEventInfo({ api, db, eventId, signal }: DownloadOptions): Promise<void> {
  const [eventRes, ticketsRes] = await Promise.all([
    api.get(`evt/events/v1/events/${eventId}`, {}, { signal }),
    api.get('evt/tickets/v1/tickets', { include_post: eventId, per_page: 100 }, { signal }),
  ]);
  const event = DoorEvent.parse(eventRes.body);
  const tickets = TicketArchive.parse(ticketsRes.body).tickets;
  await db.transaction('rw', db.event, db.tickets, async () => {
    await db.event.clear();
    await db.event.put({ id: event.id, title: event.title ?? '', startDate: event.start_date ?? null, endDate: event.end_date ?? null });
    await db.tickets.clear();
    await db.tickets.bulkPut(tickets.map((t) => ({ id: t.id, title: t.title ?? '' })));
  });
}

async function fetchPage(opts: DownloadOptions, page: number, changedSince: string | null): Promise<ApiResponse | null> {
  const query: Record<string, string | number> = {
    post_id: opts.eventId, per_page: ATTENDEES_PER_PAGE, page, orderby: 'id', order: 'ASC',
  };
  if (changedSince !== null) query.changed_since = changedSince;
  try {
    return await opts.api.get('evt/tickets/v1/attendees', query, { signal: opts.signal, timeoutMs: 30_000 });
  } catch (err) {
    // The list shrank while we paged: the pass is over, and the next delta brings whatever moved.
    if (err instanceof ApiError && err.failure.kind === 'http' && err.failure.code === 'invalid-page-number') return null;
    throw err;
  }
}

/**
 * Runs one paging pass. The cursor is taken from the first page, so changes made while paging are picked
 * up by the next delta. Each page is fetched while the previous one is being written.
 */
async function pagePass(
  opts: DownloadOptions,
  changedSince: string | null,
  start: { page: number; cursor: string | null; loaded: number },
  onPage: (s: FullDownloadState) => Promise<void>,
): Promise<{ cursor: string | null; loaded: number; total: number }> {
  let page = start.page;
  let cursor = start.cursor;
  let loaded = start.loaded;
  let total = 0;
  let next = fetchPage(opts, page, changedSince);
  for (;;) {
    const res = await next;
    if (res === null) break;
    const body = AttendeeArchive.parse(res.body);
    if (page === start.page && cursor === null) cursor = header(res, 'X-EVT-Cursor');
    const totalPages = Number(header(res, 'X-ET-TOTAL-PAGES') ?? body.total_pages);
    total = Number(header(res, 'X-ET-TOTAL') ?? body.total);
    const more = page < totalPages && body.attendees.length > 0;
    next = more ? fetchPage(opts, page + 1, changedSince) : Promise.resolve(null);
    // Keep a rejected prefetch from surfacing as unhandled while this page is written.
    next.catch(() => undefined);
    await applyAttendees(opts.db, body.attendees);
    loaded += body.attendees.length;
    await onPage({ cursor, nextPage: page + 1, totalPages, loaded, total });
    opts.onProgress?.({ phase: changedSince === null ? 'full' : 'delta', loaded, total });
    if (!more) break;
    page += 1;
  }
  await next;
  return { cursor, loaded, total };
}

/**
 * Brings the cache up to date: the first full download (resuming from the last stored page if it was
 * interrupted), or a delta with `changed_since`. Returns the number of attendees received.
 */
export async function downloadAttendees(opts: DownloadOptions): Promise<number> {
  const state = await getSyncState(opts.db);
  if (!state.complete) {
    const resume = state.full;
    if (!resume) await downloadEventInfo(opts);
    const result = await pagePass(
      opts,
      null,
      resume ? { page: resume.nextPage, cursor: resume.cursor, loaded: resume.loaded } : { page: 1, cursor: null, loaded: 0 },
      (full) => putSyncState(opts.db, { ...state, full }),
    );
    const done: SyncState = { complete: true, full: null, cursor: result.cursor, lastSyncAt: opts.now() };
    await putSyncState(opts.db, done);
    return result.loaded - (resume?.loaded ?? 0);
  }
  const result = await pagePass(opts, state.cursor, { page: 1, cursor: null, loaded: 0 }, async () => undefined);
  await putSyncState(opts.db, { ...state, cursor: result.cursor ?? state.cursor, lastSyncAt: opts.now() });
  return result.loaded;
}
