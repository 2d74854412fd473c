import { randomBytes } from 'node:crypto';

/** One scan as a kiosk queues it (CONTRACT section 7: nonce, device, scan time). */
export interface Scan {
  nonce: string;
  attendeeId: number;
  scannedAt: string;
}

/** The server's definitive answer to one scan. */
export interface Ack {
  nonce: string;
  attendeeId: number;
  status: number;
  code: string | null;
  /** For a conflict: the standing check-in the server reported. */
  standing: unknown;
}

export interface KioskStats {
  batches: number;
  networkErrors: number;
  /** Whole-batch answers other than 207 (a fault, 5xx included). */
  badBatches: number;
  /** Items answered with 5xx (kept and retried). */
  item5xx: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Shuffles `a` in place (Fisher-Yates) and returns it. */
export function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** The kiosks' stats added up, named as the reliability reports print them. */
export function sumStats(kiosks: readonly SimKiosk[]): { batches: number; neterr: number; bad: number; i5: number } {
  return kiosks.reduce(
    (s, k) => ({
      batches: s.batches + k.stats.batches,
      neterr: s.neterr + k.stats.networkErrors,
      bad: s.bad + k.stats.badBatches,
      i5: s.i5 + k.stats.item5xx,
    }),
    { batches: 0, neterr: 0, bad: 0, i5: 0 },
  );
}

/**
 * A door kiosk reduced to its sync contract: an outbox of check-ins sent as `POST /batch/v1` (at most 25
 * `PATCH /evt/tickets/v1/attendees/{id}` items) with its door key; an item leaves the outbox only on a
 * definitive answer (any status below 500); network errors and 5xx keep it for the next try, same nonce.
 */
export class SimKiosk {
  readonly outbox: Scan[] = [];
  readonly acks: Ack[] = [];
  readonly stats: KioskStats = { batches: 0, networkErrors: 0, badBatches: 0, item5xx: 0 };
  /** Every scan ever queued, by nonce. */
  readonly scans = new Map<string, Scan>();
  /** Batches sent and not yet answered (to tell whether a kill cut one). */
  inFlight = 0;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(
    readonly deviceId: string,
    private readonly root: string,
    private readonly auth: string,
    private readonly opts: { batchSize?: number; idleMs?: number; single?: boolean } = {},
  ) {}

  scan(attendeeId: number): Scan {
    const s = { nonce: `${this.deviceId}-${randomBytes(12).toString('hex')}`, attendeeId, scannedAt: new Date().toISOString() };
    this.outbox.push(s);
    this.scans.set(s.nonce, s);
    return s;
  }

  /** Conflicts this kiosk lost, from the answers it got. */
  conflicts(): Ack[] {
    return this.acks.filter((a) => a.code === 'tec-et-attendee-already-checked-in');
  }

  /** One request with the door key; null, counted as a network error, when no answer came back. */
  private async send<T>(path: string, method: string, payload: unknown): Promise<{ status: number; body: T } | null> {
    this.stats.batches++;
    this.inFlight++;
    try {
      const res = await fetch(`${this.root}${path}`, {
        method,
        headers: { authorization: this.auth, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(30_000),
      });
      return { status: res.status, body: (await res.json()) as T };
    } catch {
      this.stats.networkErrors++;
      return null;
    } finally {
      this.inFlight--;
    }
  }

  /** One upload of the head of the outbox as a single `PATCH /attendees/{id}` (no batch). */
  private async sendSingle(s: Scan): Promise<boolean> {
    const res = await this.send<{ code?: string; data?: { checkin_details?: unknown } }>(
      `evt/tickets/v1/attendees/${s.attendeeId}`,
      'PATCH',
      this.checkinBody(s),
    );
    if (!res) return false;
    const body = res.body;
    if (res.status >= 500) {
      this.stats.item5xx++;
      return false;
    }
    this.acks.push({
      nonce: s.nonce,
      attendeeId: s.attendeeId,
      status: res.status,
      code: body?.code ?? null,
      standing: body?.data?.checkin_details ?? null,
    });
    this.outbox.splice(this.outbox.indexOf(s), 1);
    return true;
  }

  /** The PATCH body of one queued scan, the same whether it travels alone or in a batch. */
  private checkinBody(s: { nonce: string; scannedAt: string }): Record<string, unknown> {
    return { check_in: true, nonce: s.nonce, device_id: this.deviceId, check_in_date: s.scannedAt };
  }

  /** One upload attempt of the head of the outbox. True when the server answered. */
  async syncOnce(): Promise<boolean> {
    if (this.opts.single && this.outbox.length) return this.sendSingle(this.outbox[0]!);
    const items = this.outbox.slice(0, this.opts.batchSize ?? 25);
    if (!items.length) return true;
    const res = await this.send<{ responses?: { status: number; body: { code?: string; data?: { checkin_details?: unknown } } }[] }>(
      'batch/v1',
      'POST',
      {
        validation: 'normal',
        requests: items.map((s) => ({ method: 'PATCH', path: `/evt/tickets/v1/attendees/${s.attendeeId}`, body: this.checkinBody(s) })),
      },
    );
    if (!res) return false;
    const body = res.body;
    if (res.status !== 207 || !Array.isArray(body.responses) || body.responses.length !== items.length) {
      this.stats.badBatches++;
      return false;
    }
    const done = new Set<string>();
    body.responses.forEach((r, i) => {
      const s = items[i]!;
      if (r.status >= 500) {
        this.stats.item5xx++;
        return;
      }
      done.add(s.nonce);
      this.acks.push({
        nonce: s.nonce,
        attendeeId: s.attendeeId,
        status: r.status,
        code: r.body?.code ?? null,
        standing: r.body?.data?.checkin_details ?? null,
      });
    });
    for (let i = this.outbox.length - 1; i >= 0; i--) if (done.has(this.outbox[i]!.nonce)) this.outbox.splice(i, 1);
    return true;
  }

  /** Keeps syncing in the background until stop(); backs off a little after a failure. */
  start(): void {
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped) {
        if (!this.outbox.length) {
          await sleep(this.opts.idleMs ?? 20);
          continue;
        }
        if (!(await this.syncOnce())) await sleep(40 + Math.random() * 160);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** Syncs until the outbox is empty (the server must be up). */
  async drain(timeoutMs = 120_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.outbox.length) {
      if (Date.now() > until) throw new Error(`${this.deviceId}: ${this.outbox.length} scans still queued`);
      if (!(await this.syncOnce())) await sleep(100);
    }
  }
}

/** Reads every page of the check-in log through the API. */
export async function fetchCheckins(root: string, auth: string, query: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${root}evt/tickets/v1/checkins?per_page=100&page=${page}&${query}`, { headers: { authorization: auth } });
    if (res.status !== 200) throw new Error(`GET /checkins page ${page}: HTTP ${res.status} ${await res.text()}`);
    const body = (await res.json()) as unknown;
    const rows = Array.isArray(body) ? body : ((body as { checkins?: unknown[] }).checkins ?? []);
    out.push(...(rows as Array<Record<string, unknown>>));
    const pages = Number(res.headers.get('x-et-total-pages') ?? '1');
    if (page >= pages || rows.length === 0) return out;
  }
}
