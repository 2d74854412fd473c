import { AttendeeArchive, DoorEvent, DoorSnapshotSlice, readSnapshotSlice, TicketArchive, type DoorAttendee } from '../../shared/checkin/wire.ts';
import { DOOR_SNAPSHOT_LIMIT } from '../../shared/routes/tickets.ts';
import { kioskPaths } from '../../shared/checkin/paths.ts';
import { LANGS, type Lang } from '../../shared/lang.ts';
import { applyAttendees, applySnapshotPage } from '../store/attendees.ts';
import { snapshotChanged } from '../store/snapshot.ts';
import type { KioskDb } from '../store/db.ts';
import { rememberTicketIds, storeEventSigningKeys, storeTicketTotal } from '../store/signing-keys.ts';
import { getSyncState, learnDoorLabels, putSyncState, type FullDownloadState, type SyncState } from '../store/meta.ts';
import { ApiError, type ApiClient, type ApiResponse } from './api-client.ts';

/** The server's most per page (CONTRACT: 100 on the tickets namespace). */
const ATTENDEES_PER_PAGE = 100;
/** Requests out at once while earlier pages are parsed and written, so server and kiosk work at once (a browser opens 6 connections to a host). */
const PAGES_IN_FLIGHT = 6;
/** Pages fetched beyond the last one written: what arrives while a batch is written waits in memory. */
const PAGES_AHEAD = 50;
/** Attendees written in one transaction at most: few transactions, yet progress moves often enough. */
const BATCH_ROWS = 5000;

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
  /** Also fetch the event and its tickets (a first download that starts afresh always does). */
  refreshEvent?: boolean;
  /** Sees each delta batch once it is stored. */
  onDelta?: (batch: DoorAttendee[]) => Promise<void>;
  /** Attendees per door snapshot slice (tests make it small); the server's most by default. */
  sliceRows?: number;
  /**
   * The event's answer as this key read it a moment ago (the sync run's access check): used for the event instead
   * of asking again, one request fewer on the server while the first slices are built. A promise of it when the
   * download starts before that check is over (`gate`); undefined (or a promise of undefined): ask the server.
   */
  eventBody?: unknown;
  /**
   * The sync run's checks (the key against the event, the outbox, the refusals) when the download starts before
   * they are over: its requests go out meanwhile, but nothing is written to the cache until this resolves true; on
   * false the download stops with {@link DownloadGateClosed} having written nothing.
   */
  gate?: Promise<boolean>;
}

/** The sync run's checks failed (see DownloadOptions.gate): the download stopped before writing anything. */
export class DownloadGateClosed extends Error {
  constructor() {
    super("the sync run's checks did not pass: nothing downloaded was stored");
  }
}

/** Resolves once the download may write (DownloadOptions.gate); throws DownloadGateClosed if it may not. */
async function mayWrite(opts: Pick<DownloadOptions, 'gate'>): Promise<void> {
  if (opts.gate && !(await opts.gate)) throw new DownloadGateClosed();
}

/** The event and its tickets; small, so refreshed whole on every full pass and on demand. */
export async function downloadEventInfo({ api, db, eventId, signal, eventBody, gate }: DownloadOptions): Promise<void> {
  // A door key reads tickets as a manager, whose ticket objects embed every attendee: `door` asks the server to
  // leave those lists out (megabytes at a large event). `_fields` names whole tickets: WordPress's field filter
  // does not descend into a list, so `tickets.id` would answer `tickets: []` (reference 1.4), and the kiosk would
  // know no ticket of its event (a signed code could never be matched to its ticket).
  const ticketQuery = { include_post: eventId, per_page: 100, door: 1, _fields: 'total,total_pages,tickets' };
  const [eventRes, ticketsRes, ...translated] = await Promise.all([
    (async () => {
      const body = await eventBody;
      return body === undefined ? await api.get(kioskPaths.event(eventId), {}, { signal }) : { body };
    })(),
    api.get(kioskPaths.tickets(), ticketQuery, { signal }),
    // Ticket titles in each kiosk language, so the door shows them in the language staff chose.
    ...LANGS.map((lang) => api.get(kioskPaths.tickets(), { ...ticketQuery, translation_language: lang }, { signal })),
  ]);
  const event = DoorEvent.parse(eventRes.body);
  const archive = TicketArchive.parse(ticketsRes.body);
  const tickets = archive.tickets;
  const titles = new Map<number, Partial<Record<Lang, string>>>();
  translated.forEach((res, i) => {
    for (const t of TicketArchive.parse(res.body).tickets) {
      if (t.title) titles.set(t.id, { ...titles.get(t.id), [LANGS[i]]: t.title });
    }
  });
  await mayWrite({ gate });
  await db.transaction('rw', [db.event, db.tickets, db.meta], async () => {
    await storeEventSigningKeys(db, eventRes.body);
    await storeTicketTotal(db, archive.total);
    await db.event.clear();
    await db.event.put({ id: event.id, title: event.title ?? '', startDate: event.start_date ?? null, endDate: event.end_date ?? null });
    await db.tickets.clear();
    await db.tickets.bulkPut(tickets.map((t) => ({ id: t.id, title: t.title ?? '', titles: titles.get(t.id) ?? {} })));
  });
}

interface Page {
  attendees: DoorAttendee[];
  total: number;
  totalPages: number;
  cursor: string | null;
}

async function fetchPage(opts: DownloadOptions, page: number, changedSince: string): Promise<Page | null> {
  // `door`: only the fields the cache keeps (a quarter of the bytes to build, send and parse); a server that
  // does not know it sends the full object, which reads the same.
  const query = { post_id: opts.eventId, per_page: ATTENDEES_PER_PAGE, page, changed_since: changedSince, door: 1 };
  let res: ApiResponse;
  try {
    res = await opts.api.get(kioskPaths.attendees(), query, { signal: opts.signal, timeoutMs: 30_000 });
  } catch (err) {
    // The list shrank while we paged: the pass is over, and the next delta brings whatever moved.
    if (err instanceof ApiError && err.failure.kind === 'http' && err.failure.code === 'invalid-page-number') return null;
    throw err;
  }
  const body = AttendeeArchive.parse(res.body);
  return {
    attendees: body.attendees,
    total: Number(res.headers.get('X-ET-TOTAL') ?? body.total),
    totalPages: Number(res.headers.get('X-ET-TOTAL-PAGES') ?? body.total_pages),
    cursor: res.headers.get('X-EVT-Cursor'),
  };
}

/**
 * One paging pass over `changed_since`. The first download uses cursor 0: that list is in ID order and keeps
 * trashed attendees, so pages do not shift when attendees are added or removed meanwhile, and an interrupted
 * pass resumes by page number. The cursor for the next delta is taken from the first page. Pages are
 * fetched several at a time, a new request going out as each answer arrives (not only between writes), up to
 * PAGES_AHEAD pages beyond the last one written; they are written strictly in order by `store`, the pages that
 * have arrived together (up to BATCH_ROWS attendees in one transaction), each batch with the progress it
 * completes.
 */
async function pagePass(
  opts: DownloadOptions,
  changedSince: string,
  start: { page: number; cursor: string | null; loaded: number },
  store: (batch: DoorAttendee[], progress: FullDownloadState) => Promise<void>,
): Promise<{ cursor: string | null; loaded: number }> {
  let cursor = start.cursor;
  let loaded = start.loaded;
  const first = await fetchPage(opts, start.page, changedSince);
  if (first === null) return { cursor, loaded };
  if (cursor === null) cursor = first.cursor;
  const totalPages = first.totalPages;
  /** Pages requested and not yet taken for writing, and those of them that have arrived. */
  const requested = new Map<number, Promise<Page | null>>();
  const arrived = new Map<number, Page | null>();
  let inFlight = 0;
  /** Set when a request failed or the pass is over: no further requests go out. */
  let stopped = false;
  let nextToFetch = start.page + 1;
  /** The last page taken for writing. */
  let page = start.page;
  const fill = () => {
    while (!stopped && inFlight < PAGES_IN_FLIGHT && nextToFetch <= totalPages && nextToFetch <= page + PAGES_AHEAD) {
      const n = nextToFetch++;
      const p = fetchPage(opts, n, changedSince);
      inFlight++;
      requested.set(n, p);
      // A failed request stops further ones; it surfaces when its page's turn comes (not as unhandled meanwhile).
      p.then(
        (v) => {
          inFlight--;
          arrived.set(n, v);
          fill();
        },
        () => {
          inFlight--;
          stopped = true;
        },
      );
    }
  };
  const take = (n: number): Promise<Page | null> => {
    const p = requested.get(n) ?? fetchPage(opts, n, changedSince);
    requested.delete(n);
    arrived.delete(n);
    return p;
  };
  let current: Page | null = first;
  try {
    while (current) {
      fill();
      const batch = [...current.attendees];
      let last = current;
      let end = false;
      for (;;) {
        if (page >= totalPages || last.attendees.length === 0) {
          end = true;
          break;
        }
        if (!arrived.has(page + 1) || batch.length >= BATCH_ROWS) break;
        const more = arrived.get(page + 1)!;
        void take(page + 1);
        page += 1;
        if (more === null) {
          end = true;
          break;
        }
        batch.push(...more.attendees);
        last = more;
      }
      loaded += batch.length;
      await store(batch, { cursor, nextPage: page + 1, totalPages, loaded, total: last.total });
      opts.onProgress?.({ phase: changedSince === '0' ? 'full' : 'delta', loaded, total: last.total });
      if (end) break;
      page += 1;
      const next = take(page);
      fill();
      current = await next;
    }
  } finally {
    // Do not leave requests running past a failure; their answers are not needed any more.
    stopped = true;
    await Promise.allSettled(requested.values());
  }
  return { cursor, loaded };
}

interface Slice {
  attendees: DoorAttendee[];
  total: number;
  nextAfterId: number | null;
  cursor: string | null;
}

/** Slices asked for and not yet taken for writing, at most: the server works on the next while one is read and written. */
const SLICES_AHEAD = 2;

/**
 * One slice of the door snapshot; null when the server has no such route (an older Doorstep, or the original).
 * `onNext` is told the next slice's `after_id` from the answer's headers (`X-EVT-Next-After-Id`), before its body
 * is read.
 */
async function fetchSlice(opts: DownloadOptions, afterId: number, onNext?: (afterId: number) => void): Promise<Slice | null> {
  // `rows`: the compact form (a third of the bytes, no keys repeated); a server that does not know it answers with
  // objects, which read the same.
  const query = { post_id: opts.eventId, after_id: afterId, limit: opts.sliceRows ?? DOOR_SNAPSHOT_LIMIT, form: 'rows' };
  let res: ApiResponse;
  try {
    res = await opts.api.get(kioskPaths.doorSnapshot(), query, {
      signal: opts.signal,
      timeoutMs: 60_000,
      onHeaders: (status, headers) => {
        const next = headers.get('X-EVT-Next-After-Id');
        if (status === 200 && next && /^\d{1,15}$/.test(next)) onNext?.(Number(next));
      },
    });
  } catch (err) {
    if (err instanceof ApiError && err.failure.kind === 'http' && err.failure.status === 404 && err.failure.code === 'rest_no_route') return null;
    throw err;
  }
  const body = DoorSnapshotSlice.parse(res.body);
  return {
    attendees: readSnapshotSlice(body),
    total: body.total,
    nextAfterId: body.next_after_id,
    cursor: res.headers.get('X-EVT-Cursor'),
  };
}

/**
 * The first download through the door snapshot route: slices of up to DOOR_SNAPSHOT_LIMIT attendees in ID order
 * (trashed ones included, as the paged pass over `changed_since=0`), written strictly in order, each with the
 * `after_id` that resumes after it. The next slice is asked for as soon as an answer's headers name it (up to
 * SLICES_AHEAD ahead), else once its body is read, so the server builds it while the kiosk reads and writes
 * this one. The delta cursor is the first slice's, as the paged pass takes its first page's: whatever changes
 * behind the slices meanwhile comes in the next delta. A thousand pages of 100 cost the server and the kiosk more
 * in per-request work than in attendees (issue 22). Null when the server does not offer the route: the caller
 * pages through the list instead.
 */
async function snapshotPass(
  opts: DownloadOptions,
  start: { afterId: number; cursor: string | null; loaded: number },
  store: (batch: DoorAttendee[], progress: FullDownloadState) => Promise<void>,
): Promise<{ cursor: string | null; loaded: number } | null> {
  let cursor = start.cursor;
  let loaded = start.loaded;
  /** Slices asked for and not yet taken, by `after_id`. */
  const asked = new Map<number, Promise<Slice | null>>();
  let stopped = false;
  const ask = (after: number): void => {
    if (stopped || asked.has(after) || asked.size >= SLICES_AHEAD) return;
    const p = fetchSlice(opts, after, ask);
    // A failure surfaces when the slice is taken, not as unhandled while another is written.
    p.catch(() => undefined);
    asked.set(after, p);
  };
  const take = (after: number): Promise<Slice | null> => {
    const p = asked.get(after) ?? fetchSlice(opts, after, ask);
    asked.delete(after);
    return p;
  };
  try {
    const first = await take(start.afterId);
    if (first === null) return null;
    let current: Slice = first;
    for (;;) {
      if (cursor === null) cursor = current.cursor;
      const after: number | null = current.nextAfterId;
      if (after !== null) ask(after);
      loaded += current.attendees.length;
      const total = Math.max(current.total, loaded);
      await store(current.attendees, { cursor, nextPage: 1, totalPages: 0, afterId: after ?? 0, loaded, total });
      opts.onProgress?.({ phase: 'full', loaded, total });
      if (after === null) return { cursor, loaded };
      const got: Slice | null = await take(after);
      // The route went away mid-download (the server was replaced by an older one): start again by pages.
      if (got === null) throw new SnapshotRouteGone();
      current = got;
    }
  } finally {
    // Do not leave requests running past the end or a failure; their answers are not needed any more.
    stopped = true;
    await Promise.allSettled(asked.values());
  }
}

/** The server stopped offering the door snapshot in the middle of a download through it. */
class SnapshotRouteGone extends Error {
  constructor() {
    super('the server no longer offers the door snapshot');
  }
}

/**
 * Brings the cache up to date: the first full download (resuming from the last stored page if it was
 * interrupted), or a delta with `changed_since`. Returns the number of attendees received.
 */
export async function downloadAttendees(opts: DownloadOptions): Promise<number> {
  const state = await getSyncState(opts.db);
  const eventInfo = opts.refreshEvent || (!state.complete && !state.full);
  if (!state.complete) {
    let resume = state.full;
    // The first download goes to snapshot chunks (fast), each with the progress that resumes after it and the
    // tickets and door labels its attendees hold, in one transaction. The event and its tickets come meanwhile: both are over
    // before the cache counts as complete, and neither is left running when the other fails.
    const store = async (batch: DoorAttendee[], full: FullDownloadState) => {
      await mayWrite(opts);
      await applySnapshotPage(opts.db, batch, async () => {
        await putSyncState(opts.db, { ...state, full });
        await rememberTicketIds(opts.db, batch);
        await learnDoorLabels(opts.db, batch);
      });
    };
    const paged = () =>
      pagePass(
        opts,
        '0',
        resume ? { page: resume.nextPage, cursor: resume.cursor, loaded: resume.loaded } : { page: 1, cursor: null, loaded: 0 },
        store,
      );
    /**
     * The door snapshot when the server offers it (a download begun by pages goes on by pages). Without it, or if
     * it goes away mid-download, the paged list; the chunks stored so far are dropped first then, since pages
     * would write chunks that overlap theirs.
     */
    const whole = async () => {
      if (!resume || resume.afterId !== undefined) {
        const start = resume ? { afterId: resume.afterId!, cursor: resume.cursor, loaded: resume.loaded } : { afterId: 0, cursor: null, loaded: 0 };
        let gone = false;
        try {
          const done = await snapshotPass(opts, start, store);
          if (done) return done;
        } catch (err) {
          if (!(err instanceof SnapshotRouteGone)) throw err;
          gone = true;
        }
        if (resume || gone) {
          await mayWrite(opts);
          await opts.db.transaction('rw', [opts.db.snapshot, opts.db.meta], async () => {
            await opts.db.snapshot.clear();
            await putSyncState(opts.db, { ...state, full: null });
          });
          snapshotChanged(opts.db);
          resume = null;
        }
      }
      return await paged();
    };
    const [pass, info] = await Promise.allSettled([whole(), eventInfo ? downloadEventInfo(opts) : null]);
    if (pass.status === 'rejected') throw pass.reason;
    if (info.status === 'rejected') throw info.reason;
    const result = pass.value;
    await mayWrite(opts);
    const done: SyncState = { complete: true, full: null, cursor: result.cursor, lastSyncAt: opts.now() };
    await putSyncState(opts.db, done);
    return result.loaded - (resume?.loaded ?? 0);
  }
  await mayWrite(opts);
  if (eventInfo) await downloadEventInfo(opts);
  // Deltas update single rows.
  const result = await pagePass(opts, state.cursor ?? '0', { page: 1, cursor: null, loaded: 0 }, async (batch) => {
    await applyAttendees(opts.db, batch);
    await rememberTicketIds(opts.db, batch);
    await learnDoorLabels(opts.db, batch);
    await opts.onDelta?.(batch);
  });
  await putSyncState(opts.db, { ...state, cursor: result.cursor ?? state.cursor, lastSyncAt: opts.now() });
  return result.loaded;
}
