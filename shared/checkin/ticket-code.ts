import { readSignatureParams } from './signature.ts';

/** What a ticket's QR code says, once parsed. */
export interface TicketCode {
  attendeeId: number;
  /** `null` when the code carried no event (older or hand-typed codes). */
  eventId: number | null;
  securityCode: string;
  /**
   * A signed ticket's `sig` and `kid` (CONTRACT section 8) as scanned, checked only when verified; absent on
   * unsigned codes.
   */
  signature?: { sig: string; kid: string };
}

const POSITIVE_INT = /^[1-9]\d{0,15}$/;

/**
 * Parses the original Event Tickets check-in URL
 * `{base}/?event_qr_code=1&ticket_id={attendee}&event_id={event}&security_code={code}&path=...`.
 *
 * Accepts the URL with or without scheme and host, or just its query string, because keyboard-wedge
 * scanners and hand entry often lose the front of it. Returns `null` for anything that is not a ticket code
 * (a pairing code, a product barcode, garbage), so the caller can tell "unreadable" from "not valid".
 */
export function parseTicketCode(raw: string): TicketCode | null {
  const text = raw.trim();
  const q = text.indexOf('?');
  const query = q >= 0 ? text.slice(q + 1) : text;
  if (!query.includes('=')) return null;
  const params = new URLSearchParams(query.split('#')[0]);
  const flag = params.get('event_qr_code');
  if (flag !== null && flag !== '1') return null;
  const ticketId = params.get('ticket_id')?.trim() ?? '';
  const securityCode = params.get('security_code')?.trim() ?? '';
  const eventId = params.get('event_id')?.trim() ?? '';
  if (!POSITIVE_INT.test(ticketId) || securityCode === '') return null;
  if (eventId !== '' && !POSITIVE_INT.test(eventId)) return null;
  // Without the flag, insist on both ids being present so an unrelated URL with a ticket_id is not taken.
  if (flag === null && eventId === '') return null;
  const signature = readSignatureParams(params.get('sig'), params.get('kid'));
  return {
    attendeeId: Number(ticketId),
    eventId: eventId === '' ? null : Number(eventId),
    securityCode,
    ...(signature ? { signature } : {}),
  };
}

/**
 * Builds the original check-in URL for an attendee (the server's QR image and the tests use it).
 * `base` is the public base URL without trailing slash; `apiPath` is the check-in route path. A signed ticket's
 * `sig` and `kid` go last, after the original's parameters, so the original's clients read it as before.
 */
export function ticketCodeUrl(base: string, code: TicketCode & { eventId: number }, apiPath = `/evt/tickets/v1/qr`): string {
  const params = new URLSearchParams({
    event_qr_code: '1',
    ticket_id: String(code.attendeeId),
    event_id: String(code.eventId),
    security_code: code.securityCode,
    path: apiPath,
  });
  if (code.signature) {
    params.set('sig', code.signature.sig);
    params.set('kid', code.signature.kid);
  }
  return `${base.replace(/\/+$/, '')}/?${params.toString()}`;
}
