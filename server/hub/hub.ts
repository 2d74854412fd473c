import crypto from 'node:crypto';
import { z } from 'zod';
import type { AppState } from '../kernel/context.ts';
import { hooks } from '../kernel/hooks.ts';
import { countPendingPushes, countPosts, ensurePendingIndex, countUpstreamRefusals, readHubState, writeHubState } from '../db/repos/hub.ts';
import { pullAttendees, pullEvent, type PullContext } from './mirror.ts';
import { pushOnce, type PushContext } from './push.ts';
import { createUpstream, UpstreamError, type Upstream, type UpstreamFailure } from './upstream.ts';

/**
 * Venue hub mode (CONTRACT section 9; README "At a venue with a hub"): with EVT_UPSTREAM and EVT_UPSTREAM_KEY this
 * server mirrors one event of the site and serves the venue's kiosks as their server. One loop, never two rounds at
 * once: push what the hub's kiosks checked in (as soon as they do: `poke`), then pull what changed at the site (at
 * least every EVT_UPSTREAM_INTERVAL_SECONDS while the site answers). Push before pull, so a pull never reads the site
 * from before a push it then undoes.
 *
 * Faults, each with its outcome (nothing is lost: the hub's log is the queue, and the site dedupes by nonce):
 * - site unreachable or slow (no answer in 15 s): the round ends, the hub keeps serving its kiosks from its mirror,
 *   and tries again after a back-off (1, 2, 4 ... 30 s); `/health` says since when;
 * - 5xx or 429: the same, after the site's Retry-After when it gives one;
 * - the upstream key refused (401/403): pushing stops (the scans stay queued), `/health` and `hub status` say so,
 *   and the hub asks again every 30 s, so a key restored on the site resumes without a restart;
 * - the hub killed mid-push: the scans the site had not answered are still queued and go again with their nonces;
 * - the hub's clock off: scan times are the kiosks' own; the hub's clock names only its contacts.
 */

export interface HubStatus {
  /** The site answered the last request. */
  reachable: boolean;
  /** Last answer from the site (ISO 8601), or null. */
  last_contact: string | null;
  /** The hub's check-ins and check-outs the site has not accepted yet. */
  pending: number;
  /** When the site stopped answering (ISO 8601), null while it answers. */
  offline_since: string | null;
  /** The last failure, in one line. */
  last_error: string | null;
  /** The site refused the upstream key: pushing has stopped until it is restored or replaced. */
  key_refused: boolean;
  /** The hub's scans the site refused: another check-in stood there first / the ticket was not valid there. */
  conflicts: number;
  rejected: number;
  /** The event mirrored (learnt from the key). */
  event_id: number | null;
  /** The site's delta cursor the next pull starts from. */
  cursor: string | null;
  /** Time of the last completed pull (ISO 8601). */
  last_pull: string | null;
}

declare module '../kernel/services.ts' {
  interface Services {
    hub?: Hub;
  }
}

const MAX_BACKOFF_MS = 30_000;

const Root = z.looseObject({ timezone_string: z.string().nullish() });
const ListPage = z.looseObject({ checkin_lists: z.array(z.looseObject({ event_id: z.number().int() })).optional() });

export class Hub {
  private readonly upstream: Upstream;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private failures = 0;
  private lastPullAt = 0;
  private hubId = '';
  private eventId: number | null = null;
  private siteTimezone: string | null = null;
  private cursor: string | null = null;
  private state = {
    reachable: false,
    lastContact: null as string | null,
    offlineSince: null as string | null,
    lastError: null as string | null,
    keyRefused: false,
    lastPull: null as string | null,
  };

  constructor(
    private readonly app: AppState,
    readonly options: { url: string; key: string; intervalMs: number; fetch?: typeof fetch; now?: () => Date },
  ) {
    this.upstream = createUpstream(options.url, options.key, options.fetch);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** Loads the stored state (refusing a database that is not this hub's), then starts the loop. */
  async start(): Promise<void> {
    const db = this.app.db;
    const stored = await readHubState(db);
    if (stored.upstream !== undefined && stored.upstream !== this.options.url)
      throw new Error(`this database is the venue hub of ${String(stored.upstream)}, not of ${this.options.url}: use another EVT_DB`);
    if (stored.upstream === undefined && (await countPosts(db)) > 0)
      throw new Error('this database already holds a site (events, tickets or attendees): a venue hub needs a database of its own (EVT_DB)');
    this.hubId = typeof stored.hub_id === 'string' ? stored.hub_id : crypto.randomBytes(6).toString('hex');
    this.eventId = typeof stored.event_id === 'number' ? stored.event_id : null;
    this.siteTimezone = typeof stored.site_timezone === 'string' ? stored.site_timezone : null;
    this.cursor = typeof stored.cursor === 'string' ? stored.cursor : null;
    if (typeof stored.last_contact === 'string') this.state.lastContact = stored.last_contact;
    if (typeof stored.last_pull === 'string') this.state.lastPull = stored.last_pull;
    await writeHubState(db, { upstream: this.options.url, hub_id: this.hubId });
    await ensurePendingIndex(db);
    hooks(this.app).onClose.push(() => this.stop());
    // A kiosk's check-in (a write through the interface) goes up at once, not at the next pull.
    hooks(this.app).restResponse.push((_state, exchange, result) => {
      if (exchange.method !== 'GET' && exchange.method !== 'HEAD') this.poke();
      return result;
    });
    this.poke();
  }

  /** Runs a round now (a kiosk just checked someone in), or once more after the running one. */
  poke(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.round().finally(() => {
      this.running = null;
      if (this.stopped) return;
      if (this.again && this.failures === 0) {
        this.again = false;
        this.poke();
      } else this.schedule();
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    const base = this.options.intervalMs;
    const delay = this.failures === 0 ? base : Math.min(MAX_BACKOFF_MS, Math.max(base, 1000 * 2 ** (this.failures - 1)));
    this.timer = setTimeout(() => this.poke(), delay);
  }

  /** Waits for the round in flight (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One round: learn the event, push everything waiting, pull when due. */
  private async round(): Promise<void> {
    try {
      await this.discover();
      const push: PushContext = {
        db: this.app.db,
        upstream: this.upstream,
        hubId: this.hubId,
        siteTimezone: this.siteTimezone!,
        now: () => this.now(),
      };
      for (;;) {
        const r = await pushOnce(push);
        this.contact();
        if (r.held > 0)
          throw new UpstreamError({
            kind: 'unavailable',
            status: 0,
            message: `the site gave no final answer to ${r.held} check-ins`,
            retryAfterMs: null,
          });
        if (r.sent + r.conflicts + r.rejected === 0) break;
      }
      this.state.keyRefused = false;
      if (Date.now() - this.lastPullAt >= this.options.intervalMs || this.cursor === null) await this.pull();
      this.failures = 0;
      this.state.lastError = null;
    } catch (e) {
      this.failed(e);
    }
    await this.persist();
  }

  /** The event the key is for (once), and the site's time zone (its check-in dates are site-local). */
  private async discover(): Promise<void> {
    if (this.eventId === null) {
      const res = await this.upstream.get('evt/tickets/v1/checkin-lists', { per_page: 1 });
      const header = Number(res.headers.get('X-EVT-Key-Event'));
      const fromList = ListPage.safeParse(res.body).data?.checkin_lists?.[0]?.event_id;
      const id = Number.isInteger(header) && header > 0 ? header : fromList;
      if (!id)
        throw new UpstreamError({
          kind: 'refused',
          status: res.status,
          code: 'evt_hub_key_not_for_event',
          message: 'the upstream key is not bound to an event: make one on the site with `cli api-key create --event ID`',
        });
      this.eventId = id;
      this.contact();
    }
    if (this.siteTimezone === null) {
      const root = Root.parse((await this.upstream.get('')).body);
      this.siteTimezone = root.timezone_string || 'UTC';
      this.contact();
    }
  }

  private async pull(): Promise<void> {
    const p: PullContext = {
      db: this.app.db,
      upstream: this.upstream,
      eventId: this.eventId!,
      siteTimezone: this.siteTimezone!,
      hubTimezone: this.app.config.timezone,
      now: () => this.now(),
    };
    await pullEvent(p);
    this.contact();
    const { cursor } = await pullAttendees(p, this.cursor ?? '0');
    this.cursor = cursor;
    this.lastPullAt = Date.now();
    this.state.lastPull = this.now().toISOString();
    this.contact();
  }

  private contact(): void {
    this.state.reachable = true;
    this.state.offlineSince = null;
    this.state.lastContact = this.now().toISOString();
  }

  private failed(e: unknown): void {
    this.failures++;
    if (!(e instanceof UpstreamError)) {
      // Not the site's doing (an answer that does not parse, the hub's own database): said, and tried again.
      this.state.lastError = e instanceof Error ? e.message : String(e);
      this.app.log({ level: 'error', msg: 'venue hub: round failed', error: String((e as Error)?.stack ?? e) });
      return;
    }
    const f: UpstreamFailure = e.failure;
    this.state.lastError = f.message;
    if (f.kind === 'network' || f.kind === 'unavailable') {
      // No usable answer: the venue is cut off from the site (or the site is down) as far as the doors care.
      this.state.reachable = false;
      this.state.offlineSince ??= this.now().toISOString();
    } else {
      // It answered, with a refusal: reachable, and the key (or the event) needs the organizer.
      this.contact();
      if (f.kind === 'refused') this.state.keyRefused = true;
    }
    this.app.log({ level: 'warn', msg: 'venue hub: site round failed', error: f.message, kind: f.kind });
  }

  private async persist(): Promise<void> {
    try {
      await writeHubState(this.app.db, {
        event_id: this.eventId,
        site_timezone: this.siteTimezone,
        cursor: this.cursor,
        last_contact: this.state.lastContact,
        last_pull: this.state.lastPull,
        reachable: this.state.reachable,
        offline_since: this.state.offlineSince,
        last_error: this.state.lastError,
        key_refused: this.state.keyRefused,
      });
    } catch (e) {
      this.app.log({ level: 'error', msg: 'venue hub: state not saved', error: String(e) });
    }
  }

  async status(): Promise<HubStatus> {
    const [pending, refused] = await Promise.all([countPendingPushes(this.app.db), countUpstreamRefusals(this.app.db)]);
    return {
      reachable: this.state.reachable,
      last_contact: this.state.lastContact,
      pending,
      offline_since: this.state.offlineSince,
      last_error: this.state.lastError,
      key_refused: this.state.keyRefused,
      conflicts: refused.conflict,
      rejected: refused.rejected,
      event_id: this.eventId,
      cursor: this.cursor,
      last_pull: this.state.lastPull,
    };
  }
}

/** Starts hub mode when the configuration names an upstream site (createApp). */
export async function startHub(app: AppState): Promise<Hub | undefined> {
  const up = app.config.upstream;
  if (!up) return undefined;
  const hub = new Hub(app, up);
  app.services.hub = hub;
  await hub.start();
  return hub;
}
