import type { ConflictRow, RejectedRow } from '../store/db.ts';

/** Why a sync run (or one queued scan) did not go through. */
export type SyncFailure =
  /** No answer from the server; the engine retries with backoff. */
  | { kind: 'network'; message: string; retryInMs: number }
  /** The key is revoked or not allowed: syncing stops until the device is paired again. */
  | { kind: 'unauthorized'; message: string }
  /** The server refused one scan for good; it is in the rejected list. */
  | { kind: 'rejected'; item: RejectedRow }
  /** Another device admitted the attendee first; it is in the conflicts list. */
  | { kind: 'conflict'; item: ConflictRow };

/** What the sync engine tells the UI. */
export type SyncEvent =
  | { type: 'progress'; phase: 'full' | 'delta'; loaded: number; total: number }
  | { type: 'status'; status: SyncStatus }
  | { type: 'failure'; failure: SyncFailure };

export interface SyncStatus {
  online: boolean;
  running: boolean;
  pending: number;
  lastSyncAt: number | null;
  /** The first full download has finished. */
  ready: boolean;
  /** Set when the key was refused; cleared by pairing again. */
  unauthorized: boolean;
  lastError: string | null;
}

type Listener = (event: SyncEvent) => void;

/** A tiny typed event hub; listeners that throw do not stop the others. */
export class SyncEvents {
  private listeners = new Set<Listener>();
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(event: SyncEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        console.error('sync listener failed', err);
      }
    }
  }
}
