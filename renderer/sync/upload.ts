import { kioskPaths } from '../../shared/checkin/paths.ts';
import {
  BATCH_MAX_REQUESTS,
  BatchResponse,
  CHECKIN_ERRORS,
  checkinBatchItem,
  classifyCheckinResponse,
  refusalBatchItem,
  type CheckinBody,
  type CheckinFate,
} from '../../shared/checkin/wire.ts';
import type { KioskDb, OutboxRow, RefusalRow } from '../store/db.ts';
import { scanMemory } from '../store/scan-memory.ts';
import { settleBatch } from '../store/settle.ts';
import { ApiError, type ApiClient, type ApiFailure } from './api-client.ts';
import type { DeviceProblemKind, SyncFailure } from './events.ts';

/** After this many retryable answers to one item, it is set aside as rejected rather than blocking forever. */
const MAX_ITEM_ATTEMPTS = 20;

/** Why an upload stopped early: a device problem (stays queued until re-paired), or no usable answer. */
export type UploadStop =
  | { kind: 'device'; problem: Extract<DeviceProblemKind, 'revoked' | 'wrong_event'>; message: string }
  | { kind: 'failure'; failure: ApiFailure };

export interface UploadResult {
  uploaded: number;
  failures: SyncFailure[];
  stop: UploadStop | null;
}

export interface UploadHooks {
  /** A scan is waiting for this nonce's answer: returns whether it is (the answer is then stored as seen at the door). */
  claim?: (nonce: string) => boolean;
  /** The fate of a nonce is known (its store transaction is under way). */
  answered?: (nonce: string, fate: CheckinFate) => void;
  /**
   * Asked when the server says it does not know an attendee the cache knows: `false` when the key cannot
   * read this event (a key for another event gets 404 for every attendee), so the scans stay queued.
   */
  verifyAccess?: () => Promise<boolean>;
  /**
   * A scan just queued (committed), sent without reading the outbox first when it is all the outbox holds (as the
   * in-memory copy says, store/scan-memory.ts): the door's online answer waits on no IndexedDB read.
   */
  head?: OutboxRow;
  /**
   * A scan being written now, when it will be the only one queued (store/scan-memory.ts): sent at once, before its
   * write commits, so the request's round trip and the write overlap. Its answer is stored (and its waiter told)
   * only once `written` gave the committed row; `undefined` there (the nonce was queued already) stores nothing.
   */
  early?: { row: OutboxRow; written: Promise<OutboxRow | undefined> };
}

function checkinBody(row: OutboxRow): CheckinBody {
  return { check_in: row.checkIn, check_in_date: row.scanIso, device_id: row.deviceId, nonce: row.nonce };
}

interface SentBatch {
  items: Array<{ row: OutboxRow; fate: CheckinFate }>;
  stop: UploadStop | null;
}

/** Sends one batch of queued scans and sorts each item's answer; stores nothing. */
async function sendBatch(api: ApiClient, rows: OutboxRow[], hooks: UploadHooks): Promise<SentBatch> {
  let body: BatchResponse;
  try {
    const res = await api.post(kioskPaths.batch(), {
      validation: 'normal',
      requests: rows.map((r) => checkinBatchItem(r.attendeeId, checkinBody(r))),
    });
    body = BatchResponse.parse(res.body);
    if (body.responses.length !== rows.length) throw new Error('batch answer has the wrong number of items');
  } catch (err) {
    // No usable answer for the whole batch: nothing is settled, the same nonces go again later.
    if (err instanceof ApiError) {
      if (err.failure.kind === 'unauthorized') return { items: [], stop: { kind: 'device', problem: 'revoked', message: err.failure.message } };
      return { items: [], stop: { kind: 'failure', failure: err.failure } };
    }
    return {
      items: [],
      stop: { kind: 'failure', failure: { kind: 'bad_answer', status: 200, message: err instanceof Error ? err.message : String(err) } },
    };
  }
  const result: SentBatch = { items: [], stop: null };
  let accessChecked: boolean | null = null;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const item = body.responses[i];
    let fate: CheckinFate = item ? classifyCheckinResponse(item.status, item.body) : { kind: 'retry', status: 0, message: 'no answer' };
    if (fate.kind === 'rejected' && fate.code === CHECKIN_ERRORS.attendeeNotFound && hooks.verifyAccess) {
      // Deleted on the server, or a key that cannot see this event? Only the first is about the ticket.
      accessChecked ??= await hooks.verifyAccess();
      if (!accessChecked) fate = { kind: 'device', problem: 'wrong_event', code: fate.code, message: fate.message, status: fate.status };
    }
    if (fate.kind === 'retry' && row.attempts + 1 >= MAX_ITEM_ATTEMPTS) {
      fate = { kind: 'rejected', code: 'server_error', message: `${fate.status}: ${fate.message}`, status: fate.status };
    }
    if (fate.kind === 'device') result.stop ??= { kind: 'device', problem: fate.problem, message: fate.message };
    if (fate.kind === 'retry')
      result.stop ??= { kind: 'failure', failure: { kind: 'network', message: `server answered ${fate.status}: ${fate.message}` } };
    result.items.push({ row, fate });
  }
  return result;
}

/** Stores one batch's answers in one transaction; the UI hears of conflicts and refusals only after it commits. */
async function settleSent(db: KioskDb, sent: SentBatch, now: () => number, hooks: UploadHooks): Promise<UploadResult> {
  // Claimed before the transaction starts, so a scan's deadline cannot fire while its answer is being stored.
  const live = new Set(sent.items.filter((i) => hooks.claim?.(i.row.nonce)).map((i) => i.row.nonce));
  // The door hears its answer at once; the store catches up in the same tick's transaction (scans are decided
  // one after another, and the attendee already carries this device's mark, so nothing reads a gap).
  for (const { row, fate } of sent.items) hooks.answered?.(row.nonce, fate);
  const settled = await settleBatch(db, sent.items, now(), live);
  return {
    uploaded: sent.items.filter((i) => i.fate.kind !== 'retry' && i.fate.kind !== 'device').length,
    failures: [
      ...settled.conflicts.map((item) => ({ kind: 'conflict' as const, item })),
      ...settled.rejected.map((item) => ({ kind: 'rejected' as const, item })),
    ],
    stop: sent.stop,
  };
}

/** Batches out at once: the server works on one while the kiosk sends the next and stores the answers to another. */
const UPLOADS_IN_FLIGHT = 3;

/**
 * Drains the outbox in batches of at most 25, oldest first, until it is empty or a batch must stop. Up to
 * UPLOADS_IN_FLIGHT batches are out at once, and no attendee is in two of them: a batch ends before the first
 * scan of an attendee whose earlier scan is still out, so one attendee's scans reach the server in the order
 * they were made (a check-out never overtakes its check-in), while different attendees' need no order. Rows are
 * taken strictly after the last one sent, so nothing goes twice in a run. Once a batch must stop, no new one
 * goes out; those already out are answered and stored.
 */
export async function uploadOutbox(
  api: ApiClient,
  db: KioskDb,
  now: () => number,
  hooks: UploadHooks = {},
  maxBatches = 1000,
): Promise<UploadResult> {
  const total: UploadResult = { uploaded: 0, failures: [], stop: null };
  const add = (r: UploadResult) => {
    total.uploaded += r.uploaded;
    total.failures.push(...r.failures);
    total.stop ??= r.stop;
  };
  /** Attendees with a scan in a batch that is out. */
  const out = new Set<number>();
  const flights = new Set<Promise<void>>();
  let after = 0;
  let n0 = 0;
  let stopped = false;
  /** A store that failed (IndexedDB refused its transaction): the run ends, and the caller hears of it as before. */
  let broken = null as { error: unknown } | null;
  /**
   * Sends `rows` as one batch, out beside the others. With `written` (the early scan, one row sent before its write
   * committed), nothing is stored, nor anyone told, before the scan itself is: the answer waits for the committed row,
   * and stores nothing when there is none (the nonce was queued already).
   */
  const launch = (rows: OutboxRow[], written?: Promise<OutboxRow | undefined>) => {
    for (const row of rows) out.add(row.attendeeId);
    const flight = (async () => {
      try {
        const sent = await sendBatch(api, rows, hooks);
        if (sent.stop) stopped = true;
        if (!written) add(await settleSent(db, sent, now, hooks));
        else {
          const committed = await written;
          if (committed) add(await settleSent(db, { ...sent, items: sent.items.map((i) => ({ ...i, row: committed })) }, now, hooks));
        }
      } catch (error) {
        stopped = true;
        broken ??= { error };
      } finally {
        for (const row of rows) out.delete(row.attendeeId);
      }
    })();
    flights.add(flight);
    // Never rejects (a failure is kept in `broken`): out of the set once over.
    void flight.then(() => flights.delete(flight));
  };
  try {
    if (hooks.early && maxBatches > 0) {
      n0 = 1;
      launch([hooks.early.row], hooks.early.written);
      // The next batch starts after it: the outbox is read from its `seq` on (a failed write ends the run).
      after = (await hooks.early.written.catch(() => undefined))?.seq ?? 0;
      if (after === 0) stopped = true;
    }
    for (let n = n0; n < maxBatches && !stopped; ) {
      const waiting =
        n === 0 && !hooks.early && hooks.head && onlyQueued(db, hooks.head)
          ? [hooks.head]
          : await db.outbox.where('seq').above(after).limit(BATCH_MAX_REQUESTS).toArray();
      if (waiting.length === 0) break;
      const rows: OutboxRow[] = [];
      for (const row of waiting) {
        if (out.has(row.attendeeId)) break;
        rows.push(row);
      }
      if (rows.length === 0) {
        // The next scan's attendee is in a batch that is out: its answer comes first.
        await Promise.race(flights);
        continue;
      }
      n++;
      after = rows[rows.length - 1].seq!;
      launch(rows);
      if (flights.size >= UPLOADS_IN_FLIGHT) await Promise.race(flights);
    }
  } finally {
    await Promise.all(flights);
  }
  if (broken) throw broken.error;
  return total;
}

/** Whether `row` is the only scan queued. */
function onlyQueued(db: KioskDb, row: OutboxRow): boolean {
  return row.seq !== undefined && scanMemory(db)?.onlyQueued(row.seq) === true;
}

/**
 * Sends the scans refused at this door to the server's check-in log, in batches of at most 25, oldest first.
 * An item the server recorded (or answered with its first record of that nonce) is done; one it can never
 * record (4xx: a server without the route) is dropped; a 5xx or 429 stays for the next sync (dropped after
 * 20 tries). The check-ins go first: nothing here delays an admission.
 */
export async function uploadRefusals(api: ApiClient, db: KioskDb, maxBatches = 100): Promise<UploadStop | null> {
  for (let n = 0; n < maxBatches; n++) {
    const rows = await db.refusals.orderBy('seq').limit(BATCH_MAX_REQUESTS).toArray();
    if (rows.length === 0) return null;
    let body: BatchResponse;
    try {
      const res = await api.post(kioskPaths.batch(), { validation: 'normal', requests: rows.map(refusalItem) });
      body = BatchResponse.parse(res.body);
    } catch (err) {
      if (err instanceof ApiError) {
        if (err.failure.kind === 'unauthorized') return { kind: 'device', problem: 'revoked', message: err.failure.message };
        return { kind: 'failure', failure: err.failure };
      }
      return { kind: 'failure', failure: { kind: 'bad_answer', status: 200, message: err instanceof Error ? err.message : String(err) } };
    }
    const done: number[] = [];
    const again: RefusalRow[] = [];
    let stop: UploadStop | null = null;
    rows.forEach((row, i) => {
      const status = body.responses[i]?.status ?? 0;
      if (status === 401 || status === 403) stop ??= { kind: 'device', problem: 'revoked', message: `HTTP ${status}` };
      else if ((status === 0 || status === 429 || status >= 500) && row.attempts + 1 < MAX_ITEM_ATTEMPTS) again.push(row);
      else done.push(row.seq!);
    });
    await db.transaction('rw', db.refusals, async () => {
      await db.refusals.bulkDelete(done);
      for (const row of again) await db.refusals.update(row.seq!, { attempts: row.attempts + 1 });
    });
    if (stop || again.length) return stop;
  }
  return null;
}

function refusalItem(row: RefusalRow) {
  return refusalBatchItem({
    result: row.result,
    reason: row.reason,
    ...(row.attendeeId !== null ? { attendee_id: row.attendeeId } : {}),
    check_in_date: row.scanIso,
    device_id: row.deviceId,
    nonce: row.nonce,
  });
}
