import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import type { KioskDb } from '../store/db.ts';
import { getSyncState } from '../store/meta.ts';
import { pendingCount } from '../store/outbox.ts';
import { ApiError, createApiClient, type FetchLike } from './api-client.ts';
import { downloadAttendees } from './download.ts';
import { SyncEvents, type SyncStatus } from './events.ts';
import { uploadOutbox } from './upload.ts';

export interface EngineOptions {
  db: KioskDb;
  /** The current pairing; read on every run so re-pairing needs no new engine. */
  settings: () => PairingPayload | null;
  fetch?: FetchLike;
  now?: () => number;
  random?: () => number;
  /** Delta sync period while online. */
  intervalMs?: number;
  /** Scans arriving in a burst are uploaded together. */
  debounceMs?: number;
  /** Run by timers: retries after failures and debounced requests (off in tests that drive every run). */
  timers?: boolean;
}

const MAX_BACKOFF_MS = 30_000;
/** Hard cap on back-to-back runs caused by requests that arrive during a run. */
const MAX_LOOPS = 5;

/** Exponential backoff with jitter: about 1 s, 2 s, 4 s ... up to 30 s after consecutive network failures. */
export function backoffDelay(failures: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.5 + random() / 2));
}

/**
 * The single-flight sync engine: uploads the outbox, then downloads (first full, then deltas). Only one run
 * is ever in progress; requests during a run schedule exactly one more. Failures become typed events.
 */
export class SyncEngine {
  readonly events = new SyncEvents();
  status: SyncStatus = { online: true, running: false, pending: 0, lastSyncAt: null, ready: false, unauthorized: false, lastError: null };
  private running: Promise<void> | null = null;
  private again = false;
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private debounceTimer: ReturnType<typeof setTimeout> | null = null;
  private interval: ReturnType<typeof setInterval> | null = null;
  private refreshEvent = false;
  private readonly now: () => number;

  constructor(private readonly opts: EngineOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Loads the status from the store, then syncs now and every interval. */
  async start(): Promise<void> {
    await this.refreshStatus();
    this.interval ??= setInterval(() => void this.syncNow(), this.opts.intervalMs ?? 30_000);
    void this.syncNow();
  }

  stop(): void {
    for (const t of [this.retryTimer, this.debounceTimer]) if (t) clearTimeout(t);
    if (this.interval) clearInterval(this.interval);
    this.retryTimer = this.debounceTimer = this.interval = null;
  }

  /** Asks for a sync soon; scans call this so a burst goes up in one batch. */
  requestSync(): void {
    if (this.debounceTimer || this.opts.timers === false) return;
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = null;
      void this.syncNow();
    }, this.opts.debounceMs ?? 250);
  }

  /** Runs a sync now (or joins the one running, which then runs once more). */
  syncNow(opts: { refreshEvent?: boolean } = {}): Promise<void> {
    if (opts.refreshEvent) this.refreshEvent = true;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      this.setStatus({ running: true });
      try {
        let loops = 0;
        do {
          this.again = false;
          await this.runOnce();
        } while (this.again && ++loops < MAX_LOOPS);
      } finally {
        this.running = null;
        await this.refreshStatus({ running: false });
      }
    })();
    return this.running;
  }

  /** Waits for the run in progress, if any. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** A scan's own request found no network: go offline now rather than at the next sync. */
  noteNetworkFailure(message: string): void {
    if (this.status.online) this.onNetworkFailure(message);
  }

  /** The key was refused somewhere: stop syncing until paired again. */
  noteUnauthorized(message: string): void {
    this.setStatus({ unauthorized: true, lastError: message });
    this.events.emit({ type: 'failure', failure: { kind: 'unauthorized', message } });
  }

  /** Pairing changed: forget a refused key and start afresh. */
  resetAuth(): void {
    this.failures = 0;
    this.setStatus({ unauthorized: false, lastError: null, online: true });
  }

  async refreshStatus(extra: Partial<SyncStatus> = {}): Promise<void> {
    const [pending, state] = await Promise.all([pendingCount(this.opts.db), getSyncState(this.opts.db)]);
    this.setStatus({ pending, lastSyncAt: state.lastSyncAt, ready: state.complete, ...extra });
  }

  private setStatus(patch: Partial<SyncStatus>): void {
    this.status = { ...this.status, ...patch };
    this.events.emit({ type: 'status', status: this.status });
  }

  private onNetworkFailure(message: string): void {
    this.failures++;
    const retryInMs = backoffDelay(this.failures, this.opts.random);
    this.setStatus({ online: false, lastError: message });
    this.events.emit({ type: 'failure', failure: { kind: 'network', message, retryInMs } });
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.opts.timers === false) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.syncNow();
    }, retryInMs);
  }

  private async runOnce(): Promise<void> {
    const settings = this.opts.settings();
    if (!settings || this.status.unauthorized) return;
    const api = createApiClient(settings, this.opts.fetch);
    const { db } = this.opts;

    const up = await uploadOutbox(api, db, this.now);
    for (const failure of up.failures) this.events.emit({ type: 'failure', failure });
    await this.refreshStatus();
    if (up.stop?.kind === 'unauthorized') return this.noteUnauthorized(up.stop.message);
    if (up.stop?.kind === 'network') return this.onNetworkFailure(up.stop.message);

    const refreshEvent = this.refreshEvent;
    this.refreshEvent = false;
    try {
      await downloadAttendees({
        api, db, eventId: settings.event_id, now: this.now, refreshEvent,
        onProgress: (p) => this.events.emit({ type: 'progress', ...p }),
      });
    } catch (err) {
      const failure = err instanceof ApiError ? err.failure : null;
      if (failure?.kind === 'unauthorized') return this.noteUnauthorized(failure.message);
      return this.onNetworkFailure(failure?.message ?? (err instanceof Error ? err.message : String(err)));
    }
    this.failures = 0;
    await this.refreshStatus({ online: true, lastError: null });
  }
}
