import crypto from 'node:crypto';
import { hashSecurityCode } from '../../shared/checkin/security-code.ts';
import { signedText } from '../../shared/checkin/signature.ts';
import { CHECKIN_ERRORS } from '../../shared/checkin/wire.ts';

/**
 * An in-memory model of the server's door-facing contract (CONTRACT §6–§7): attendee archive with
 * `changed_since` cursors and ET paging, the single attendee, and `POST /batch/v1` with nonce-idempotent
 * check-ins, conflicts that keep the losing scan, and `rest_forbidden` for unknown or revoked keys.
 * Unit tests, the property test and the bench use it where the real server is not needed.
 */

export interface FakeAttendee {
  id: number;
  eventId: number;
  ticketId: number;
  name: string;
  email: string;
  securityCode: string;
  orderStatus: string;
  status: 'publish' | 'trash';
  checkin: { date: string; deviceId: string; nonce: string } | null;
  changedAt: number;
}

export interface CheckinLogEntry {
  /** `null` for a refused scan whose code named no attendee of this event. */
  attendeeId: number | null;
  nonce: string;
  deviceId: string;
  scanDate: string;
  checkIn: boolean;
  result: 'accepted' | 'checked_out' | 'conflict' | 'rejected';
  reason: string | null;
  /** The HTTP answer, replayed for a repeated nonce. */
  answer: { status: number; body: unknown };
}

export interface FakeRequest {
  method: string;
  /** Path and query relative to the interface root, e.g. `evt/tickets/v1/attendees?post_id=1`. */
  path: string;
  authorization: string | null;
  body: unknown;
}

export type InterceptMode = 'ok' | 'drop-request' | 'drop-response' | 'duplicate' | 'hold';

export interface FakeResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const err = (status: number, code: string, message: string, data: Record<string, unknown> = {}): FakeResponse => ({
  status,
  headers: {},
  body: { code, message, data: { status, ...data } },
});

export class FakeDoorServer {
  attendees = new Map<number, FakeAttendee>();
  log: CheckinLogEntry[] = [];
  keys = new Set<string>(['door-key']);
  private cursor = 1;
  requests = 0;
  /** What `GET /events/{id}` calls the event. */
  eventTitle = 'Door test event';
  /** Keys bound to one event (`--event N`): they see only that event's attendees (404 for others, issue 10). */
  keyScopes = new Map<string, number>();
  /** The server's clock, sent as the `Date` header. */
  now: (() => number) | null = null;
  /** What the root answers: a Doorstep index, or (`html`) a page from something else at that address. */
  rootKind: 'doorstep' | 'html' = 'doorstep';
  /**
   * The event's ticket-signing keys (CONTRACT section 8), oldest first; the last one not revoked is current.
   * Empty: a server that signs nothing (the event answer carries no keys).
   */
  signingKeys: { kid: string; key: string; privateKey: crypto.KeyObject; revoked: boolean }[] = [];
  /** Tickets the event has beyond the one listed (counted in the ticket list's `total`, not in its items). */
  unlistedTickets = 0;

  constructor(
    readonly eventId = 10,
    readonly ticketId = 11,
    public baseUrl = 'http://127.0.0.1:8080',
  ) {}

  /** Adds attendees with deterministic codes; returns them. */
  seed(count: number, startId = 100, over: Partial<FakeAttendee> = {}): FakeAttendee[] {
    const out: FakeAttendee[] = [];
    for (let i = 0; i < count; i++) {
      const id = startId + i;
      const a: FakeAttendee = {
        id,
        eventId: this.eventId,
        ticketId: this.ticketId,
        name: `Guest ${id}`,
        email: `guest${id}@example.test`,
        securityCode: hashSecurityCode(id, 'seed').slice(0, 12),
        orderStatus: 'completed',
        status: 'publish',
        checkin: null,
        changedAt: this.cursor++,
        ...over,
      };
      this.attendees.set(id, a);
      out.push(a);
    }
    return out;
  }

  /** Marks a change so delta downloads pick the attendee up. */
  touch(a: FakeAttendee): void {
    a.changedAt = this.cursor++;
  }

  ticketUrl(a: FakeAttendee, eventId = a.eventId, code = a.securityCode): string {
    return `${this.baseUrl}/?event_qr_code=1&ticket_id=${a.id}&event_id=${eventId}&security_code=${code}&path=%2Fevt%2Ftickets%2Fv1%2Fqr`;
  }

  /** A new current signing key (a rotation when there is one already); returns its public half. */
  addSigningKey(kid: string): { kid: string; key: string } {
    const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
    const key = publicKey.export({ type: 'spki', format: 'der' }).subarray(12).toString('base64url');
    this.signingKeys.push({ kid, key, privateKey, revoked: false });
    return { kid, key };
  }

  /** `signing_key`, `signing_key_id` and `signing_keys` of the event answer. */
  eventSigningKeys(): Record<string, unknown> {
    const valid = this.signingKeys.filter((k) => !k.revoked);
    const current = valid[valid.length - 1];
    return {
      signing_key: current.key,
      signing_key_id: current.kid,
      signing_keys: valid.map((k) => ({ signing_key_id: k.kid, signing_key: k.key })),
    };
  }

  /**
   * The attendee's signed QR URL, as the server draws it: signed by key `kid` (default: the current key) over
   * what `over` says (default: the attendee itself), so tests can forge one part.
   */
  signedTicketUrl(
    a: FakeAttendee,
    opts: { kid?: string; over?: Partial<{ attendeeId: number; ticketId: number; securityCode: string }> } = {},
  ): string {
    const k = opts.kid ? this.signingKeys.find((x) => x.kid === opts.kid) : this.signingKeys.filter((x) => !x.revoked).at(-1);
    if (!k) throw new Error('no signing key');
    const text = signedText({ eventId: a.eventId, attendeeId: a.id, ticketId: a.ticketId, securityCode: a.securityCode, ...opts.over });
    const sig = crypto.sign(null, Buffer.from(text, 'utf8'), k.privateKey).toString('base64url');
    return `${this.ticketUrl(a)}&sig=${sig}&kid=${k.kid}`;
  }

  view(a: FakeAttendee): Record<string, unknown> {
    return {
      id: a.id,
      post_id: a.eventId,
      ticket_id: a.ticketId,
      status: a.status,
      title: a.name,
      email: a.email,
      ticket: { id: a.ticketId, title: 'General admission' },
      provider: 'tc',
      order: a.id,
      checked_in: a.checkin !== null,
      checkin_details: a.checkin ? { date: a.checkin.date, date_details: {}, source: 'kiosk', author: '7', device_id: a.checkin.deviceId } : false,
      security_code: a.securityCode,
      order_status: a.orderStatus,
    };
  }

  handle(req: FakeRequest): FakeResponse {
    this.requests++;
    const url = new URL(req.path, 'http://x/');
    const path = url.pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '') {
      return this.rootKind === 'html'
        ? { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html>Welcome to the venue Wi-Fi</html>' }
        : { status: 200, headers: {}, body: { name: 'Doorstep', namespaces: ['evt/events/v1', 'evt/tickets/v1'], authentication: [] } };
    }
    if (this.rootKind === 'html') return { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html>Welcome to the venue Wi-Fi</html>' };
    const key = /^Bearer (.+)$/.exec(req.authorization ?? '')?.[1];
    if (!key || !this.keys.has(key)) return err(401, CHECKIN_ERRORS.forbidden, 'Sorry, you are not allowed to do that.');
    const scope = this.keyScopes.get(key) ?? null;
    const inScope = (eventId: number) => scope === null || scope === eventId;
    const q = url.searchParams;
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/evt\/events\/v1\/events\/(\d+)$/.exec(path))) {
      if (Number(m[1]) !== this.eventId) return err(404, 'event-not-found', 'The requested event does not exist');
      const attendees = [...this.attendees.values()].filter((a) => a.status === 'publish');
      const checkedIn = attendees.filter((a) => a.checkin).length;
      return {
        status: 200,
        headers: {},
        body: {
          id: this.eventId,
          title: this.eventTitle,
          start_date: '2026-11-22 18:00:00',
          end_date: '2026-11-22 23:00:00',
          // As the server: attendance and signing keys only for callers who manage this event's attendees.
          ...(inScope(this.eventId)
            ? { attendance: { total_attendees: attendees.length, checked_in: checkedIn, not_checked_in: attendees.length - checkedIn } }
            : {}),
          ...(inScope(this.eventId) && this.signingKeys.some((k) => !k.revoked) ? this.eventSigningKeys() : {}),
        },
      };
    }
    if (req.method === 'GET' && path === '/evt/tickets/v1/tickets') {
      return {
        status: 200,
        headers: {},
        body: {
          rest_url: '',
          total: 1 + this.unlistedTickets,
          total_pages: 1,
          tickets: [{ id: this.ticketId, post_id: this.eventId, title: 'General admission' }],
        },
      };
    }
    if (req.method === 'GET' && path === '/evt/tickets/v1/attendees') {
      if (scope !== null && Number(q.get('post_id')) !== scope) q.set('post_id', '-1');
      return this.archive(q);
    }
    if (req.method === 'GET' && (m = /^\/evt\/tickets\/v1\/attendees\/(\d+)$/.exec(path))) {
      const a = this.attendees.get(Number(m[1]));
      return a && inScope(a.eventId)
        ? { status: 200, headers: {}, body: this.view(a) }
        : err(404, CHECKIN_ERRORS.attendeeNotFound, 'The requested post ID does not exist or is not an attendee');
    }
    if (req.method === 'POST' && path === '/batch/v1') return this.batch(req.body, inScope);
    return err(404, 'rest_no_route', 'No route was found matching the URL and request method.');
  }

  private archive(q: URLSearchParams): FakeResponse {
    const perPage = Number(q.get('per_page') ?? 10);
    const page = Number(q.get('page') ?? 1);
    const since = q.get('changed_since');
    const postId = Number(q.get('post_id'));
    const cursorNow = String(this.cursor - 1);
    const rows = [...this.attendees.values()]
      .filter((a) => a.eventId === postId)
      .filter((a) => (since === null ? a.status === 'publish' : a.changedAt > Number(since)))
      .sort((a, b) => a.id - b.id);
    const totalPages = Math.ceil(rows.length / perPage);
    if (page > Math.max(1, totalPages))
      return err(400, 'invalid-page-number', 'The page number requested is larger than the number of pages available.');
    return {
      status: 200,
      headers: { 'X-ET-TOTAL': String(rows.length), 'X-ET-TOTAL-PAGES': String(totalPages), 'X-EVT-Cursor': cursorNow },
      body: {
        rest_url: '',
        total: rows.length,
        total_pages: totalPages,
        attendees: rows.slice((page - 1) * perPage, page * perPage).map((a) => this.view(a)),
      },
    };
  }

  private batch(body: unknown, inScope: (eventId: number) => boolean): FakeResponse {
    const requests = (body as { requests?: unknown[] })?.requests;
    if (!Array.isArray(requests)) return err(400, 'rest_missing_callback_param', 'Missing parameter(s): requests');
    if (requests.length > 25) return err(400, 'rest_invalid_param', 'Invalid parameter(s): requests');
    const responses = requests.map((r) => {
      const { method, path, body: b } = r as { method: string; path: string; body: Record<string, unknown> };
      if (method === 'POST' && path === '/evt/tickets/v1/checkins') {
        const out = this.recordRefusal(b);
        return { body: out.body, status: out.status, headers: {} };
      }
      const m = /^\/evt\/tickets\/v1\/attendees\/(\d+)$/.exec(path);
      const a = m ? this.attendees.get(Number(m[1])) : undefined;
      const out =
        !m || !['POST', 'PUT', 'PATCH'].includes(method)
          ? err(404, 'rest_no_route', 'No route')
          : a && !inScope(a.eventId)
            ? err(404, CHECKIN_ERRORS.attendeeNotFound, 'The requested post ID does not exist or is not an attendee')
            : this.checkin(Number(m[1]), b);
      return { body: out.body, status: out.status, headers: {} };
    });
    return { status: 207, headers: {}, body: { responses } };
  }

  private checkin(id: number, b: Record<string, unknown>): FakeResponse {
    const nonce = String(b.nonce ?? '');
    const deviceId = String(b.device_id ?? '');
    const scanDate = String(b.check_in_date ?? '');
    const checkIn = b.check_in === true;
    if (nonce.length < 16) return err(400, 'rest_invalid_param', 'Invalid parameter(s): nonce');
    const seen = this.log.find((e) => e.nonce === nonce);
    if (seen) return { status: seen.answer.status, headers: {}, body: seen.answer.body };
    const a = this.attendees.get(id);
    const record = (result: CheckinLogEntry['result'], reason: string | null, answer: FakeResponse): FakeResponse => {
      this.log.push({ attendeeId: id, nonce, deviceId, scanDate, checkIn, result, reason, answer: { status: answer.status, body: answer.body } });
      return answer;
    };
    if (!a || a.status === 'trash')
      return record('rejected', 'not_found', err(404, CHECKIN_ERRORS.attendeeNotFound, 'The requested post ID does not exist or is not an attendee'));
    if (checkIn && a.orderStatus !== 'completed') {
      return record('rejected', 'order', err(400, CHECKIN_ERRORS.orderNotComplete, 'Attendee Order status is not authorized for check-in.'));
    }
    if (checkIn && a.checkin) {
      return record(
        'conflict',
        null,
        err(400, CHECKIN_ERRORS.alreadyCheckedIn, 'Attendee is already checked in.', {
          checkin_details: { date: a.checkin.date, date_details: {}, source: 'kiosk', author: '7', device_id: a.checkin.deviceId },
        }),
      );
    }
    a.checkin = checkIn ? { date: scanDate, deviceId, nonce } : null;
    this.touch(a);
    return record(checkIn ? 'accepted' : 'checked_out', null, { status: 201, headers: {}, body: this.view(a) });
  }

  /** `POST /checkins`: a scan the door refused on its own goes into the log once per nonce; no attendee changes. */
  private recordRefusal(b: Record<string, unknown>): FakeResponse {
    const nonce = String(b.nonce ?? '');
    if (nonce.length < 16) return err(400, 'rest_invalid_param', 'Invalid parameter(s): nonce');
    if (b.result !== 'rejected' && b.result !== 'conflict') return err(400, 'rest_invalid_param', 'Invalid parameter(s): result');
    const seen = this.log.find((e) => e.nonce === nonce);
    if (seen) return { status: seen.answer.status, headers: {}, body: seen.answer.body };
    const named = typeof b.attendee_id === 'number' ? this.attendees.get(b.attendee_id) : undefined;
    const entry: CheckinLogEntry = {
      attendeeId: named && named.eventId === this.eventId ? named.id : null,
      nonce,
      deviceId: String(b.device_id ?? ''),
      scanDate: String(b.check_in_date ?? ''),
      checkIn: true,
      result: b.result,
      reason: String(b.reason ?? ''),
      answer: { status: 201, body: null },
    };
    entry.answer.body = {
      id: this.log.length + 1,
      attendee_id: entry.attendeeId,
      post_id: this.eventId,
      result: entry.result,
      reason: entry.reason,
      device_id: entry.deviceId,
      nonce,
    };
    this.log.push(entry);
    return { status: 201, headers: {}, body: entry.answer.body };
  }

  /** Requests whose delivery was delayed (`hold`): the client saw no answer; `deliverHeld` runs them later. */
  held: FakeRequest[] = [];

  /** Delivers held requests in the given order of indexes (any left over follow in their own order). */
  deliverHeld(order: readonly number[] = []): void {
    const held = this.held;
    this.held = [];
    const picked = new Set<number>();
    for (const i of order) if (i < held.length && !picked.has(i)) picked.add(i);
    for (let i = 0; i < held.length; i++) picked.add(i);
    for (const i of picked) this.handle(held[i]);
  }

  /**
   * A `fetch` that answers from this model. `intercept` can lose the request, lose the answer after the
   * server acted, deliver it twice, or hold it for later delivery (the client sees no answer).
   */
  fetch(intercept?: (req: FakeRequest) => InterceptMode) {
    return async (input: string, init: RequestInit = {}): Promise<Response> => {
      const url = new URL(input);
      const rootAt = url.pathname.indexOf('/wp-json/');
      if (rootAt < 0) {
        // A site page: as WordPress, it names the interface root in its Link header.
        const link = `<${this.baseUrl}/en/wp-json/>; rel="https://api.w.org/"`;
        return new Response('<html>The venue site</html>', { status: 200, headers: { 'Content-Type': 'text/html', Link: link } });
      }
      const req: FakeRequest = {
        method: init.method ?? 'GET',
        path: url.pathname.slice(rootAt + '/wp-json/'.length) + url.search,
        authorization: new Headers(init.headers).get('authorization'),
        body: typeof init.body === 'string' ? JSON.parse(init.body) : null,
      };
      const mode = intercept?.(req) ?? 'ok';
      if (mode === 'drop-request') throw new TypeError('Failed to fetch');
      if (mode === 'hold') {
        this.held.push(req);
        throw new TypeError('Failed to fetch');
      }
      let res = this.handle(req);
      if (mode === 'duplicate') res = this.handle(req);
      if (mode === 'drop-response') throw new TypeError('Failed to fetch');
      const date = new Date((this.now ?? Date.now)()).toUTCString();
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      return new Response(text, { status: res.status, headers: { 'Content-Type': 'application/json', Date: date, ...res.headers } });
    };
  }
}
