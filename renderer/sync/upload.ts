import {
  BATCH_MAX_REQUESTS, BatchResponse, checkinBatchItem, classifyCheckinResponse,
} from '../../shared/checkin/wire.ts';
import type { KioskDb, OutboxRow } from '../store/db.ts';
import { nextOutboxBatch } from '../store/outbox.ts';
import { settleBatch, type Settlement } from '../store/settle.ts';
import { ApiError, type ApiClient } from './api-client.ts';
import type { SyncFailure } from './events.ts';

/** After this many retryable answers to one item, it is set aside as rejected rather than blocking forever. */
export const MAX_ITEM_ATTEMPTS = 20;

export interface UploadResult {
  uploaded: number;
  failures: SyncFailure[];
  /** Stop the run: `network` (retry later with backoff) or `unauthorized` (ask to re-pair). */
  stop: { kind: 'network' | 'unauthorized'; message: string } | null;
}

function checkinBody(row: OutboxRow) {
  return { check_in: row.checkIn, check_in_date: row.scanIso, device_id: row.deviceId, nonce: row.nonce };
}

/** Sends one batch of queued scans and settles each item by its answer. */
export async function uploadBatch(
  api: ApiClient, db: KioskDb, rows: OutboxRow[], now: () => number,
): Promise<UploadResult> {
  const result: UploadResult = { uploaded: 0, failures: [], stop: null };
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
      return { ...result, stop: { kind: 'unauthorized', message: err.failure.message } };
    }
    // No usable answer for the whole batch: nothing is settled, the same nonces go again later.
    return { ...result, stop: { kind: 'network', message: err instanceof Error ? err.message : String(err) } };
  }
  const items: Array<{ row: OutboxRow; result: Settlement }> = [];
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
  // One transaction for the whole batch; the UI hears of conflicts and refusals only after it commits.
  const settled = await settleBatch(db, items, now());
  result.uploaded = items.filter((i) => i.result.kind !== 'retry').length;
  for (const item of settled.conflicts) result.failures.push({ kind: 'conflict', item });
  for (const item of settled.rejected) result.failures.push({ kind: 'rejected', item });
  return result;
}

/** Drains the outbox in batches of at most 25, oldest first, until it is empty or a batch must stop. */
export async function uploadOutbox(api: ApiClient, db: KioskDb, now: () => number, maxBatches = 1000): Promise<UploadResult> {
  const total: UploadResult = { uploaded: 0, failures: [], stop: null };
  for (let n = 0; n < maxBatches; n++) {
    const rows = await nextOutboxBatch(db, BATCH_MAX_REQUESTS);
    if (rows.length === 0) break;
    const r = await uploadBatch(api, db, rows, now);
    total.uploaded += r.uploaded;
    total.failures.push(...r.failures);
    if (r.stop) {
      total.stop = r.stop;
      break;
    }
  }
  return total;
}
