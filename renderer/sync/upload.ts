import {
  BATCH_MAX_REQUESTS, BatchResponse, checkinBatchItem, classifyCheckinResponse,
} from '../../shared/checkin/wire.ts';
import type { KioskDb, OutboxRow } from '../store/db.ts';
import { settleBatch, type Settlement } from '../store/settle.ts';
import { ApiError, type ApiClient } from './api-client.ts';
import type { SyncFailure } from './events.ts';

/** After this many retryable answers to one item, it is set aside as rejected rather than blocking forever. */
const MAX_ITEM_ATTEMPTS = 20;

export interface UploadResult {
  uploaded: number;
  failures: SyncFailure[];
  /** Stop the run: `network` (retry later with backoff) or `unauthorized` (ask to re-pair). */
  stop: { kind: 'network' | 'unauthorized'; message: string } | null;
}

function checkinBody(row: OutboxRow) {
  return { check_in: row.checkIn, check_in_date: row.scanIso, device_id: row.deviceId, nonce: row.nonce };
}

interface SentBatch {
  items: Array<{ row: OutboxRow; result: Settlement }>;
  stop: UploadResult['stop'];
}

/** Sends one batch of queued scans and sorts each item's answer; stores nothing. */
async function sendBatch(api: ApiClient, rows: OutboxRow[]): Promise<SentBatch> {
  const result: SentBatch = { items: [], stop: null };
  let body: BatchResponse;
  try {
    const res = await api.post('batch/v1', {
      validation: 'normal',
      requests: rows.map((r) => checkinBatchItem(r.attendeeId, checkinBody(r))),
    });
    body = BatchResponse.parse(res.body);
    if (body.responses.length !== rows.length) throw new Error('batch answer has the wrong number of items');
  } catch (err) {
    if (err instanceof ApiError && err.failure.kind === 'unauthorized') {
      return { items: [], stop: { kind: 'unauthorized', message: err.failure.message } };
    }
    // No usable answer for the whole batch: nothing is settled, the same nonces go again later.
    return { items: [], stop: { kind: 'network', message: err instanceof Error ? err.message : String(err) } };
  }
  const items = result.items;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const item = body.responses[i];
    const outcome = item ? classifyCheckinResponse(item.status, item.body) : { kind: 'retry' as const, status: 0, message: 'no answer' };
    switch (outcome.kind) {
      case 'accepted':
        items.push({ row, result: { kind: 'accepted', attendee: outcome.attendee } });
        break;
      case 'conflict':
        items.push({ row, result: { kind: 'conflict', standing: { date: outcome.standing?.date ?? null, deviceId: outcome.standing?.device_id ?? null } } });
        break;
      case 'rejected':
        items.push({ row, result: { kind: 'rejected', code: outcome.code, message: outcome.message } });
        break;
      case 'unauthorized':
        // The row stays queued for the new key.
        result.stop = { kind: 'unauthorized', message: outcome.message };
        break;
      case 'retry':
        if (row.attempts + 1 >= MAX_ITEM_ATTEMPTS) {
          items.push({ row, result: { kind: 'rejected', code: 'server_error', message: `${outcome.status}: ${outcome.message}` } });
        } else {
          items.push({ row, result: { kind: 'retry' } });
          result.stop ??= { kind: 'network', message: `server answered ${outcome.status}: ${outcome.message}` };
        }
        break;
    }
  }
  return result;
}

/** Stores one batch's answers in one transaction; the UI hears of conflicts and refusals only after it commits. */
async function settleSent(db: KioskDb, sent: SentBatch, now: () => number): Promise<UploadResult> {
  const settled = await settleBatch(db, sent.items, now());
  return {
    uploaded: sent.items.filter((i) => i.result.kind !== 'retry').length,
    failures: [
      ...settled.conflicts.map((item) => ({ kind: 'conflict' as const, item })),
      ...settled.rejected.map((item) => ({ kind: 'rejected' as const, item })),
    ],
    stop: sent.stop,
  };
}

/**
 * Drains the outbox in batches of at most 25, oldest first, until it is empty or a batch must stop. While
 * one batch's answers are written, the next batch is already on its way: rows are taken strictly after the
 * last one sent, so nothing goes twice in a run, and scans keep their order.
 */
export async function uploadOutbox(api: ApiClient, db: KioskDb, now: () => number, maxBatches = 1000): Promise<UploadResult> {
  const total: UploadResult = { uploaded: 0, failures: [], stop: null };
  const add = (r: UploadResult) => {
    total.uploaded += r.uploaded;
    total.failures.push(...r.failures);
    total.stop ??= r.stop;
  };
  let settling: Promise<UploadResult> | null = null;
  let after = 0;
  try {
    for (let n = 0; n < maxBatches && !total.stop; n++) {
      const rows = await db.outbox.where('seq').above(after).limit(BATCH_MAX_REQUESTS).toArray();
      if (rows.length === 0) break;
      const sent = await sendBatch(api, rows);
      if (settling) add(await settling);
      after = rows[rows.length - 1].seq!;
      settling = settleSent(db, sent, now);
      if (sent.stop) break;
    }
  } finally {
    if (settling) add(await settling);
  }
  return total;
}
