import type { ScanVerdict } from './decide.ts';
import { checkTicketSignature, type PublicSigningKey } from './signature.ts';
import type { TicketCode } from './ticket-code.ts';

/** Order statuses that take a ticket back for good: a signed code of such an attendee is revoked. */
const REVOKING_ORDER_STATUSES: readonly string[] = ['refunded', 'cancelled'];

export interface SignedScanContext {
  /** The event this device admits to. */
  eventId: number;
  /** The signing keys the device trusts for it (pinned at pairing, then as its last download of the event said). */
  keys: readonly PublicSigningKey[];
  /** The event's tickets the device knows, with their titles (the signature covers the ticket's ID). */
  tickets: readonly { id: number; title: string | null }[];
  /**
   * Whether `tickets` holds every ticket of the event (as many as the server last counted): a signature under a
   * trusted key that fits none of them is forged only then; else it may be for a ticket the device has not seen.
   */
  ticketsComplete: boolean;
}

/**
 * What a signed code changes in a verdict the rules (decide.ts) reached without the signature (CONTRACT section 8):
 * - a code not in the cached list (`not_in_list`: sold after the last download, the server not reachable in
 *   time) is `admitted` when its signature verifies under a trusted key for one of the event's tickets, and
 *   refused as `forged` when its key ID is trusted but the signature fits none of them and the device knows
 *   them all; under a key ID the device does not trust, or for a ticket it may not know, it proves nothing and
 *   the verdict stands;
 * - a cached attendee whose order was refunded or cancelled is `revoked` (the delta download told the device).
 * An unsigned code's verdict is never changed. `signedTicketId` is the ticket the signature proved, on an admission.
 */
export async function decideSigned(
  code: TicketCode,
  verdict: ScanVerdict,
  ctx: SignedScanContext,
): Promise<{ verdict: ScanVerdict; signedTicketId: number | null }> {
  const stands = { verdict, signedTicketId: null };
  if (!code.signature) return stands;
  if (
    verdict.kind === 'invalid' &&
    verdict.reason === 'order_not_complete' &&
    REVOKING_ORDER_STATUSES.includes(verdict.orderStatus?.toLowerCase() ?? '')
  ) {
    return { verdict: { kind: 'invalid', reason: 'revoked', attendeeId: verdict.attendeeId, name: verdict.name }, signedTicketId: null };
  }
  if (verdict.kind !== 'not_in_list') return stands;
  if (code.eventId !== null && code.eventId !== ctx.eventId) return stands;
  const check = await checkTicketSignature(
    { eventId: ctx.eventId, attendeeId: code.attendeeId, securityCode: code.securityCode, ...code.signature },
    ctx.keys,
    ctx.tickets.map((t) => t.id),
  );
  if (check.kind === 'forged' && !ctx.ticketsComplete) return stands;
  if (check.kind === 'forged')
    return { verdict: { kind: 'invalid', reason: 'forged', attendeeId: code.attendeeId, name: null }, signedTicketId: null };
  if (check.kind === 'unproven') return stands;
  const ticket = ctx.tickets.find((t) => t.id === check.ticketId);
  return { verdict: { kind: 'admitted', attendeeId: code.attendeeId, name: '', ticketTitle: ticket?.title ?? null }, signedTicketId: check.ticketId };
}
