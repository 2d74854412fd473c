import QRCode from 'qrcode';
import { touch } from '../../http/cache-tags.ts';
import { ticketsRoutes } from '../../../shared/routes/tickets.ts';
import type { Ctx } from '../../kernel/context.ts';
import { apiKeyCaller, checkApiKey } from '../../auth/authenticate.ts';
import { can } from '../../kernel/context.ts';
import { HttpError, forbidden, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { errorResult, ok, type Result } from '../../kernel/result.ts';
import { effectiveOrderStatus, getAttendeeRow, type AttendeeRow } from '../../db/repos/attendees.ts';
import { signedTicketUrl } from '../../security/ticket-signing.ts';
import { nowMs } from './clock.ts';
import { readableRows } from './attendee-access.ts';
import { managesAttendees, presentAttendee } from './attendee-present.ts';
import { applyScan, decideScan, isFailure, logFailedScan } from '../../domain/checkin/scan.ts';
import { keyListScope } from '../../domain/checkin/lists.ts';
import { scanError } from './checkin.ts';
import { qrLimiter } from './qr-limit.ts';
import { clientKey } from '../../security/window-limiter.ts';
import { errorHeaders } from '../../auth/sign-in-limits.ts';
import { inTransaction } from '../../db/in-transaction.ts';

/**
 * The check-in URL a ticket's QR code carries (CONTRACT section 7), on the request's language base, signed by the
 * event's key when the attendee may be admitted (section 8).
 */
export async function attendeeQrUrl(ctx: Ctx, row: AttendeeRow): Promise<string> {
  return await signedTicketUrl(
    ctx.db,
    ctx.app.secret,
    ctx.urls.site('').replace(/\/+$/, ''),
    { ...row, order_status: effectiveOrderStatus(row) },
    nowMs(ctx),
  );
}

/** `GET /qr/{id}`: the original's `{id, checked_in}`, or the QR image for door and manager callers. */
const qrImage = implement(
  ticketsRoutes.qrImage,
  async (input, ctx): Promise<Result> => {
    // Only attendee posts have an attendee row: any other ID is no attendee.
    const row = await getAttendeeRow(ctx.db, input.id);
    if (!row) throw invalidParam('id');
    if (input.format === 'json') {
      if (row.status !== 'publish' && !can(ctx, 'read_private_events'))
        throw new HttpError(403, 'ticket-not-accessible', 'The requested ticket is not accessible');
      return ok({ id: row.id, checked_in: row.checked_in ? '1' : '' });
    }
    // The image carries the security code: only for managers whose reach holds the attendee (a key's event, or its
    // list's tickets; an organizer's events).
    if (!managesAttendees(ctx) || (await readableRows(ctx, [row])).length === 0) throw forbidden(ctx.caller.kind === 'anonymous');
    const url = await attendeeQrUrl(ctx, row);
    if (input.format === 'svg') {
      const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      return { status: 200, body: null, raw: { contentType: 'image/svg+xml', payload: svg } };
    }
    const png = await QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: input.size });
    return { status: 200, body: null, raw: { contentType: 'image/png', payload: png } };
  },
  { async: true },
);

const qr403 = (body: Record<string, unknown>): Result => ({ status: 403, body });

/**
 * `GET /qr?api_key&ticket_id&security_code[&event_id]`: the original's QR check-in with its answers for each
 * case (reference 4.5). The key, wherever it came from (query, form, JSON body), takes the one path of every
 * door key (`checkApiKey`: its limit of unknown keys per address). Failed check-ins count against the key at
 * the client address.
 */
const qrCheckin = implement(
  ticketsRoutes.qrCheckin,
  async (input, ctx): Promise<Result> => {
    let key: Awaited<ReturnType<typeof checkApiKey>>;
    try {
      key = await checkApiKey(ctx.db, input.api_key, ctx.req.ip, ctx.app, { memo: ctx.req.keyChecks });
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      return { status: e.status, body: e.body(), isError: true, headers: errorHeaders(e) };
    }
    if (!key.ok) {
      const eventId = ctx.req.params.event_id;
      return {
        status: 400,
        body: {
          api_key: input.api_key,
          ticket_id: input.ticket_id,
          event_id: typeof eventId === 'string' || typeof eventId === 'number' ? eventId : null,
          security_code: input.security_code,
        },
      };
    }
    const door: Ctx = { ...ctx, caller: apiKeyCaller(key.key) };
    const limiter = qrLimiter(ctx.app);
    // Per key at each client address (by its /64 for IPv6, as every other limit): forged codes shown at one
    // scanner stop no other door.
    const limitKeys = [`key:${key.key.id}|ip:${clientKey(ctx.req.ip)}`];
    const wait = await limiter.retryAfter(limitKeys);
    if (wait > 0) {
      const e = new HttpError(429, 'rest_too_many_requests', `Too many failed check-ins. Try again in ${wait} seconds.`);
      return { status: 429, body: e.body(), isError: true, headers: { 'Retry-After': String(wait) } };
    }
    const id = Number(input.ticket_id);
    const scan = { checkIn: true, deviceId: null, nonce: null, source: 'app' };
    // A GET that writes: run it as one transaction, and tell response caches what moved (check-ins only), in it.
    return await inTransaction(ctx.db, async (): Promise<Result> => {
      await touch(ctx.app, ['checkins']);
      const row = Number.isSafeInteger(id) ? await getAttendeeRow(ctx.db, id) : undefined;
      if (!row || (key.key.event_id !== null && row.event_id !== key.key.event_id)) {
        await logFailedScan(door, { id: Number.isSafeInteger(id) ? id : 0, event_id: null }, scan, 'unknown_ticket');
        await limiter.record(limitKeys);
        // As the original: an unknown attendee reads as a wrong code, so scans cannot probe which IDs exist.
        return qr403({ msg: 'Security code is not valid!', error: 'security_code_not_valid' });
      }
      if (row.security_code.toLowerCase() !== input.security_code.trim().toLowerCase()) {
        await logFailedScan(door, { id: row.id, event_id: row.event_id }, scan, 'wrong_security_code');
        await limiter.record(limitKeys);
        return qr403({ msg: 'Security code is not valid!', error: 'security_code_not_valid' });
      }
      const decision = await decideScan(door, row, scan);
      // applyScan updates the row in place: keep the attendee as read before the check-in for the answer.
      const before = { ...row };
      const after = await applyScan(door, row, decision);
      const attendee = () => presentAttendee(door, after, true);
      const o = decision.outcome;
      // A scan through a check-in list (a list-bound key) is refused as the attendee route refuses it: 400 with the
      // contract's codes (CONTRACT section 8: `checkin-list-*`, `tec-et-attendee-already-checked-in` with the
      // standing check-in), so a gate reads one set of refusals whichever route carried the scan. The original's
      // 403 shapes stay for keys bound to no list (its clients know them), and for a wrong code or unknown
      // attendee on any key: those are no check-in decision, and answer alike so IDs cannot be probed.
      if (keyListScope(door) !== null && isFailure(o)) return errorResult(await scanError(o, door, after));
      // As the original, the check-in answer carries the attendee as it was read before the check-in (not yet
      // checked in); a read after it shows the standing check-in.
      // Through an exit list the scan was an exit (domain/checkin/lists.ts): the original has no such answer.
      if (o.kind === 'checked_out') return { status: 201, body: { msg: 'Checked Out!', attendee: attendee() } };
      if (o.kind === 'accepted') return { status: 201, body: { msg: 'Checked In!', attendee: presentAttendee(door, before, true) } };
      if (o.kind === 'conflict') return qr403({ msg: 'Already checked in!', error: 'attendee_already_checked_in', attendee: attendee() });
      if (o.kind === 'rejected' && o.reason === 'revoked')
        return qr403({ msg: 'An attendee is not found with this ID.', error: 'attendee_not_found' });
      return qr403({
        msg: 'This attendee&#039;s ticket is not authorized to be Checked in. Please check the order status.',
        error: 'attendee_not_authorized',
        attendee: attendee(),
      });
    });
  },
  { async: true },
);

export const qrEndpoints: Endpoint[] = [qrImage, qrCheckin];
