import type { ScanVerdict } from '../../shared/checkin/decide.ts';
import type { CheckinOutcome } from '../../shared/checkin/wire.ts';
import type { AttendeeRow } from '../store/db.ts';

/**
 * Turns the server's answer to a check-in into what the door shows. `local` is the cached attendee, used
 * for names and to tell "revoked" from "unknown" when the server no longer knows the attendee.
 */
export function verdictFromOutcome(
  outcome: Exclude<CheckinOutcome, { kind: 'retry' }>,
  attendeeId: number,
  local: AttendeeRow | undefined,
): ScanVerdict {
  switch (outcome.kind) {
    case 'accepted':
      return {
        kind: 'admitted', attendeeId,
        name: outcome.attendee.title ?? local?.name ?? '',
        ticketTitle: outcome.attendee.ticket?.title ?? local?.ticketTitle ?? null,
      };
    case 'conflict':
      return {
        kind: 'already', attendeeId, name: local?.name ?? '', ticketTitle: local?.ticketTitle ?? null,
        checkedInAt: outcome.standing?.date ?? '', deviceId: outcome.standing?.device_id ?? null,
      };
    case 'unauthorized':
      return { kind: 'invalid', reason: 'refused', attendeeId, name: null, message: outcome.message };
    case 'rejected':
      if (outcome.code === 'tec-et-attendee-invalid-check-in') {
        return { kind: 'invalid', reason: 'order_not_complete', attendeeId, name: local?.name ?? null, orderStatus: local?.orderStatus ?? null };
      }
      if (outcome.code === 'attendee-not-found') {
        return local?.status === 'trash'
          ? { kind: 'invalid', reason: 'revoked', attendeeId, name: local.name }
          : { kind: 'invalid', reason: 'unknown_ticket', attendeeId, name: null };
      }
      return { kind: 'invalid', reason: 'refused', attendeeId, name: local?.name ?? null, message: outcome.message };
  }
}
