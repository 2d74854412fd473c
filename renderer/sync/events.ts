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
  | { kind: 'conflict'; item: ConflictRow }
  /** A device problem appeared (see {@link DeviceProblem}). */
  | { kind: 'device'; problem: DeviceProblem };

/**
 * Something wrong with the device, never with a ticket: shown as a banner ("This kiosk needs attention: ..."),
 * while scans go on being decided from the cache.
 * - `revoked`: the server refused the key (401/403): pair again with a new key.
 * - `wrong_event`: the key cannot read this event's attendees (a key for another event): pair again.
 * - `not_doorstep`: the address answers, but not as a Doorstep server (wrong address, captive portal).
 * - `unreachable`: no answer from the server for a while: check the network; scans are queued.
 * - `clock_off`: this device's clock differs from the server's `Date` by more than 2 minutes.
 */
export type DeviceProblemKind = 'revoked' | 'wrong_event' | 'not_doorstep' | 'unreachable' | 'clock_off';
/** Most serious first: the banner shows the first. */
export const DEVICE_PROBLEM_ORDER: readonly DeviceProblemKind[] = ['revoked', 'wrong_event', 'not_doorstep', 'unreachable', 'clock_off'];

export interface DeviceProblem {
  kind: DeviceProblemKind;
  /** When it was first seen, ms since epoch. */
  since: number;
  /** The technical detail (server message, HTTP status), for staff and logs. */
  message: string;
  /** `clock_off`: device clock minus server clock, ms. */
  skewMs?: number;
}

/** The attendee list is complete: "Paired with {event}: N attendees ready". */
export interface ReadyInfo {
  eventTitle: string | null;
  attendees: number;
}

/** What the sync engine tells the UI. */
export type SyncEvent =
  | { type: 'progress'; phase: 'full' | 'delta'; loaded: number; total: number }
  | { type: 'status'; status: SyncStatus }
  | { type: 'failure'; failure: SyncFailure }
  | { type: 'ready'; info: ReadyInfo };

export interface SyncStatus {
  online: boolean;
  running: boolean;
  pending: number;
  lastSyncAt: number | null;
  /** The first full download has finished. */
  ready: boolean;
  /** Set when the key was refused or belongs to another event (syncing stops); cleared by pairing again. */
  unauthorized: boolean;
  lastError: string | null;
  /** Every device problem now, most serious first; empty when all is well. */
  problems: DeviceProblem[];
  /** The most serious device problem, for the banner; `null` when all is well. */
  device: DeviceProblem | null;
  /** Device clock minus the server's (from its `Date` header), ms; `null` before any answer. */
  clockSkewMs: number | null;
  /** Set once the first full download is complete (and after each restart once counted). */
  readyInfo: ReadyInfo | null;
  /** Paired with a venue hub (its `/health` names its site): how the hub stands with the site; null otherwise. */
  hub: HubInfo | null;
}

/** A venue hub's link to the site (CONTRACT section 9), as its `/health` says. */
export interface HubInfo {
  /** The site answers the hub. */
  reachable: boolean;
  /** Since when it does not (ms), or null. */
  offlineSince: number | null;
  /** Check-ins made at the venue the site does not have yet. */
  pending: number;
  /** The site refused the hub's key: check-ins stay at the venue until an organizer fixes it. */
  keyRefused: boolean;
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
