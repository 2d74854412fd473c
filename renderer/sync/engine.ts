import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import { kioskPaths } from '../../shared/checkin/paths.ts';
import { DoorAttendee, type CheckinFate } from '../../shared/checkin/wire.ts';
import { countAttendees } from '../store/attendees.ts';
import type { KioskDb, OutboxRow } from '../store/db.ts';
import { getSyncState } from '../store/meta.ts';
import { storeEventSigningKeys } from '../store/signing-keys.ts';
import { pendingCount, storeServerAttendee } from '../store/outbox.ts';
import { ApiError, createApiClient, type ApiClient, type ApiFailure, type FetchLike } from './api-client.ts';
import { downloadAttendees } from './download.ts';
import { syncGate } from './gate-sync.ts';
import { DEVICE_PROBLEM_ORDER, SyncEvents, type DeviceProblem, type DeviceProblemKind, type HubInfo, type SyncStatus } from './events.ts';
import { recordOverruledScans } from '../store/settle.ts';
import { uploadOutbox, uploadRefusals, type UploadHooks, type UploadStop } from './upload.ts';
import { probeKey, type EventRead } from './pairing.ts';
import { scanMemory } from '../store/scan-memory.ts';

export interface EngineOptions {
  db: KioskDb;
  /** The current pairing; read on every run so re-pairing needs no new engine. */
  settings: () => PairingPayload | null;
  fetch?: FetchLike;
  now?: () => number;
  random?: () => number;
  /** Delta sync period while online. */
  intervalMs?: number;
  /**
   * Delta sync period when the server is a venue hub (CONTRACT section 9): the doors of a venue agree through it,
   * so another door's check-in reaches this kiosk's cache within about this (the hub is on the LAN, and a delta
   * with nothing new is one small request).
   */
  hubIntervalMs?: number;
  /** Scans arriving in a burst are uploaded together. */
  debounceMs?: number;
  /** Run by timers: retries after failures and debounced requests (off in tests that drive every run). */
  timers?: boolean;
  /** This device's ID, for the door counts in {@link SyncStatus.readyInfo}. */
  deviceId?: string;
}

const MAX_BACKOFF_MS = 30_000;
/** Hard cap on back-to-back runs caused by requests that arrive during a run. */
const MAX_LOOPS = 5;
/** Clock skew against the server's `Date` beyond which the device needs attention. */
export const MAX_CLOCK_SKEW_MS = 2 * 60_000;
/** How often a sync run re-checks the key against the event (it always does while a problem stands). */
const HEALTH_EVERY_MS = 60_000;
/** Consecutive failed runs before "unreachable" becomes a device problem (one blip is not). */
const UNREACHABLE_AFTER_FAILURES = 2;

/** Exponential backoff with jitter: about 1 s, 2 s, 4 s ... up to 30 s after consecutive network failures. */
export function backoffDelay(failures: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.5 + random() / 2));
}

interface Waiter {
  resolve: (fate: CheckinFate | null) => void;
  /** The answer is being stored: the deadline no longer applies. */
  claimed: boolean;
  timer: ReturnType<typeof setTimeout>;
}

/** What the server says of one attendee looked up at the door. */
export type Lookup = 'found' | 'not_found' | 'unavailable';

/**
 * The sync engine: the only code of the kiosk that talks to the server. Uploads the outbox (one upload in
 * flight at a time, shared by sync runs and scans), downloads (first full, then deltas), looks up single
 * attendees for the door, and keeps the device state (key refused, wrong event, not a Doorstep server,
 * unreachable, clock off). Sync runs are single-flight; requests during a run schedule exactly one more.
 */
export class SyncEngine {
  readonly events = new SyncEvents();
  status: SyncStatus = {
    online: true,
    running: false,
    pending: 0,
    lastSyncAt: null,
    ready: false,
    unauthorized: false,
    lastError: null,
    problems: [],
    device: null,
    clockSkewMs: null,
    readyInfo: null,
    hub: null,
  };
  private running: Promise<void> | null = null;
  private again = false;
  private uploading: Promise<UploadStop | null> | null = null;
  private uploadAgain = false;
  private readonly waiters = new Map<string, Waiter>();
  private failures = 0;
  private lastHealthAt = -Infinity;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private debounceTimer: ReturnType<typeof setTimeout> | null = null;
  private interval: ReturnType<typeof setInterval> | null = null;
  private refreshEvent = false;
  /**
   * The event as the pairing question read it with the new key (resetAuth): the next run's check of the key, instead
   * of reading the event again, while it is younger than HEALTH_EVERY_MS (the age at which a run checks anyway).
   * A kiosk just paired then asks the server for its first slices, not for the event a second time (issue 22).
   */
  private checked: EventRead | null = null;
  private recheck = false;
  private readonly now: () => number;

  constructor(private readonly opts: EngineOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Loads the status from the store, then syncs now and every interval. */
  async start(): Promise<void> {
    await this.refreshStatus();
    if (this.status.ready) void this.announceReady();
    this.setPeriod(this.opts.intervalMs ?? 30_000);
    void this.syncNow();
  }

  private periodMs = 0;

  /** (Re)starts the periodic sync at `ms` (a hub found or gone changes it). */
  private setPeriod(ms: number): void {
    if (this.opts.timers === false || (this.interval && ms === this.periodMs)) return;
    if (this.interval) clearInterval(this.interval);
    this.periodMs = ms;
    this.interval = setInterval(() => void this.syncNow(), ms);
  }

  stop(): void {
    for (const t of [this.retryTimer, this.debounceTimer]) if (t) clearTimeout(t);
    if (this.interval) clearInterval(this.interval);
    this.retryTimer = this.debounceTimer = this.interval = null;
    this.releaseWaiters();
  }

  /** Asks for a sync soon; a burst of requests goes up in one run. */
  requestSync(): void {
    if (this.debounceTimer || this.opts.timers === false) return;
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = null;
      void this.syncNow();
    }, this.opts.debounceMs ?? 250);
  }

  /**
   * Runs a sync now (or joins the one running, which then runs once more). `recheck` (staff pressed "Sync
   * now"): a refused key is asked about once more instead of being taken as final.
   */
  syncNow(opts: { refreshEvent?: boolean; recheck?: boolean } = {}): Promise<void> {
    if (opts.refreshEvent) this.refreshEvent = true;
    if (opts.recheck) this.recheck = true;
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

  /** Waits for the run and the upload in progress, if any. */
  async idle(): Promise<void> {
    while (this.running || this.uploading) await (this.running ?? this.uploading);
  }

  /** Key refused or for another event: nothing goes to the server until the device is paired again. */
  private blocked(): boolean {
    return this.has('revoked') || this.has('wrong_event');
  }

  /**
   * A scan was just queued: upload now and wait up to `deadlineMs` for the server's answer to `nonce`.
   * `null` when there was none in time (offline, device problem, backlog, slow server): the local verdict
   * stands and the scan goes up with the same nonce later.
   */
  flush(nonce: string, deadlineMs: number, queued?: OutboxRow): Promise<CheckinFate | null> {
    if (!this.opts.settings() || this.blocked() || !this.status.online) {
      this.requestSync();
      return Promise.resolve(null);
    }
    const answer = this.wait(nonce, deadlineMs);
    void this.upload(queued);
    return answer;
  }

  /**
   * {@link flush} for a scan not written yet: `write` writes it, and `queuedOf` names the outbox row that write
   * committed (`undefined`: the nonce was queued already). When it will be the only scan queued and no upload is
   * out, the scan is sent first and written while the request is out, so the server's round trip and the write
   * overlap; its answer is stored, and reaches the door, only once the write committed (a scan is on this device
   * before its verdict is shown). Otherwise it is written, then sent as {@link flush} sends it. Answers the fate and
   * what `write` answered; rejects as the write does.
   */
  async flushWriting<T>(
    nonce: string,
    deadlineMs: number,
    row: OutboxRow,
    write: () => Promise<T>,
    queuedOf: (written: T) => OutboxRow | undefined,
  ): Promise<{ fate: CheckinFate | null; written: T }> {
    const t0 = this.now();
    const early = this.opts.settings() && !this.blocked() && this.status.online && !this.uploading && scanMemory(this.opts.db)?.queuedCount() === 0;
    if (!early) {
      const written = await write();
      return { fate: await this.flush(nonce, Math.max(0, deadlineMs - (this.now() - t0)), queuedOf(written)), written };
    }
    const answer = this.wait(nonce, deadlineMs);
    let wrote!: (row: Promise<OutboxRow | undefined>) => void;
    const committed = new Promise<OutboxRow | undefined>((resolve) => {
      wrote = resolve;
    });
    // The request is on its way when this returns (the upload runs up to the fetch at once); a failed write fails the
    // upload too, having stored nothing: the caller hears of it from the write.
    this.upload(undefined, { row, written: committed }).catch(() => undefined);
    const writing = write();
    wrote(writing.then(queuedOf));
    const written = await writing;
    return { fate: await answer, written };
  }

  /** The answer to `nonce` from an upload, or `null` once `deadlineMs` passed without one. */
  private wait(nonce: string, deadlineMs: number): Promise<CheckinFate | null> {
    return new Promise<CheckinFate | null>((resolve) => {
      const waiter: Waiter = {
        resolve,
        claimed: false,
        timer: setTimeout(() => {
          if (waiter.claimed) return;
          this.waiters.delete(nonce);
          resolve(null);
        }, deadlineMs),
      };
      this.waiters.set(nonce, waiter);
    });
  }

  /**
   * Reads one attendee from the server within `deadlineMs` and stores it (a walk-in sold after the last
   * sync, or a refusal the cache may be behind on). A 404 counts as "not found" only once the key is known
   * to read this event: a key for another event gets 404 for every attendee of this one.
   */
  async lookupAttendee(id: number, deadlineMs: number): Promise<Lookup> {
    const settings = this.opts.settings();
    if (!settings || this.blocked() || !this.status.online) return 'unavailable';
    const api = this.api(settings);
    const signal = AbortSignal.timeout(deadlineMs);
    try {
      const res = await api.get(kioskPaths.attendee(id), {}, { signal });
      await storeServerAttendee(this.opts.db, DoorAttendee.parse(res.body));
      return 'found';
    } catch (err) {
      if (!(err instanceof ApiError)) {
        if (signal.aborted) return 'unavailable';
        this.onFailure({ kind: 'bad_answer', status: 200, message: err instanceof Error ? err.message : String(err) });
        return 'unavailable';
      }
      if (err.failure.kind === 'http' && err.failure.status === 404) {
        return (await this.checkAccess(api, settings, signal)) ? 'not_found' : 'unavailable';
      }
      // A deadline is not a network failure: the server may just be slow for one request.
      if (err.failure.kind !== 'network' || !signal.aborted) this.onFailure(err.failure);
      return 'unavailable';
    }
  }

  /** The key was refused somewhere: stop syncing until paired again. */
  noteUnauthorized(message: string): void {
    this.raise('revoked', message);
  }

  /** A scan's own request found no network: go offline now rather than at the next sync. */
  noteNetworkFailure(message: string): void {
    if (this.status.online) this.onNetworkFailure(message);
  }

  /** Pairing changed: forget the device problems of the old pairing and start afresh. */
  resetAuth(checked?: EventRead): void {
    this.failures = 0;
    this.lastHealthAt = -Infinity;
    this.checked = checked ?? null;
    this.setStatus({ unauthorized: false, lastError: null, online: true, problems: [], device: null, readyInfo: null, hub: null });
  }

  async refreshStatus(extra: Partial<SyncStatus> = {}): Promise<void> {
    const [pending, state] = await Promise.all([pendingCount(this.opts.db), getSyncState(this.opts.db)]);
    this.setStatus({ pending, lastSyncAt: state.lastSyncAt, ready: state.complete, ...extra });
  }

  private setStatus(patch: Partial<SyncStatus>): void {
    this.status = { ...this.status, ...patch };
    this.events.emit({ type: 'status', status: this.status });
  }

  private has(kind: DeviceProblemKind): boolean {
    return this.status.problems.some((p) => p.kind === kind);
  }

  private raise(kind: DeviceProblemKind, message: string, extra: Partial<DeviceProblem> = {}): void {
    const existing = this.status.problems.find((p) => p.kind === kind);
    const problem: DeviceProblem = { kind, since: existing?.since ?? this.now(), message, ...extra };
    const problems = [...this.status.problems.filter((p) => p.kind !== kind), problem].sort(
      (a, b) => DEVICE_PROBLEM_ORDER.indexOf(a.kind) - DEVICE_PROBLEM_ORDER.indexOf(b.kind),
    );
    const blocked = problems.some((p) => p.kind === 'revoked' || p.kind === 'wrong_event');
    this.setStatus({ problems, device: problems[0], unauthorized: blocked, lastError: message });
    if (!existing) this.events.emit({ type: 'failure', failure: { kind: 'device', problem } });
    if (kind === 'revoked') this.events.emit({ type: 'failure', failure: { kind: 'unauthorized', message } });
    if (blocked) this.releaseWaiters();
  }

  private clear(...kinds: DeviceProblemKind[]): void {
    if (!this.status.problems.some((p) => kinds.includes(p.kind))) return;
    const problems = this.status.problems.filter((p) => !kinds.includes(p.kind));
    const blocked = problems.some((p) => p.kind === 'revoked' || p.kind === 'wrong_event');
    this.setStatus({ problems, device: problems[0] ?? null, unauthorized: blocked });
  }

  /** Every answer carries the server's `Date`: the device clock is checked against it. */
  private noteDate(headers: Headers): void {
    const date = headers.get('date');
    const server = date ? Date.parse(date) : NaN;
    if (!Number.isFinite(server)) return;
    const skew = this.now() - server;
    if (this.status.clockSkewMs === null || Math.abs(skew - this.status.clockSkewMs) >= 1000) this.setStatus({ clockSkewMs: skew });
    if (Math.abs(skew) > MAX_CLOCK_SKEW_MS) this.raise('clock_off', `device clock ${Math.round(skew / 1000)} s off the server's`, { skewMs: skew });
    else this.clear('clock_off');
  }

  private api(settings: PairingPayload): ApiClient {
    return createApiClient(settings, this.opts.fetch, (h) => this.noteDate(h));
  }

  /** Sorts a failed request into a device problem or a network failure. */
  private onFailure(failure: ApiFailure): void {
    if (failure.kind === 'unauthorized') return this.raise('revoked', failure.message);
    if (failure.kind === 'bad_answer') {
      this.raise('not_doorstep', failure.message);
      return this.onNetworkFailure(failure.message);
    }
    this.onNetworkFailure(failure.message);
  }

  private onNetworkFailure(message: string): void {
    this.failures++;
    const retryInMs = backoffDelay(this.failures, this.opts.random);
    this.setStatus({ online: false, lastError: message });
    if (this.failures >= UNREACHABLE_AFTER_FAILURES) this.raise('unreachable', message);
    this.events.emit({ type: 'failure', failure: { kind: 'network', message, retryInMs } });
    this.releaseWaiters();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.opts.timers === false) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.syncNow();
    }, retryInMs);
  }

  private onSuccess(): void {
    this.failures = 0;
    this.clear('unreachable', 'not_doorstep');
    if (!this.status.online) this.setStatus({ online: true, lastError: null });
  }

  /** Scans waiting for an answer stop waiting: their local verdict stands. */
  private releaseWaiters(): void {
    for (const [nonce, w] of this.waiters) {
      clearTimeout(w.timer);
      this.waiters.delete(nonce);
      w.resolve(null);
    }
  }

  /**
   * Whether the key reads this event's attendees, from the event as the key sees it: the server adds
   * `attendance` only for callers who manage the event's attendees (a key for another event does not).
   * Raises or clears `revoked`, `wrong_event`, `not_doorstep`; `false` when any of them stands or the
   * server could not be asked.
   */
  private async checkAccess(api: ApiClient, settings: PairingPayload, signal?: AbortSignal, read?: (event: unknown) => void): Promise<boolean> {
    const checked = this.checked;
    this.checked = null;
    if (checked && probeKey(checked.settings) === probeKey(settings) && this.now() - checked.at < HEALTH_EVERY_MS) {
      this.lastHealthAt = checked.at;
      return await this.acceptEvent(settings, checked.body, read);
    }
    this.lastHealthAt = this.now();
    let body: unknown;
    try {
      body = (await api.get(kioskPaths.event(settings.event_id), {}, { signal })).body;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.failure.kind === 'http' && (err.failure.status === 404 || err.failure.status === 410)) {
        this.raise('wrong_event', `event ${settings.event_id} is not on this server (HTTP ${err.failure.status})`);
      } else if (err.failure.kind !== 'network' || !signal?.aborted) {
        this.onFailure(err.failure);
      }
      return false;
    }
    return await this.acceptEvent(settings, body, read);
  }

  /** checkAccess's reading of the event's answer. */
  private async acceptEvent(settings: PairingPayload, body: unknown, read?: (event: unknown) => void): Promise<boolean> {
    const event = body as { id?: unknown; attendance?: unknown } | null;
    if (!event || typeof event !== 'object' || event.id !== settings.event_id) {
      this.raise('not_doorstep', 'the event answer is not a Doorstep event');
      return false;
    }
    this.clear('not_doorstep', 'revoked');
    if (event.attendance === undefined) {
      this.raise('wrong_event', `this key cannot read the attendees of event ${settings.event_id}`);
      return false;
    }
    this.clear('wrong_event');
    read?.(body);
    // The event's signing keys as of now: a rotated key is learnt, a revoked one dropped (CONTRACT section 8).
    await storeEventSigningKeys(this.opts.db, body);
    return true;
  }

  /** Uploads the outbox now; one upload at a time, a request during one makes it go round once more. */
  private upload(head?: OutboxRow, early?: UploadHooks['early']): Promise<UploadStop | null> {
    if (this.uploading) {
      this.uploadAgain = true;
      return this.uploading;
    }
    this.uploading = (async () => {
      let stop: UploadStop | null = null;
      try {
        do {
          this.uploadAgain = false;
          stop = await this.uploadOnce(head, early);
          head = early = undefined;
        } while (this.uploadAgain && !stop);
      } finally {
        this.uploading = null;
        this.releaseWaiters();
      }
      return stop;
    })();
    return this.uploading;
  }

  private async uploadOnce(head?: OutboxRow, early?: UploadHooks['early']): Promise<UploadStop | null> {
    const settings = this.opts.settings();
    if (!settings || this.blocked()) return null;
    const api = this.api(settings);
    const up = await uploadOutbox(api, this.opts.db, this.now, {
      claim: (nonce) => {
        const w = this.waiters.get(nonce);
        if (!w) return false;
        w.claimed = true;
        clearTimeout(w.timer);
        return true;
      },
      answered: (nonce, fate) => {
        const w = this.waiters.get(nonce);
        if (!w) return;
        clearTimeout(w.timer);
        this.waiters.delete(nonce);
        w.resolve(fate);
      },
      verifyAccess: () => this.checkAccess(api, settings),
      head,
      early,
    });
    for (const failure of up.failures) this.events.emit({ type: 'failure', failure });
    await this.refreshStatus();
    if (!up.stop) {
      if (up.uploaded > 0) this.onSuccess();
      return null;
    }
    if (up.stop.kind === 'device') this.raise(up.stop.problem, up.stop.message);
    else this.onFailure(up.stop.failure);
    return up.stop;
  }

  private async runOnce(): Promise<void> {
    const settings = this.opts.settings();
    const recheck = this.recheck;
    this.recheck = false;
    if (!settings || (this.blocked() && !recheck)) return;
    const api = this.api(settings);
    const { db } = this.opts;

    let eventBody: unknown;
    const health = this.status.problems.length > 0 || this.now() - this.lastHealthAt >= HEALTH_EVERY_MS;
    /** What a run does before it downloads: the key against the event (now and then), the outbox, the refusals. */
    const checks = async (): Promise<boolean> => {
      if (health && !(await this.checkAccess(api, settings, undefined, (body) => (eventBody = body)))) return false;
      if (await this.upload()) return false;
      const refusals = await uploadRefusals(api, db);
      if (refusals) {
        if (refusals.kind === 'device') this.raise(refusals.problem, refusals.message);
        else this.onFailure(refusals.failure);
        return false;
      }
      return true;
    };

    const refreshEvent = this.refreshEvent;
    this.refreshEvent = false;
    const wasReady = this.status.ready;
    const download = (opts: { gate?: Promise<boolean>; eventBody?: unknown; signal?: AbortSignal }) =>
      (async () => {
        await downloadAttendees({
          api,
          db,
          eventId: settings.event_id,
          now: this.now,
          refreshEvent,
          ...opts,
          onProgress: (p) => this.events.emit({ type: 'progress', ...p }),
          // A venue hub names the scan of this kiosk the site overruled: shown as a conflict, as one at the hub is.
          onDelta: async (batch) => {
            for (const item of await recordOverruledScans(db, batch, this.opts.deviceId ?? '', this.now()))
              this.events.emit({ type: 'failure', failure: { kind: 'conflict', item } });
          },
        });
        // The kiosk's check-in list, its counts and passes, when its key is bound to one.
        await syncGate(api, db, settings.event_id);
      })().then(
        () => null,
        (err: unknown) => err,
      );

    let failed: unknown;
    if ((await getSyncState(db)).complete) {
      if (!(await checks())) {
        this.refreshEvent ||= refreshEvent;
        return;
      }
      failed = await download({ eventBody });
    } else {
      // The first download (a kiosk just paired): its first slices are asked for while the checks run, a round trip
      // or two on a server busy building them; nothing is written to the cache until the checks pass, and on a
      // refused key or an unreachable server the download stops having written nothing (DownloadOptions.gate).
      const passed = checks();
      const abort = new AbortController();
      const downloading = download({
        gate: passed.catch(() => false),
        eventBody: passed.then(
          () => eventBody,
          () => undefined,
        ),
        signal: abort.signal,
      });
      let ok = false;
      try {
        ok = await passed;
      } finally {
        if (!ok) {
          abort.abort();
          await downloading;
          this.refreshEvent ||= refreshEvent;
        }
      }
      if (!ok) return;
      failed = await downloading;
    }
    if (failed) {
      if (failed instanceof ApiError) return this.onFailure(failed.failure);
      return this.onFailure({ kind: 'bad_answer', status: 200, message: failed instanceof Error ? failed.message : String(failed) });
    }
    this.onSuccess();
    await this.readHub(settings);
    await this.refreshStatus({ online: true, lastError: null });
    if (!wasReady && this.status.ready) await this.announceReady();
  }

  /**
   * Whether the server is a venue hub, and how it stands with the site (`/health`'s `upstream`). A hub syncs its
   * kiosks every `hubIntervalMs`; an old server without `/health` or an answer without `upstream` is no hub.
   */
  private async readHub(settings: PairingPayload): Promise<void> {
    let hub: HubInfo | null = null;
    try {
      // A plain GET (no key, no custom header): no CORS preflight, and /health needs no key.
      const res = await (this.opts.fetch ?? fetch)(new URL('../health', settings.url).toString(), { signal: AbortSignal.timeout(5000) });
      const body = (res.ok ? await res.json() : null) as { upstream?: Record<string, unknown> } | null;
      const up = body?.upstream;
      if (up && typeof up === 'object') {
        const since = typeof up.offline_since === 'string' ? Date.parse(up.offline_since) : NaN;
        hub = {
          reachable: up.reachable === true,
          offlineSince: Number.isFinite(since) ? since : null,
          pending: typeof up.pending === 'number' ? up.pending : 0,
          keyRefused: up.key_refused === true,
        };
      }
    } catch {
      hub = this.status.hub;
    }
    if (JSON.stringify(hub) !== JSON.stringify(this.status.hub)) this.setStatus({ hub });
    this.setPeriod(hub ? (this.opts.hubIntervalMs ?? 1000) : (this.opts.intervalMs ?? 30_000));
  }

  /** "Paired with {event}: N attendees ready", once the list is complete (and once after a restart). */
  private async announceReady(): Promise<void> {
    const { db } = this.opts;
    const [event, counts] = await Promise.all([db.event.toCollection().first(), countAttendees(db, this.opts.deviceId ?? '', this.now())]);
    const info = { eventTitle: event?.title || null, attendees: counts.total };
    this.setStatus({ readyInfo: info });
    this.events.emit({ type: 'ready', info });
  }
}
