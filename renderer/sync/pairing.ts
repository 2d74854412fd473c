import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import type { KioskDb } from '../store/db.ts';
import { getSettings, putSettings, resetSyncState } from '../store/meta.ts';
import { clearEventData, pendingCount } from '../store/outbox.ts';

/** Whether new pairing settings point at another server or event than the current ones. */
function pairsElsewhere(current: PairingPayload | null, next: PairingPayload): boolean {
  return current !== null && (current.url !== next.url || current.event_id !== next.event_id);
}

/** Scans that pairing with `next` would set aside (0 when the server and event stay the same). */
export async function scansAtRisk(db: KioskDb, next: PairingPayload): Promise<number> {
  return pairsElsewhere(await getSettings(db), next) ? pendingCount(db) : 0;
}

/**
 * Stores new pairing settings. The same server and event with a new key (after a revocation) keeps the
 * cache and the queue; anywhere else starts a fresh cache, with unsent scans set aside, not dropped.
 */
export async function applyPairing(db: KioskDb, next: PairingPayload, now: number): Promise<void> {
  const current = await getSettings(db);
  if (current === null || pairsElsewhere(current, next)) {
    await clearEventData(db, now);
    await resetSyncState(db);
  }
  await putSettings(db, next);
}

/** Forgets the pairing; unsent scans are set aside. */
export async function unpair(db: KioskDb, now: number): Promise<void> {
  await clearEventData(db, now);
  await resetSyncState(db);
  await putSettings(db, null);
}
