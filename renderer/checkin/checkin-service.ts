import { decideCheckin, decideScan, type ScanContext, type ScanVerdict } from '../../shared/checkin/decide.ts';
import { isoWithOffset, makeNonce } from '../../shared/checkin/ids.ts';
import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import { parseTicketCode, type TicketCode } from '../../shared/checkin/ticket-code.ts';
import {
  BatchResponse, DoorAttendee, checkinBatchItem, classifyCheckinResponse, type CheckinOutcome,
} from '../../shared/checkin/wire.ts';
import { getAttendee, toSubject } from '../store/attendees.ts';
import type { AttendeeRow, KioskDb } from '../store/db.ts';
import { hasPending, logScan, recordLocalScan, storeServerAttendee } from '../store/outbox.ts';
import { ApiError, createApiClient, type ApiClient, type FetchLike } from '../sync/api-client.ts';
import type { SyncEngine } from '../sync/engine.ts';
import { verdictFromOutcome } from './online-verdict.ts';

/** How long a scan waits for the server before deciding offline with the same nonce. */
const ONLINE_DEADLINE_MS = 1500;

export interface ScanResult {
  verdict: ScanVerdict;
  nonce: string;
  mode: 'online' | 'offline';
  at: number;
}

export interface CheckinServiceOptions {
  db: KioskDb;
  engine: SyncEngine;
  deviceId: string;
  settings: () => PairingPayload | null;
  fetch?: FetchLike;
  now?: () => number;
  deadlineMs?: number;
}

/** A local refusal the server cannot overturn: the code itself is wrong. */
function isFinalLocally(v: ScanVerdict): boolean {
  return v.kind === 'invalid' && (v.reason === 'unreadable' || v.reason === 'other_event' || v.reason === 'wrong_security_code');
}

class Fallback extends Error {}

/**
 * Decides scans: online first through the batch route with the scan's nonce; with no answer within the
 * deadline, offline with the same nonce, so an answer that did reach the server is de-duplicated later.
 */
export class CheckinService {
  private readonly now: () => number;
  constructor(private readonly opts: CheckinServiceOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Decides a scanned code (camera or keyboard wedge). */
  async scan(raw: string): Promise<ScanResult> {
    const code = parseTicketCode(raw);
    return this.decide(code, (local, ctx) => decideScan(code, local ? toSubject(local) : undefined, ctx), true);
  }

  /** Staff check-in or check-out by hand (search result); no security code is involved. */
  async manual(attendeeId: number, checkIn: boolean): Promise<ScanResult> {
    const code: TicketCode = { attendeeId, eventId: null, securityCode: '' };
    return this.decide(code, (local, ctx) => {
      if (!local) return { kind: 'invalid', reason: 'unknown_ticket', attendeeId, name: null };
      if (local.eventId !== ctx.eventId) return { kind: 'invalid', reason: 'other_event', attendeeId, name: null };
      if (!checkIn) return { kind: 'admitted', attendeeId, name: local.name, ticketTitle: local.ticketTitle };
      return decideCheckin(toSubject(local));
    }, checkIn);
  }

  private async decide(
    code: TicketCode | null,
    rules: (local: AttendeeRow | undefined, ctx: ScanContext) => ScanVerdict,
    checkIn: boolean,
  ): Promise<ScanResult> {
    const { db, engine } = this.opts;
    const at = this.now();
    const nonce = makeNonce();
    const settings = this.opts.settings();
    const finish = async (verdict: ScanVerdict, mode: 'online' | 'offline'): Promise<ScanResult> => {
      await logScan(db, {
        nonce, at, attendeeId: code?.attendeeId ?? null, verdict: verdict.kind,
        reason: verdict.kind === 'invalid' ? verdict.reason : null, mode,
      });
      return { verdict, nonce, mode, at };
    };
    if (!settings) return finish({ kind: 'invalid', reason: 'refused', attendeeId: null, name: null, message: 'not paired' }, 'offline');
    if (engine.status.unauthorized) {
      return finish({ kind: 'invalid', reason: 'refused', attendeeId: code?.attendeeId ?? null, name: null, message: 'device key refused: pair again' }, 'offline');
    }
    // The engine keeps the last download time in memory; no storage read on the scan path.
    const ctx = (): ScanContext => ({ eventId: settings.event_id, now: this.now(), lastSyncAt: engine.status.lastSyncAt });
    let local = code ? await getAttendee(db, code.attendeeId) : undefined;
    const pre = rules(local, ctx());
    if (code === null || isFinalLocally(pre)) return finish(pre, 'offline');

    // This device's own queued scans are newer than anything the server knows about this attendee.
    const mustStayLocal = !engine.status.online || (await hasPending(db, code.attendeeId));
    if (!mustStayLocal) {
      const api = createApiClient(settings, this.opts.fetch);
      const deadline = AbortSignal.timeout(this.opts.deadlineMs ?? ONLINE_DEADLINE_MS);
      try {
        if (pre.kind === 'stale' || (pre.kind === 'invalid' && pre.reason === 'unknown_ticket')) {
          local = await this.fetchAttendee(api, code.attendeeId, deadline);
          if (!local) return finish({ kind: 'invalid', reason: 'unknown_ticket', attendeeId: code.attendeeId, name: null }, 'online');
          const fresh = rules(local, ctx());
          if (isFinalLocally(fresh)) return finish(fresh, 'online');
        }
        const outcome = await this.sendOnline(api, code.attendeeId, checkIn, nonce, at, deadline);
        return finish(await this.applyOnline(outcome, code.attendeeId, nonce), 'online');
      } catch (err) {
        if (!(err instanceof Fallback) && !(err instanceof ApiError && err.failure.kind === 'network')) throw err;
        if (engine.status.unauthorized) {
          return finish({ kind: 'invalid', reason: 'refused', attendeeId: code.attendeeId, name: null, message: 'device key refused: pair again' }, 'online');
        }
        engine.noteNetworkFailure(err.message);
      }
      local = await getAttendee(db, code.attendeeId);
    }
    const verdict = rules(local, ctx());
    if (verdict.kind !== 'admitted') return finish(verdict, 'offline');
    await recordLocalScan(db, {
      nonce, attendeeId: code.attendeeId, checkIn, scanAt: at, scanIso: isoWithOffset(at), deviceId: this.opts.deviceId,
    }, verdict.kind);
    engine.requestSync();
    void engine.refreshStatus();
    return { verdict, nonce, mode: 'offline', at };
  }

  /** Single attendee for a code the cache does not know (sold after the last sync). */
  private async fetchAttendee(api: ApiClient, id: number, signal: AbortSignal): Promise<AttendeeRow | undefined> {
    try {
      const res = await api.get(`evt/tickets/v1/attendees/${id}`, {}, { signal });
      await storeServerAttendee(this.opts.db, DoorAttendee.parse(res.body));
      return getAttendee(this.opts.db, id);
    } catch (err) {
      if (err instanceof ApiError && err.failure.kind === 'http' && err.failure.status === 404) return undefined;
      if (err instanceof ApiError && err.failure.kind === 'unauthorized') {
        this.opts.engine.noteUnauthorized(err.failure.message);
        throw new Fallback('unauthorized');
      }
      throw err instanceof ApiError ? err : new Fallback(String(err));
    }
  }

  private async sendOnline(
    api: ApiClient, attendeeId: number, checkIn: boolean, nonce: string, at: number, signal: AbortSignal,
  ): Promise<Exclude<CheckinOutcome, { kind: 'retry' }>> {
    const body = { check_in: checkIn, check_in_date: isoWithOffset(at), device_id: this.opts.deviceId, nonce };
    let outcome: CheckinOutcome;
    try {
      const res = await api.post('batch/v1', { validation: 'normal', requests: [checkinBatchItem(attendeeId, body)] }, { signal });
      const item = BatchResponse.parse(res.body).responses[0];
      if (!item) throw new Fallback('empty batch answer');
      outcome = classifyCheckinResponse(item.status, item.body);
    } catch (err) {
      if (err instanceof ApiError && err.failure.kind === 'unauthorized') {
        outcome = { kind: 'unauthorized', code: err.failure.code, message: err.failure.message, status: err.failure.status };
      } else if (err instanceof ApiError || err instanceof Fallback) throw err;
      else throw new Fallback(String(err));
    }
    if (outcome.kind === 'retry') throw new Fallback(outcome.message);
    if (outcome.kind === 'unauthorized') this.opts.engine.noteUnauthorized(outcome.message);
    return outcome;
  }

  private async applyOnline(outcome: Exclude<CheckinOutcome, { kind: 'retry' }>, attendeeId: number, nonce: string): Promise<ScanVerdict> {
    const { db } = this.opts;
    const local = await getAttendee(db, attendeeId);
    if (outcome.kind === 'accepted') await storeServerAttendee(db, outcome.attendee, nonce);
    if (outcome.kind === 'conflict' && local && outcome.standing) {
      await storeServerAttendee(db, {
        id: local.id, post_id: local.eventId, ticket_id: local.ticketId, status: local.status,
        title: local.name, email: local.email, order_status: local.orderStatus, checked_in: true,
        ticket: { id: local.ticketId, title: local.ticketTitle },
        checkin_details: outcome.standing,
      });
    }
    return verdictFromOutcome(outcome, attendeeId, local);
  }
}
