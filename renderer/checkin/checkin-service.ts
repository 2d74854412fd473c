import { decideCheckin, decideScan, LIST_REFUSAL_CODES, type ScanContext, type ScanVerdict } from '../../shared/checkin/decide.ts';
import { isoWithOffset, makeNonce } from '../../shared/checkin/ids.ts';
import type { PairingPayload } from '../../shared/checkin/pairing.ts';
import { parseTicketCode, type TicketCode } from '../../shared/checkin/ticket-code.ts';
import { BatchResponse, CHECKIN_ERRORS, checkinBatchItem, classifyCheckinResponse, type CheckinFate } from '../../shared/checkin/wire.ts';
import { decideSigned } from '../../shared/checkin/signed-scan.ts';
import { hashSecurityCode } from '../../shared/checkin/security-code.ts';
import { getAttendee, toSubject } from '../store/attendees.ts';
import { knownTickets, knownTicketsFrom, trustedSigningKeys, trustedSigningKeysFrom } from '../store/signing-keys.ts';
import { keepAttendee, loadScanMemory, scanMemory, type ScanMemory } from '../store/scan-memory.ts';
import type { AttendeeRow, KioskDb } from '../store/db.ts';
import { hasPending, logScan, recordLocalScan, updateScanLog } from '../store/outbox.ts';
import type { SyncEngine } from '../sync/engine.ts';
import type { DeviceProblem } from '../sync/events.ts';
import { attendeePasses, decideThroughGate, exitCounts, forgetGatePass, GATE_META_KEY, gateOf, historyOf, loadGate, type GateState } from './gate.ts';

/** How long a verdict waits for the server before it stands on the local decision (same nonce either way). */
export const ONLINE_DEADLINE_MS = 1500;

export interface ScanResult {
  verdict: ScanVerdict;
  nonce: string;
  /** `online`: the server answered within the deadline; `offline`: the device decided from its cache. */
  mode: 'online' | 'offline';
  at: number;
  /** The device problem standing when the scan was decided (the banner's); never part of the verdict. */
  device: DeviceProblem | null;
  /** Whether the scan was queued for the server (an admission or a check-out). */
  queued: boolean;
  /** The check-in list the scan went through (gate.ts), when the kiosk's key is bound to one. */
  gate?: GateState | null;
}

export interface CheckinServiceOptions {
  db: KioskDb;
  engine: SyncEngine;
  deviceId: string;
  settings: () => PairingPayload | null;
  now?: () => number;
  deadlineMs?: number;
}

/** A local refusal nothing on the server can overturn: the code itself is wrong. */
function isFinalLocally(v: ScanVerdict): boolean {
  return v.kind === 'invalid' && (v.reason === 'unreadable' || v.reason === 'other_event' || v.reason === 'wrong_security_code');
}

/** A local answer the server may know better: the cache can be behind on these. */
function worthLookingUp(v: ScanVerdict): boolean {
  return v.kind === 'not_in_list' || v.kind === 'already' || (v.kind === 'invalid' && (v.reason === 'order_not_complete' || v.reason === 'revoked'));
}

/**
 * Decides scans, one path for all: every scan is decided from the cache; an admission (or check-out) is
 * written to the outbox with the attendee's mark in one transaction, then the sync engine (the only code
 * that talks to the server) uploads it at once and the verdict waits up to the deadline for its answer.
 * With no answer in time the local verdict stands, and the same nonce goes up later.
 */
export class CheckinService {
  private readonly now: () => number;
  constructor(private readonly opts: CheckinServiceOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Makes the reads a scan decision makes, once, decided nothing: a kiosk's first scan otherwise pays for the
   * first opens of its IndexedDB stores and for compiling the decision's code, on the guest's time.
   */
  async warmUp(): Promise<void> {
    const { db } = this.opts;
    const settings = this.opts.settings();
    if (!settings) return;
    try {
      // An attendee ID no ticket has: every lookup is made, finds nothing and changes nothing.
      const [, gate] = await Promise.all([
        loadScanMemory(db),
        loadGate(db),
        getAttendee(db, 0),
        attendeePasses(db, 0),
        hasPending(db, 0),
        knownTickets(db),
        trustedSigningKeys(db, settings),
      ]);
      warmDecisions(settings.event_id, this.opts.deviceId, this.now(), gate);
    } catch {
      // Only a head start: the first scan makes the same reads and reports what fails.
    }
  }

  /** Decides a scanned code (camera or keyboard wedge). */
  async scan(raw: string): Promise<ScanResult> {
    const code = parseTicketCode(raw);
    return this.decide(code, (local, ctx) => decideScan(code, local ? toSubject(local) : undefined, ctx), true);
  }

  /** Staff check-in or check-out by hand (search result); no security code is involved. */
  async manual(attendeeId: number, checkIn: boolean): Promise<ScanResult> {
    const code: TicketCode = { attendeeId, eventId: null, securityCode: '' };
    return this.decide(
      code,
      (local, ctx) => {
        if (!local) return { kind: 'not_in_list', attendeeId, syncedAgoMs: ctx.lastSyncAt === null ? null : Math.max(0, ctx.now - ctx.lastSyncAt) };
        if (local.eventId !== ctx.eventId) return { kind: 'invalid', reason: 'other_event', attendeeId, name: null };
        if (!checkIn) return { kind: 'admitted', attendeeId, name: local.name, ticketTitle: local.ticketTitle };
        return decideCheckin(toSubject(local), ctx);
      },
      checkIn,
    );
  }

  private async decide(
    code: TicketCode | null,
    rules: (local: AttendeeRow | undefined, ctx: ScanContext) => ScanVerdict,
    asked: boolean,
  ): Promise<ScanResult> {
    const { db, engine, deviceId } = this.opts;
    const at = this.now();
    const deadlineAt = at + (this.opts.deadlineMs ?? ONLINE_DEADLINE_MS);
    const nonce = makeNonce();
    const settings = this.opts.settings();
    // What the decision reads: a kiosk on a check-in list decides through the list's rules, from the passes it knows
    // of (gate.ts), and the cached attendee. From memory once it is loaded (store/scan-memory.ts), so a scan makes
    // no IndexedDB read before its verdict; until then the reads go out at once, so the scan waits on the database once.
    const decidable = settings && code;
    const memory = settings ? scanMemory(db) : null;
    const [gate, cached, passes] = memory
      ? [
          gateOf(memory.meta(GATE_META_KEY)),
          decidable ? await cachedAttendee(db, memory, code.attendeeId) : undefined,
          decidable ? memory.passes(code.attendeeId) : [],
        ]
      : await Promise.all([
          settings ? loadGate(db) : null,
          decidable ? getAttendee(db, code.attendeeId) : undefined,
          decidable ? attendeePasses(db, code.attendeeId) : [],
        ]);
    // A kiosk on an exit list is an exit: every scan, and staff's by hand, lets the attendee out (the server
    // decides a scan through an exit list as an exit whatever it is sent, domain/checkin/lists.ts).
    const checkIn = gate?.list.direction === 'exit' ? false : asked;
    const result = (verdict: ScanVerdict, mode: 'online' | 'offline', queued = false): ScanResult => ({
      verdict,
      nonce,
      mode,
      at,
      device: engine.status.device,
      queued,
      gate,
    });
    const finish = async (verdict: ScanVerdict, mode: 'online' | 'offline'): Promise<ScanResult> => {
      const attendeeId = code?.attendeeId ?? null;
      // Refused here, so the server never heard of it: it goes to the server's check-in log with its reason
      // (nothing to send to while unpaired).
      const logged = settings ? refusalOf(verdict) : null;
      await logScan(
        db,
        { nonce, at, attendeeId, verdict: verdict.kind, reason: reasonOf(verdict), mode },
        logged ? { nonce, attendeeId, ...logged, scanIso: isoWithOffset(at), deviceId } : undefined,
      );
      if (logged) engine.requestSync();
      return result(verdict, mode);
    };
    if (code === null) return finish({ kind: 'invalid', reason: 'unreadable', attendeeId: null, name: null }, 'offline');
    if (!settings) return finish({ kind: 'not_in_list', attendeeId: code.attendeeId, syncedAgoMs: null }, 'offline');
    // The engine keeps the last download time in memory; no storage read on the scan path.
    const ctx = (): ScanContext => ({ eventId: settings.event_id, now: this.now(), lastSyncAt: engine.status.lastSyncAt, deviceId });
    let local = cached;
    const history = gate ? historyOf(passes, gate.list.id) : [];
    const through = (v: ScanVerdict): ScanVerdict => (gate ? decideThroughGate(gate, v, local, checkIn, at, history) : v);
    let verdict = through(rules(local, ctx()));
    if (isFinalLocally(verdict)) return finish(verdict, 'offline');

    let mode: 'online' | 'offline' = 'offline';
    // This device's own queued scans are newer than anything the server knows about this attendee.
    if (worthLookingUp(verdict) && !(await pendingFor(db, code.attendeeId))) {
      const found = await engine.lookupAttendee(code.attendeeId, Math.max(1, deadlineAt - this.now()));
      if (found === 'found') {
        local = await getAttendee(db, code.attendeeId);
        verdict = through(rules(local, ctx()));
        mode = 'online';
      } else if (found === 'not_found') {
        mode = 'online';
        // A list's key reads only the attendees its list admits: to it, any other ticket is missing.
        verdict = gate?.list.ticket_ids.length
          ? { kind: 'invalid', reason: 'refused', attendeeId: code.attendeeId, name: null, code: 'checkin-list-ticket-not-admitted' }
          : local
            ? { kind: 'invalid', reason: 'revoked', attendeeId: code.attendeeId, name: local.name }
            : { kind: 'invalid', reason: 'unknown_ticket', attendeeId: code.attendeeId, name: null };
      }
    }
    // A signed code (CONTRACT section 8): admitted by its signature when the list does not hold it yet and the
    // server could not say; refused when forged or revoked.
    let unknown: AttendeeRow | undefined;
    if (code.signature && (verdict.kind === 'not_in_list' || verdict.kind === 'invalid')) {
      const now = scanMemory(db);
      const known = now ? knownTicketsFrom(now.tickets(), now.meta) : await knownTickets(db);
      const signedCtx = {
        eventId: settings.event_id,
        keys: now ? trustedSigningKeysFrom(now.meta, settings) : await trustedSigningKeys(db, settings),
        tickets: known.tickets,
        ticketsComplete: known.complete,
      };
      const signed = await decideSigned(code, verdict, signedCtx);
      verdict = signed.verdict;
      if (signed.signedTicketId !== null && verdict.kind === 'admitted') {
        unknown = signedAttendeeRow(code, settings.event_id, signed.signedTicketId, verdict.ticketTitle);
        // The signature names the ticket, so the list's rules decide it as the server would: a list key downloads
        // only the attendees its list admits, and a signed ticket of another gate is refused in the same words as
        // online (`checkin-list-ticket-not-admitted`), not left as "not on the list, or sold since".
        if (gate) verdict = decideThroughGate(gate, verdict, unknown, checkIn, at, history);
        if (verdict.kind !== 'admitted') unknown = undefined;
      }
    }
    if (verdict.kind !== 'admitted') return finish(verdict, mode);

    // The pass through the list (an entry, or an exit of someone inside) is written with the scan, in its transaction.
    const pass =
      gate && (checkIn || exitCounts(history))
        ? { nonce, listId: gate.list.id, attendeeId: code.attendeeId, kind: checkIn ? ('entry' as const) : ('exit' as const), at }
        : undefined;
    const scan = { nonce, attendeeId: code.attendeeId, checkIn, scanAt: at, scanIso: isoWithOffset(at), deviceId };
    // The request goes out first and the scan is written while it is out (when nothing else is queued); the verdict
    // waits for both.
    const { fate, written: recorded } = await engine.flushWriting(
      nonce,
      Math.max(0, deadlineAt - this.now()),
      { ...scan, attempts: 0 },
      () => recordLocalScan(db, scan, checkIn ? verdict.kind : 'checked_out', unknown, pass, firstDownloadRow(db, code.attendeeId)),
      (r) => r?.queued,
    );
    const logId = recorded?.logId;
    const answered = fate && verdictFromFate(fate, verdict, local);
    if (!answered) {
      // Queued for later: the pending count changes now (an upload refreshes it when it settles). A refresh that
      // fails (the database closing under it) changes nothing the next one will not set right.
      void engine.refreshStatus().catch(() => undefined);
      return result(verdict, 'offline', true);
    }
    // The server refused what this kiosk let through: the pass did not happen.
    if (gate && answered.kind !== 'admitted') await forgetGatePass(db, nonce);
    if (logId !== undefined && answered.kind !== verdict.kind) {
      await updateScanLog(db, logId, { verdict: answered.kind, reason: reasonOf(answered), mode: 'online' });
    }
    return result(answered, 'online', true);
  }
}

/**
 * A scan's code reading, decisions and reading of the server's answers (accepted, and already checked in), run once
 * on made-up values: nothing is stored or sent. The first guest's scan otherwise paid for compiling them (and for
 * Zod's first walks of the answer's schemas): in bench:kiosk the first online scans after the kiosk opened were the
 * slowest of the run, as slow with the page open 3 s as 1 s.
 */
function warmDecisions(eventId: number, deviceId: string, now: number, gate: GateState | null): void {
  const made: TicketCode = { attendeeId: 0, eventId, securityCode: '0' };
  const code = parseTicketCode(`https://door.invalid/?event_qr_code=1&ticket_id=0&event_id=${eventId}&security_code=0`) ?? made;
  const row = signedAttendeeRow(made, eventId, 0, null);
  const ctx: ScanContext = { eventId, now, lastSyncAt: now, deviceId };
  decideScan(code, toSubject(row), ctx);
  let verdict = decideCheckin(toSubject(row), ctx);
  if (gate) verdict = decideThroughGate(gate, verdict, row, true, now, []);
  const scanIso = isoWithOffset(now);
  JSON.stringify(checkinBatchItem(0, { check_in: true, check_in_date: scanIso, device_id: deviceId, nonce: makeNonce() }));
  const checkin = { date: scanIso, source: 'kiosk', author: 0, device_id: deviceId };
  const answer = BatchResponse.parse({
    responses: [
      {
        status: 200,
        headers: {},
        body: { id: 0, post_id: eventId, ticket_id: 0, status: 'publish', title: '', checked_in: true, checkin_details: checkin },
      },
      {
        status: 409,
        headers: {},
        body: { code: CHECKIN_ERRORS.alreadyCheckedIn, message: '', data: { status: 409, checkin_details: checkin } },
      },
    ],
  });
  const admitted: Extract<ScanVerdict, { kind: 'admitted' }> =
    verdict.kind === 'admitted' ? verdict : { kind: 'admitted', attendeeId: 0, name: '', ticketTitle: null };
  for (const item of answer.responses) if (item) verdictFromFate(classifyCheckinResponse(item.status, item.body), admitted, row);
}

/** The cached attendee from memory; a row of `attendees` memory does not hold is read (and kept). */
async function cachedAttendee(db: KioskDb, memory: ScanMemory, id: number): Promise<AttendeeRow | undefined> {
  const found = memory.attendee(id);
  if (found !== 'read') return found;
  const generation = memory.attendeesGeneration;
  const newer = await db.attendees.get(id);
  if (newer) keepAttendee(db, newer, generation);
  return newer ?? memory.snapshotRow(id);
}

/** Whether this device has scans of the attendee queued (from memory once loaded). */
function pendingFor(db: KioskDb, attendeeId: number): Promise<boolean> | boolean {
  const memory = scanMemory(db);
  return memory ? memory.hasPending(attendeeId) : hasPending(db, attendeeId);
}

/** The first download's row, when memory holds the first download: the scan's write then reads nothing else. */
function firstDownloadRow(db: KioskDb, id: number): { row: AttendeeRow | undefined } | undefined {
  const memory = scanMemory(db);
  return memory ? { row: memory.snapshotRow(id) } : undefined;
}

function isListCode(code: string | undefined): code is string {
  return code !== undefined && (LIST_REFUSAL_CODES as readonly string[]).includes(code);
}

/** The reason a scan's log line keeps: a check-in list's refusal keeps its code, so the door's log can word it. */
function reasonOf(v: ScanVerdict): string | null {
  if (v.kind !== 'invalid') return null;
  return v.reason === 'refused' && isListCode(v.code) ? v.code : v.reason;
}

/**
 * The cache row of an attendee admitted by a signed code the list did not hold: what the code proves (its event,
 * ticket and security code, kept as the hash only), no name yet. The next download replaces it.
 */
function signedAttendeeRow(code: TicketCode, eventId: number, ticketId: number, ticketTitle: string | null): AttendeeRow {
  return {
    id: code.attendeeId,
    eventId,
    ticketId,
    status: 'publish',
    orderStatus: 'completed',
    codeHash: hashSecurityCode(code.attendeeId, code.securityCode),
    checkedIn: 0,
    checkinDate: null,
    checkinAt: null,
    checkinDevice: null,
    name: '',
    email: '',
    ticketTitle,
    words: [],
  };
}

/**
 * How a scan refused at the door goes into the server's check-in log: `rejected` with the reason the verdict
 * gave (`other_event`, `unreadable`, `not_in_list`, ...), `conflict` for a ticket already checked in (here or
 * at another door). `refused` came from the server, which logged it already; an admission is not a refusal.
 */
export function refusalOf(v: ScanVerdict): { result: 'rejected' | 'conflict'; reason: string } | null {
  switch (v.kind) {
    case 'invalid':
      // A check-in list's refusal made here (gate.ts) goes to the log under the list's code.
      if (v.reason === 'refused') return isListCode(v.code) ? { result: 'rejected', reason: v.code } : null;
      return { result: 'rejected', reason: v.reason };
    case 'already':
      return { result: 'conflict', reason: 'already_checked_in' };
    case 'already_here':
      return { result: 'conflict', reason: 'already_here' };
    case 'not_in_list':
      return { result: 'rejected', reason: 'not_in_list' };
    case 'admitted':
      return null;
  }
}

/**
 * The verdict once the server answered a queued scan in time; `null` when the answer does not decide it
 * (a device problem or no final answer): the local verdict stands. A refusal caused by the device is never
 * a ticket verdict.
 */
export function verdictFromFate(
  fate: CheckinFate,
  local: Extract<ScanVerdict, { kind: 'admitted' }>,
  row: AttendeeRow | undefined,
): ScanVerdict | null {
  const who = { attendeeId: local.attendeeId };
  switch (fate.kind) {
    case 'accepted':
      return { kind: 'admitted', ...who, name: fate.attendee.title ?? local.name, ticketTitle: fate.attendee.ticket?.title ?? local.ticketTitle };
    case 'conflict':
      return {
        kind: 'already',
        ...who,
        name: local.name,
        ticketTitle: local.ticketTitle,
        checkedInAt: fate.standing?.date ?? '',
        deviceId: fate.standing?.device_id ?? null,
        deviceLabel: fate.standing?.device_label ?? null,
      };
    case 'rejected':
      if (fate.code === CHECKIN_ERRORS.orderNotComplete) {
        return { kind: 'invalid', reason: 'order_not_complete', ...who, name: local.name, orderStatus: row?.orderStatus ?? null };
      }
      if (fate.code === CHECKIN_ERRORS.attendeeNotFound) return { kind: 'invalid', reason: 'revoked', ...who, name: local.name };
      return { kind: 'invalid', reason: 'refused', ...who, name: local.name, message: fate.message, code: fate.code };
    case 'device':
    case 'retry':
      return null;
  }
}
