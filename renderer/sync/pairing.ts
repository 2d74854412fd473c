import { z } from 'zod';
import { PairingPayload, readPairing } from '../../shared/checkin/pairing.ts';
import type { KioskDb } from '../store/db.ts';
import { getSettings, putSettings, resetSyncState } from '../store/meta.ts';
import { clearEventData } from '../store/outbox.ts';
import { forgetSigningKeys } from '../store/signing-keys.ts';
import { kioskPaths } from '../../shared/checkin/paths.ts';
import type { FetchLike } from './api-client.ts';

/**
 * Pairing, first or replacing, is always shown to staff and confirmed: a pairing QR code or link can come
 * from anyone, and a kiosk silently re-pointed at another server would hand it every scan.
 *
 * Queued check-ins are never moved to another pairing: while the outbox holds scans that have not reached
 * the current server, pairing with another server or event is refused (staff can upload them first). A new
 * key for the same server and event keeps the cache and the queue, which then goes up with the new key to
 * the server it was meant for.
 */

/** Whether new pairing settings point at another server or event than the current ones. */
export function pairsElsewhere(current: PairingPayload | null, next: PairingPayload): boolean {
  return current !== null && (current.url !== next.url || current.event_id !== next.event_id);
}

/** How a pairing target reads to door staff. */
export interface ServerView {
  /** The interface root as stored. */
  url: string;
  /** `http://192.168.1.20:8080`. */
  origin: string;
  /** Host and port as shown in large type (`192.168.1.20:8080`, `tickets.example.org`). */
  host: string;
  secure: boolean;
  /** A loopback, private-network or link-local address, or a local-only name. */
  local: boolean;
  /** Plain http to an address outside the local network: the key and every scan travel readable. */
  insecureRemote: boolean;
}

const LOCAL_NAMES = /(^|\.)(localhost|local|lan|home\.arpa|internal)$/i;

/** Loopback, private (RFC 1918, CGNAT), link-local and unique-local addresses, and local-only names. */
export function isLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOCAL_NAMES.test(h)) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 127 ||
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (h.includes(':')) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    if (mapped) return isLocalHost(mapped[1]);
    return h === '::1' || /^f[cd][0-9a-f]{2}:/.test(h) || /^fe[89ab][0-9a-f]:/.test(h);
  }
  return false;
}

export function describeServer(url: string): ServerView {
  const u = new URL(url);
  const secure = u.protocol === 'https:';
  const local = isLocalHost(u.hostname);
  return { url, origin: u.origin, host: u.host, secure, local, insecureRemote: !secure && !local };
}

/** The event as the target server names it, or only its ID when the server could not be asked. */
export interface EventView {
  id: number;
  title: string | null;
  startDate: string | null;
  /**
   * Why the event could not be read with this key; `null` when it was. `wrong-event`: the event is there but
   * the key cannot read its attendees (a key made for another event); `not-doorstep`: what answers at the
   * address is no Doorstep server.
   */
  problem: { kind: 'network' | 'refused' | 'not-found' | 'bad-answer' | 'wrong-event' | 'not-doorstep'; message: string } | null;
  /**
   * The event's answer as read with the pairing's key (when it was read without a problem) and when: a pairing
   * staff confirm hands it to the sync engine as its first check of the key (SyncEngine.resetAuth).
   */
  read?: EventRead;
}

/** An event's answer read with a pairing's key, and when (ms since epoch). */
export interface EventRead {
  settings: PairingPayload;
  body: unknown;
  at: number;
}

/** Problems that refuse a pairing outright: the key demonstrably cannot serve this event at this address. */
const REFUSING: ReadonlyArray<NonNullable<EventView['problem']>['kind']> = ['refused', 'not-found', 'bad-answer', 'wrong-event', 'not-doorstep'];

/** Control and bidirectional-override characters could make a hostile title read as something else. */
const HIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const MAX_TITLE = 200;
/** An event answer is a few KB; never read more than this from a server that is not trusted yet. */
const MAX_PROBE_BYTES = 256 * 1024;

export function cleanTitle(title: string): string {
  const clean = title.replace(HIDDEN_CHARS, '').replace(/\s+/g, ' ').trim();
  return clean.length > MAX_TITLE ? `${clean.slice(0, MAX_TITLE - 1)}…` : clean;
}

const ProbedEvent = z.object({
  id: z.number().int(),
  title: z.string().nullish(),
  start_date: z.string().max(40).nullish(),
  /** Sent only to callers who manage this event's attendees: a door key for this event has it. */
  attendance: z.unknown().optional(),
});

async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return res.text();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error('answer too large');
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/**
 * Asks the target server for the event, with the key from the payload (never the current pairing's key),
 * a short timeout and a bounded answer.
 */
export async function probeEvent(
  next: PairingPayload,
  fetchImpl: FetchLike = fetch,
  timeoutMs = 6000,
  now: () => number = Date.now,
): Promise<EventView> {
  const view: EventView = { id: next.event_id, title: null, startDate: null, problem: null };
  /** The answer stands for the key as of when it was asked for (EventView.read). */
  const asked = now();
  let res: Response;
  let text: string;
  try {
    res = await fetchImpl(new URL(kioskPaths.event(next.event_id), next.url).toString(), {
      method: 'GET',
      headers: { Authorization: `Bearer ${next.api_key}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
    });
    text = await readCapped(res, MAX_PROBE_BYTES);
  } catch (err) {
    return { ...view, problem: { kind: 'network', message: err instanceof Error ? err.message : String(err) } };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // An HTML page or nothing: a web site, a router, a captive portal, not a Doorstep server.
    return { ...view, problem: { kind: 'not-doorstep', message: `HTTP ${res.status}: not a JSON answer` } };
  }
  const code = (body as { code?: unknown } | null)?.code;
  if (res.status === 401 || res.status === 403) return { ...view, problem: { kind: 'refused', message: `HTTP ${res.status}` } };
  if (res.status === 404 && code === 'rest_no_route')
    return { ...view, problem: { kind: 'not-doorstep', message: 'no Doorstep event route at this address' } };
  if (res.status === 404 || res.status === 410) return { ...view, problem: { kind: 'not-found', message: `HTTP ${res.status}` } };
  const parsed = ProbedEvent.safeParse(body);
  if (!res.ok || !parsed.success || parsed.data.id !== next.event_id) {
    return { ...view, problem: { kind: 'bad-answer', message: `HTTP ${res.status}` } };
  }
  const title = parsed.data.title ? cleanTitle(parsed.data.title) : '';
  const start = parsed.data.start_date ? cleanTitle(parsed.data.start_date) : '';
  const named = { ...view, title: title || null, startDate: start || null };
  if (parsed.data.attendance === undefined) {
    return { ...named, problem: { kind: 'wrong-event', message: `this key cannot read the attendees of event ${next.event_id}` } };
  }
  return { ...named, read: { settings: next, body, at: asked } };
}

/**
 * A probe begun before the pairing question, as the page starts from a pairing link (main.ts): the event is read
 * from the target server while the kiosk's storage opens and its screen is built, and the question's own probe
 * (planPairing) takes that answer instead of asking again, the same request a moment earlier. Taken once, and only
 * by a question for the same server, key and event through the same fetch within EARLY_PROBE_MS; any other asks
 * afresh.
 */
let early: { key: string; fetchImpl: FetchLike; at: number; view: Promise<EventView> } | null = null;
/** How long an early probe's answer stands in for the question's own probe. */
export const EARLY_PROBE_MS = 10_000;

/** What a probe's answer stands for: the server, the key and the event (the early probe; SyncEngine's first check). */
export const probeKey = (p: PairingPayload) => JSON.stringify([p.url, p.api_key, p.event_id]);

/** Starts the probe of a pairing the page was opened with (see {@link early}); replaces any earlier one. */
export function probeEarly(next: PairingPayload, fetchImpl: FetchLike = fetch, now: () => number = Date.now): void {
  early = { key: probeKey(next), fetchImpl, at: now(), view: probeEvent(next, fetchImpl, undefined, now) };
}

/** The early probe's answer for this pairing, once; null when there is none that fits. */
function takeEarly(next: PairingPayload, fetchImpl: FetchLike, now: () => number): Promise<EventView> | null {
  const e = early;
  early = null;
  if (!e || e.key !== probeKey(next) || e.fetchImpl !== fetchImpl || now() - e.at > EARLY_PROBE_MS) return null;
  return e.view;
}

/** The `Link` header WordPress sends on every site page, pointing at the interface root (`rel="https://api.w.org/"`). */
export function apiRootFromLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]+)>\s*;(.*)$/.exec(part);
    if (m && /(^|;)\s*rel\s*=\s*"?https:\/\/api\.w\.org\/"?\s*(;|$)/i.test(m[2])) return m[1];
  }
  return null;
}

/**
 * The interface root behind an address staff typed (the site's own address, `http://192.168.1.20:8080/`),
 * found as WordPress clients find it: the `Link: <...>; rel="https://api.w.org/"` header of the site page,
 * else the usual `wp-json/` under it when that answers as a REST index. `null` when neither does.
 */
export async function discoverApiRoot(url: string, fetchImpl: FetchLike = fetch, timeoutMs = 6000): Promise<string | null> {
  const get = (target: string) =>
    fetchImpl(target, {
      method: 'GET',
      headers: { Accept: 'application/json, text/html;q=0.9' },
      signal: AbortSignal.timeout(timeoutMs),
      cache: 'no-store',
      credentials: 'omit',
    });
  try {
    const res = await get(url);
    const linked = apiRootFromLink(res.headers.get('link'));
    await res.body?.cancel();
    if (linked) {
      const root = new URL(linked, url);
      // Only a root on the same host: a page cannot send the key elsewhere.
      if (root.host === new URL(url).host) return root.href;
    }
  } catch {
    // A page another origin may not read (no CORS on the site's pages): the usual root is tried below.
  }
  if (/\/wp-json\/?$/.test(new URL(url).pathname)) return null;
  const guess = new URL('wp-json/', url).href;
  try {
    const res = await get(guess);
    const index = JSON.parse(await readCapped(res, MAX_PROBE_BYTES)) as { namespaces?: unknown } | null;
    return res.ok && Array.isArray(index?.namespaces) && index.namespaces.includes('evt/tickets/v1') ? guess : null;
  } catch {
    return null;
  }
}

/** What staff are asked to confirm. */
export interface PairingPlan {
  next: PairingPayload;
  server: ServerView;
  event: EventView;
  /** `first`: not paired yet; `same`: same server and event, new key; `replace`: another server or event. */
  kind: 'first' | 'same' | 'replace';
  /** The pairing it replaces: the server and the event as this device has it cached. */
  current: { settings: PairingPayload; server: ServerView; event: EventView } | null;
  /** Scans not yet uploaded to the current server. */
  pending: number;
  /** Replacing is refused until `pending` reaches 0: queued scans never go to another pairing. */
  blocked: boolean;
  /**
   * The pairing is refused, whatever staff answer: the key cannot read the event (revoked, another event's
   * key, no such event) or the address is no Doorstep server; `event.problem` says which.
   */
  refused: boolean;
}

async function currentEvent(db: KioskDb, settings: PairingPayload): Promise<EventView> {
  const cached = await db.event.get(settings.event_id);
  return {
    id: settings.event_id,
    title: cached?.title ? cleanTitle(cached.title) : null,
    startDate: cached?.startDate ?? null,
    problem: null,
  };
}

export async function planPairing(
  db: KioskDb,
  next: PairingPayload,
  opts: { fetch?: FetchLike; timeoutMs?: number; now?: () => number } = {},
): Promise<PairingPlan> {
  const probe = takeEarly(next, opts.fetch ?? fetch, opts.now ?? Date.now) ?? probeEvent(next, opts.fetch, opts.timeoutMs, opts.now);
  let [event, settings, pending] = await Promise.all([probe, getSettings(db), db.outbox.count()]);
  if (event.problem?.kind === 'not-doorstep' || event.problem?.kind === 'network') {
    // The site's own address (typed by hand): its pages name the interface root.
    const root = await discoverApiRoot(next.url, opts.fetch, opts.timeoutMs);
    const found = root === null ? null : PairingPayload.safeParse({ ...next, url: root });
    if (found?.success && found.data.url !== next.url) {
      next = found.data;
      event = await probeEvent(next, opts.fetch, opts.timeoutMs, opts.now);
    }
  }
  const kind = settings === null ? 'first' : pairsElsewhere(settings, next) ? 'replace' : 'same';
  const current = settings && { settings, server: describeServer(settings.url), event: await currentEvent(db, settings) };
  const refused = event.problem !== null && REFUSING.includes(event.problem.kind);
  return { next, server: describeServer(next.url), event, kind, current, pending, blocked: kind === 'replace' && pending > 0, refused };
}

/** Pairing elsewhere was refused: scans for the current pairing are still queued. */
export class PairingBlocked extends Error {
  constructor(readonly pending: number) {
    super(`${pending} check-ins have not been uploaded to the current server yet`);
  }
}

/**
 * Stores new pairing settings. The same server and event with a new key (after a revocation) keeps the
 * cache and the queue. Another server or event starts a fresh cache, and is refused with
 * {@link PairingBlocked} while the queue is not empty: checked in the same transaction as the change, so a
 * scan queued while staff were reading the question cannot be stranded or sent elsewhere.
 */
export async function applyPairing(db: KioskDb, next: PairingPayload, now: number): Promise<void> {
  const checked = PairingPayload.parse(next);
  await db.transaction('rw', [db.outbox, db.rejected, db.refusals, db.attendees, db.snapshot, db.event, db.tickets, db.meta], async () => {
    const current = await getSettings(db);
    if (current === null || pairsElsewhere(current, checked)) {
      const pending = await db.outbox.count();
      if (current !== null && pending > 0) throw new PairingBlocked(pending);
      await clearEventData(db, now);
      await resetSyncState(db);
    }
    await putSettings(db, checked);
    // The pairing's own key is pinned until the event is read again over it.
    await forgetSigningKeys(db);
  });
}

/** Forgets the pairing; unsent scans are set aside (kept in the refused list, never sent anywhere). */
export async function unpair(db: KioskDb, now: number): Promise<void> {
  await clearEventData(db, now);
  await resetSyncState(db);
  await putSettings(db, null);
}

/**
 * Staff's answer to a pairing question. `upload`: send the queue to the current server, then ask again;
 * `retry`: the server could not be reached, ask it again.
 */
export type PairingAnswer = 'confirm' | 'cancel' | 'upload' | 'retry';
export type PairingOutcome = 'paired' | 'cancelled' | 'invalid' | 'refused';

export interface PairingFlowOptions {
  db: KioskDb;
  /** Used to read the event from the target server. */
  fetch?: FetchLike;
  now?: () => number;
  probeTimeoutMs?: number;
  /** The question is coming: the target is known, its event is being read. */
  checking?: (server: ServerView, next: PairingPayload) => void;
  /** Shows the plan and resolves with staff's answer; called again with a fresh plan when it changed. */
  ask: (plan: PairingPlan) => Promise<PairingAnswer>;
  /** A code or link that looks like pairing but is not valid. */
  invalid?: (reason: string) => void;
  /** Uploads the queue to the current pairing. */
  upload: () => Promise<void>;
  /** Waits until no sync run is in flight, so none straddles the change. */
  idle: () => Promise<void>;
  /** The new pairing is stored; `event` is the event as the question read it with the new key. */
  paired: (next: PairingPayload, event: EventView) => Promise<void> | void;
}

/**
 * Every pairing (QR code, link, form) goes through here: validate, show the target and what it replaces,
 * wait for staff, and only then store it. A newer request supersedes an unanswered one.
 */
export class PairingFlow {
  private generation = 0;
  /** The payload of the question in progress. */
  private active: string | null = null;

  constructor(private readonly opts: PairingFlowOptions) {}

  /** A pairing link's hash or a scanned text. `none` when the text is no pairing code at all. */
  async fromText(raw: string): Promise<PairingOutcome | 'none'> {
    const read = readPairing(raw);
    if (read.kind === 'none') return 'none';
    if (read.kind === 'invalid') {
      this.opts.invalid?.(read.reason);
      return 'invalid';
    }
    return this.request(read.payload);
  }

  async request(input: unknown): Promise<PairingOutcome> {
    const parsed = PairingPayload.safeParse(input);
    if (!parsed.success) {
      this.opts.invalid?.(parsed.error.issues.map((i) => i.message).join('; '));
      return 'invalid';
    }
    const next = parsed.data;
    // The camera sees a pairing code held up again every few seconds: the question already open stays.
    const key = JSON.stringify([next.url, next.api_key, next.event_id]);
    if (this.active === key) return 'cancelled';
    const mine = ++this.generation;
    this.active = key;
    try {
      return await this.run(next, mine);
    } finally {
      if (mine === this.generation) this.active = null;
    }
  }

  private async run(next: PairingPayload, mine: number): Promise<PairingOutcome> {
    const { db } = this.opts;
    this.opts.checking?.(describeServer(next.url), next);
    for (;;) {
      const plan = await planPairing(db, next, { fetch: this.opts.fetch, timeoutMs: this.opts.probeTimeoutMs, now: this.opts.now });
      if (mine !== this.generation) return 'cancelled';
      if (plan.refused) {
        // Shown with the reason, so staff know what to fix; nothing is stored whatever they press.
        await this.opts.ask(plan);
        return 'refused';
      }
      const answer = await this.opts.ask(plan);
      if (mine !== this.generation || answer === 'cancel') return 'cancelled';
      if (answer === 'upload') {
        await this.opts.upload();
        continue;
      }
      // Nothing is paired with a server that could not be asked: the question is asked again instead.
      if (plan.blocked || plan.event.problem?.kind === 'network' || answer === 'retry') continue;
      await this.opts.idle();
      try {
        // The address as found (the interface root behind a site address staff typed).
        next = plan.next;
        await applyPairing(db, next, (this.opts.now ?? Date.now)());
      } catch (err) {
        // A scan was queued while staff read the question: ask again, showing it.
        if (err instanceof PairingBlocked) continue;
        throw err;
      }
      await this.opts.paired(next, plan.event);
      return 'paired';
    }
  }

  /** Drops any question in progress (a newer one, or staff closed it). */
  cancel(): void {
    this.generation++;
    this.active = null;
  }
}
